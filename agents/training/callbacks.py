"""What runs during an SB3 training run besides the PPO updates: SB3 callbacks (game metrics,
the win rate, the progress bar, the actor warm-up) and the periodic evaluation that keeps
``best_model.zip``, called at update boundaries (``agents.training.resume.UpdateBoundaries``)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm

from numberdrop_env.engine.rules import DEFAULT_RULES
from numberdrop_env.envs.base import breakdown_dict

from .checkpoints import append_jsonl, best_score, last_step, read_json, write_json
from .resume import save_model

GAME_KEYS = ("score", "lines", "boxes", "box_points", "column_bonuses", "penalty_rows", "turns", "decisions")


class GameMetricsCallback(BaseCallback):
    """Number Drop: per-episode game metrics of the training envs, logged as means per rollout (``game/*``)."""

    def __init__(self, rules: Any = DEFAULT_RULES) -> None:
        super().__init__()
        self.rules = rules
        self.episodes: dict[str, list[float]] = {k: [] for k in GAME_KEYS}
        self.last_score: float | None = None

    def _on_step(self) -> bool:
        r, ep = self.rules, self.episodes
        n_boxes = 2 * len(r.box_sizes) + 1
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if not done or "score_breakdown" not in info:
                continue
            b = breakdown_dict(info["score_breakdown"])
            ep["score"].append(b["total"])
            ep["lines"].append(b["lines"] / r.line_points)
            ep["penalty_rows"].append(-b["penalties"] / r.penalty_points)
            ep["column_bonuses"].append(b["column_bonuses"])
            ep["box_points"].append(b["identical"] + b["consecutive"] + b["bonus"])
            term = info.get("terminal_observation")
            if "boxes" in info:  # NumberDropTurn-v0
                ep["boxes"].append(float(info["boxes"]))
            elif isinstance(term, dict) and "track" in term:  # identical, consecutive, bonus boxes
                ep["boxes"].append(float(np.sum(term["track"][:n_boxes])))
            ep["turns"].append(info["turn"])
            if "episode" in info:
                ep["decisions"].append(info["episode"]["l"])
        return True

    def _on_rollout_end(self) -> None:
        if self.episodes["score"]:
            for key, values in self.episodes.items():
                if values:
                    self.logger.record(f"game/{key}", float(np.mean(values)))
            self.logger.record("game/episodes", len(self.episodes["score"]))
            self.last_score = float(np.mean(self.episodes["score"]))
        self.episodes = {k: [] for k in GAME_KEYS}


class WinsCallback(BaseCallback):
    """Tables (Lucky Numbers): the training win rate per rollout (``game/win``)."""

    def __init__(self) -> None:
        super().__init__()
        self.wins: list[float] = []
        self.last_score: float | None = None

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done and "win" in info:
                self.wins.append(info["win"])
        return True

    def _on_rollout_end(self) -> None:
        if self.wins:
            self.logger.record("game/win", float(np.mean(self.wins)))
        self.wins = []


class ProgressCallback(BaseCallback):
    """tqdm bar: steps, fps and the latest training / evaluation mean score. When stderr is
    not a terminal (a log file, CI), a plain line every 30 s instead of a redrawn bar."""

    def __init__(self, total: int, metrics: Any, evals: Any) -> None:
        super().__init__()
        self.total, self.metrics, self.evals = total, metrics, evals
        self.bar: Any = None
        self.last_line = 0.0

    def _on_training_start(self) -> None:
        self.bar = tqdm(
            total=self.total,
            initial=self.num_timesteps,
            unit="step",
            unit_scale=True,
            dynamic_ncols=True,
            desc="train",
            smoothing=0.05,
            disable=not sys.stderr.isatty(),
        )
        self.shown = self.num_timesteps
        self.t0, self.n0 = time.perf_counter(), self.num_timesteps
        self.last_line = self.t0

    def _on_step(self) -> bool:
        if self.num_timesteps - self.shown >= 1000:
            self.bar.update(self.num_timesteps - self.shown)
            self.shown = self.num_timesteps
        return True

    def _on_rollout_end(self) -> None:
        fps = (self.num_timesteps - self.n0) / max(time.perf_counter() - self.t0, 1e-9)
        post = {"fps": f"{fps:.0f}"}
        if self.metrics.last_score is not None:
            post["score"] = f"{self.metrics.last_score:.1f}"
        if self.evals.latest is not None:
            post["eval"] = f"{self.evals.latest:.1f}"
        self.bar.set_postfix(post, refresh=False)
        self.bar.update(self.num_timesteps - self.shown)
        self.shown = self.num_timesteps
        now = time.perf_counter()
        if self.bar.disable and now - self.last_line >= 30:
            self.last_line = now
            print(
                f"train: {self.num_timesteps}/{self.total} steps, " + ", ".join(f"{k} {v}" for k, v in post.items()),
                file=sys.stderr,
                flush=True,
            )

    def _on_training_end(self) -> None:
        self.bar.update(self.num_timesteps - self.shown)
        self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class ActorWarmupCallback(BaseCallback):
    """Train only the value head of the candidate policy for the first ``steps`` env steps."""

    def __init__(self, steps: int) -> None:
        super().__init__()
        self.steps = steps

    def _set(self, frozen: bool) -> None:
        if hasattr(self.model.policy, "freeze_actor"):
            self.model.policy.freeze_actor = frozen

    def _on_training_start(self) -> None:
        self._set(self.num_timesteps < self.steps)

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self._set(self.num_timesteps < self.steps)

    def _on_training_end(self) -> None:
        self._set(False)


class Evaluation:
    """Fixed-seed evaluation at update boundaries (``eval/*``, ``best_model.zip``, ``best.json``,
    ``evals.jsonl``): every ``every`` steps and at the end. ``measure(model)`` returns the
    scalars to log and record, its first one (``key``) choosing the best model; ties go to the
    second. A resumed run whose evaluation at its checkpoint was never written (killed during
    it) evaluates at once."""

    def __init__(
        self,
        run_dir: Path,
        every: int,
        start_steps: int,
        measure: Callable[[Any], dict[str, float]],
        keys: tuple[str, ...] = ("score_mean",),
        announce: bool = False,
    ) -> None:
        self.run_dir, self.every, self.measure, self.keys, self.announce = run_dir, every, measure, keys, announce
        self.evaluated_at = last_step(run_dir / "evals.jsonl", start_steps) if start_steps else -1
        self.last_eval = self.evaluated_at - self.evaluated_at % self.every if self.every and start_steps else 0
        self.best_key = self._best_key()
        self.best = self.best_key[0]
        self.latest: float | None = None
        self.start = time.perf_counter()

    def _best_key(self) -> tuple[float, ...]:
        if self.keys == ("score_mean",):
            return (best_score(self.run_dir),)
        state = self.run_dir / "best.json"
        if state.is_file():
            try:
                data = read_json(state)
                return tuple(float(data[k]) for k in self.keys)
            except (ValueError, KeyError, TypeError) as err:
                print(f"note: {err}; the next evaluation sets the best model again", file=sys.stderr)
        return tuple(-float("inf") for _ in self.keys)

    def __call__(self, model: Any, steps: int, final: bool) -> None:
        if final:
            due = steps != self.evaluated_at or not (self.run_dir / "best_model.zip").is_file()
        else:
            due = bool(self.every) and steps - self.last_eval >= self.every
        if due:
            if self.every:
                self.last_eval = steps - steps % self.every
            self.evaluate(model, steps)
            model.logger.dump(steps)

    def evaluate(self, model: Any, steps: int) -> float:
        start = time.perf_counter()
        scalars = self.measure(model)
        model.logger.record("eval/seconds", time.perf_counter() - start)
        for key, value in scalars.items():
            model.logger.record(f"eval/{key}", value)
        key = tuple(scalars[k] for k in self.keys)
        self.latest, self.evaluated_at = key[0], steps
        if key > self.best_key:
            self.best_key, self.best = key, key[0]
            save_model(model, self.run_dir / "best_model.zip")
            best = {"score": key[0]} if self.keys == ("score_mean",) else dict(zip(self.keys, key))
            write_json(self.run_dir / "best.json", {**best, "step": steps})
        model.logger.record(f"eval/best_{self.keys[0]}", self.best)
        entry = {"step": steps, **{k: v for k, v in scalars.items() if k in ENTRY_KEYS}}
        if self.announce:
            entry["seconds"] = time.perf_counter() - self.start
            print(
                f"step {steps}: eval "
                + ", ".join(f"{k} {scalars[k]:.3f}" for k in self.keys)
                + f" ({entry['seconds']:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
        append_jsonl(self.run_dir / "evals.jsonl", entry)
        return key[0]


ENTRY_KEYS = ("win_rate", "score_mean", "score_std", "diff_vs_greedy")
"""The evaluation scalars written to ``evals.jsonl``."""
