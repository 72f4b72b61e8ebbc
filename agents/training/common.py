"""What every trainer does around training: the run folder, the one gate rule that keeps the
best model (``paired_gate``) and the PPO trainers' periodic evaluation (``Evaluation``), the
learning curve and the closing tables, every game played by ``agents.evaluation.runner``.
No torch here: the RLlib trainer and the command line use it too."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np
import yaml

from numberdrop_env.engine.rules import DEFAULT_RULES
from numberdrop_env.envs.base import breakdown_dict

from ..evaluation import plots
from ..evaluation.runner import Progress, play_policy
from ..evaluation.solo import format_table, run, summarise
from ..evaluation.stats import ci95
from ..evaluation.tables import format_tables, run_tables, summarise_tables
from .checkpoints import (
    Every,
    append_jsonl,
    atomic_path,
    atomic_write,
    last_step,
    read_json,
    read_jsonl,
    resume_command,
    write_json,
)
from .config import TrainConfig


def open_run(cfg: TrainConfig, args: argparse.Namespace) -> tuple[Path, Path | None, bool]:
    """The run folder (its layout: ``docs/training.md``), made; what ``--resume`` continues
    from (``None``: a new run); whether to show progress bars."""
    run_dir = cfg.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    return run_dir, getattr(args, "resume", None), cfg.progress_bar and not getattr(args, "no_progress", False)


def write_config(cfg: TrainConfig, run_dir: Path) -> None:
    """The run's ``config.yaml``: every key, defaults included (the record of the experiment)."""
    atomic_write(run_dir / "config.yaml", yaml.safe_dump(cfg.model_dump(), sort_keys=False))


def greedy_baseline(cfg: TrainConfig, run_dir: Path) -> dict[str, Any] | None:
    """Greedy scores on the evaluation seeds, computed once and cached in the run directory."""
    if not cfg.eval.greedy_baseline:
        return None
    cache = run_dir / f"greedy_eval_seed{cfg.eval.seed}_games{cfg.eval.games}.json"
    if cache.is_file():
        try:
            return read_json(cache)
        except ValueError as err:
            print(f"note: {err}; computing it again", file=sys.stderr)
    start = time.perf_counter()
    results = run(["greedy"], cfg.eval.games, cfg.eval.seed, workers=1, progress=False)["greedy"]
    data = {
        "seed": cfg.eval.seed,
        "games": cfg.eval.games,
        "scores": [r.score for r in results],
        "mean": float(np.mean([r.score for r in results])),
        "seconds": time.perf_counter() - start,
    }
    write_json(cache, data)
    print(f"greedy baseline on the eval seeds: {data['mean']:.2f} ({data['seconds']:.1f} s)", file=sys.stderr)
    return data


def read_evals(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """The evaluations of ``evals.jsonl`` files, in step order (a later file continues an earlier run)."""
    entries = []
    for path in paths:
        if not Path(path).is_file():
            raise FileNotFoundError(f"evaluations file {str(path)!r} not found")
        for n, entry in enumerate(read_jsonl(path), 1):
            if not {"step", "score_mean"} <= entry.keys():
                raise ValueError(f"{path}: evaluation {n} needs 'step' and 'score_mean'")
            entries.append(entry)
    if not entries:
        raise ValueError("no evaluations to plot")
    return sorted(entries, key=lambda e: e["step"])


def write_learning_curve(run_dir: Path, title: str = "", x_label: str = "training steps") -> Path | None:
    """``learning_curve.png`` from ``evals.jsonl``; skipped with a note without matplotlib or scores."""
    evals = run_dir / "evals.jsonl"
    if not evals.is_file():
        return None
    try:
        with atomic_path(run_dir / "learning_curve.png", ".png") as tmp:
            plots.plot_learning_curve(read_evals([evals]), tmp, title, x_label)
        return run_dir / "learning_curve.png"
    except (ImportError, ValueError) as err:
        print(f"note: no learning_curve.png ({err})", file=sys.stderr)
        return None


SEARCHES = {"+look-ahead": ("lookahead", "samples", "refine"), "+expectimax": ("top", "rolls")}
"""The closing table's rows of the trained model with a search: the ``final_eval`` keys that set it
(the first turns it on)."""


def final_evaluation(
    cfg: TrainConfig, model: str, options: dict[str, Any], run_dir: Path, progress: bool
) -> dict[str, Any] | None:
    """The closing table (``final_eval.json``): solo, ``model`` among ``final_eval.agents``; at a
    table, in one seat among its training opponents; Lucky Numbers, a table per opponent."""
    f, e = cfg.final_eval, getattr(cfg, "env", None)  # the trainers in generations play solo games
    if f.games == 0:
        return None
    workers = f.workers or os.cpu_count() or 1
    out: dict[str, Any] = {"model": options["path"]}
    if cfg.game == "luckynumbers":
        for opponent in f.opponents:
            seats = [model] + [opponent] * (e.players - 1)
            results = run_tables(
                seats, e.players, f.games, f.seed, workers, {model: options}, progress, "luckynumbers", e.setup, e.bruno
            )
            out[f"vs_{opponent}"] = summarise_tables(results, [model, opponent], e.players)
            print(format_tables(out[f"vs_{opponent}"]))
    elif e is not None and e.players > 1:
        seats = [model] + [e.opponents[i % len(e.opponents)] for i in range(e.players - 1)]
        results = run_tables(seats, e.players, f.games, f.seed, workers, {model: options}, progress)
        out = {**summarise_tables(results, list(dict.fromkeys(seats)), e.players), **out}
        print(format_tables(out))
    else:
        agents = list(f.agents)
        if cfg.backend == "rllib":
            results = run(agents, f.games, f.seed, 0, {model: options}, progress, backend="ray")  # a local Ray's size
        else:
            results = run(agents, f.games, f.seed, workers=workers, options={model: options}, progress=progress)
            for suffix, keys in SEARCHES.items():  # the trained model with a search, when asked
                if getattr(f, keys[0], 0):
                    search = {**options, **{k: getattr(f, k) for k in keys}}
                    results[model + suffix] = run([model], f.games, f.seed, workers, {model: search}, progress)[model]
        out = {**summarise(results, f.games, f.seed), **out}
        print(format_table(out))
        if line := over_greedy(out):
            print(line)
    write_json(run_dir / "final_eval.json", out, indent=1)
    return out


def over_greedy(summary: dict[str, Any]) -> str:
    """Each agent's paired difference over the greedy on the table's games (empty without greedy)."""
    rows = summary["agents"]
    if "greedy" not in rows:
        return ""
    base = np.array(rows["greedy"]["scores"], float)
    parts = []
    for name, row in rows.items():
        if name != "greedy":
            diff = np.array(row["scores"], float) - base
            lo, hi = ci95(diff)
            parts.append(f"{name} {diff.mean():+.2f} [{lo:+.2f}, {hi:+.2f}]")
    return "paired over greedy (95 % interval): " + ", ".join(parts)


def stopped_early(config: Any, run_dir: Path, checkpoint: Path | None, steps: int) -> dict[str, Any]:
    """The result of a run that Ctrl-C stopped at an update boundary (``config``: its file)."""
    said = f"stopped at step {steps}; checkpoint {checkpoint}\nto continue: {resume_command(config, checkpoint)}"
    print(said, file=sys.stderr, flush=True)
    return {"run_dir": str(run_dir), "interrupted": True, "checkpoint": str(checkpoint), "steps": steps}


def close_out(
    cfg: Any,
    run_dir: Path,
    best: Path,
    said: str,
    numbers: dict[str, Any],
    progress: bool,
    ship: Callable | None,
    curve: str | None,
    x_label: str = "training steps",
    **options: Any,
) -> dict[str, Any]:
    """The end of every run: ``said`` (its numbers in words), the learning curve (titled ``curve``;
    ``None``: none), the closing table of ``best`` (its agent's ``options`` added) and
    ``ship(best, ship_to)``; returns ``numbers`` with the table."""
    print(f"{said}; run dir {run_dir}", file=sys.stderr)
    if curve is not None:
        write_learning_curve(run_dir, curve, x_label)
    summary = final_evaluation(cfg, cfg.model_agent, {"path": str(best), **options}, run_dir, progress)
    if getattr(cfg, "ship_to", None) and ship is not None:
        ship(best, Path(cfg.ship_to))
    return {"run_dir": str(run_dir), **numbers, "final_eval": summary}


def finish(
    cfg: Any,
    run_dir: Path,
    final: str,
    steps: int,
    trained: int,
    seconds: float,
    best_eval: float,
    progress: bool,
    ship: Callable | None = None,
) -> dict[str, Any]:
    """After a PPO run: the best model (``final`` when no evaluation kept one), the closing table."""
    best = run_dir / ("best_checkpoint" if final == "final_checkpoint" else "best_model.zip")
    if not best.exists():
        with atomic_path(best) as tmp:
            (shutil.copytree if best.suffix != ".zip" else shutil.copy2)(run_dir / final, tmp)
    fps = trained / seconds if seconds > 0 else float("nan")
    what, lucky = ("win rate", True) if cfg.game == "luckynumbers" else ("mean", False)
    said = f"trained {trained} steps in {seconds:.0f} s ({fps:.0f} steps/s); best eval {what} {best_eval:.2f}"
    numbers = {"best_model": str(best), "steps": steps, "seconds": seconds, "fps": fps, "best_eval": best_eval}
    curve = None if lucky else f"{cfg.experiment}: mean score on {cfg.eval.games} evaluation games"
    return close_out(cfg, run_dir, best, said, numbers, progress, ship, curve)


def paired_gate(new: Any, best: Any, keep: str = "better") -> dict[str, Any]:
    """The rule that keeps the best model, the new scores paired with the best's (``better``: a mean
    difference above 0; ``not_worse``: unless its 95 % interval lies below 0)."""
    diff = np.asarray(new, float) - np.asarray(best, float)
    interval = ci95(diff)
    kept = diff.mean() > 0 if keep == "better" else interval[1] > 0
    return {"paired_diff": float(diff.mean()), "paired_ci95": interval, "kept": bool(kept)}


def gate_scores(play: Callable[[list[int]], list[Result]], x: Any) -> np.ndarray:
    """A batched player alone on the gate's seeds (``x.gate_seed``, ``x.gate_games``), in seed order."""
    return np.array([r.score for r in play_batched(play, range(x.gate_seed, x.gate_seed + x.gate_games))])


def gate_entry(step: int, scores: np.ndarray, gate: dict[str, Any], **more: Any) -> dict[str, Any]:
    """A gate's ``evals.jsonl`` line: its scores' mean and interval, the paired difference."""
    return {"step": step, **more, "score_mean": float(scores.mean()), "score_ci95": ci95(scores), **gate}


class Result(NamedTuple):
    """A game of a batched player (``play_seeds``; Lucky Numbers: the model's share of the ``win``)."""

    seed: int
    score: float
    turns: float = 0.0
    lines: float = 0.0
    win: float = 0.0


def play_batched(play: Callable[[list[int]], list[Result]], seeds: Iterable[int]) -> list[Result]:
    """The games of ``seeds`` by a batched player (``play``: their games in lockstep), played by the runner."""
    return play_policy(SimpleNamespace(play_seeds=play), list(seeds))


ENTRY_KEYS = ("win_rate", "score_mean", "score_std", "diff_vs_greedy")
"""The evaluation scalars written to ``evals.jsonl``."""


class Evaluation:
    """The PPO trainers' evaluation on fixed seeds, every ``eval.every_steps`` and at the end:
    ``measure(model, steps)`` gives the scalars and ``Result``s, ``paired_gate`` decides
    ``save_best(model)`` (Lucky Numbers: by the wins, a tie by the scores)."""

    def __init__(
        self,
        cfg: Any,
        start_steps: int,
        measure: Callable[[Any, int], tuple[dict[str, float], list[Result]]],
        save_best: Callable[[Any], Any],
        log: Callable[[int, dict[str, float]], None],
        best_file: str = "best_model.zip",
    ) -> None:
        self.run_dir, self.measure, self.save_best, self.log = cfg.run_dir, measure, save_best, log
        self.lucky = cfg.game == "luckynumbers"
        self.best_file, self.key = best_file, "win_rate" if self.lucky else "score_mean"
        self.evaluated_at = last_step(self.run_dir / "evals.jsonl", start_steps) if start_steps else -1
        self.schedule = Every(cfg.eval.every_steps, max(self.evaluated_at, 0))
        self.best_state = self._read_best()
        self.best = self.best_state[self.key] if self.best_state else -float("inf")
        self.latest: float | None = None
        self.start = time.perf_counter()

    def _read_best(self) -> dict[str, Any] | None:
        """``best.json``; when it is damaged, Number Drop's best mean of ``evals.jsonl``."""
        path = self.run_dir / "best.json"
        if not path.is_file():
            return None
        try:
            best = read_json(path)
            return {**best, self.key: float(best["score" if not self.lucky else self.key])}
        except (ValueError, KeyError, TypeError) as err:
            print(f"note: {err}; the best is taken from evals.jsonl", file=sys.stderr)
        if self.lucky:
            return None
        means = [e["score_mean"] for e in read_jsonl(self.run_dir / "evals.jsonl")]
        means = [float(m) for m in means if isinstance(m, (int, float))]
        return {"score_mean": max(means)} if means else None

    def __call__(self, model: Any, steps: int, final: bool) -> None:
        due = steps != self.evaluated_at if final else self.schedule.due(steps)  # the end: unless just done
        if due or (final and not (self.run_dir / self.best_file).exists()):
            self.evaluate(model, steps)

    def gate(self, results: list[Result], steps: int) -> bool:
        """Whether the model evaluated at ``steps`` becomes the best; a resumed run that evaluates
        again the step its best was kept at (``best.json`` was written before a kill) keeps it again."""
        if self.best_state is None or self.best_state.get("step") == steps:
            return True
        n, best = len(results), self.best_state
        scores = [r.score for r in results]
        best_scores = best.get("scores") or [best.get("score_mean", best.get("score"))] * n
        if not self.lucky:
            return paired_gate(scores, best_scores)["kept"]
        wins = paired_gate([r.win for r in results], best.get("wins") or [best["win_rate"]] * n)
        return wins["kept"] or (abs(wins["paired_diff"]) < 1e-12 and paired_gate(scores, best_scores)["kept"])

    def evaluate(self, model: Any, steps: int) -> None:
        start = time.perf_counter()
        scalars, results = self.measure(model, steps)
        logged = {"eval/seconds": time.perf_counter() - start, **{f"eval/{k}": v for k, v in scalars.items()}}
        self.latest, self.evaluated_at = scalars[self.key], steps
        kept = self.gate(results, steps)
        if kept:
            self.save_best(model)
            self.best = scalars[self.key]
            lists = {"scores": [r.score for r in results], **({"wins": [r.win for r in results]} if self.lucky else {})}
            said = {k: scalars[k] for k in ("win_rate", "score_mean")} if self.lucky else {"score": self.best}
            self.best_state = {**said, self.key: self.best, "step": steps, **lists}
            write_json(self.run_dir / "best.json", {**said, "step": steps, **lists})
        self.log(steps, {**logged, f"eval/best_{self.key}": self.best})
        entry = {"step": steps, **{k: v for k, v in scalars.items() if k in ENTRY_KEYS}, "kept": kept}
        if self.lucky:
            entry["seconds"] = time.perf_counter() - self.start
            said = ", ".join(f"{k} {scalars[k]:.3f}" for k in ("win_rate", "score_mean"))
            print(f"step {steps}: eval {said} ({entry['seconds']:.0f} s)", file=sys.stderr, flush=True)
        append_jsonl(self.run_dir / "evals.jsonl", entry)


def score_scalars(results: list[Result], greedy: dict[str, Any] | None) -> dict[str, float]:
    """Number Drop's evaluation scalars, beside the greedy's on the same seeds."""
    scores = np.array([r.score for r in results], float)
    out = {
        "score_mean": float(scores.mean()),
        "score_std": float(scores.std()),
        "score_median": float(np.median(scores)),
        "lines": float(np.mean([r.lines for r in results])),
        "turns": float(np.mean([r.turns for r in results])),
    }
    if greedy is not None:
        base = np.array(greedy["scores"], float)
        out.update(greedy_score_mean=float(base.mean()), diff_vs_greedy=float((scores - base).mean()))
    return out


def game_metrics(info: dict[str, Any], last: Any = None) -> dict[str, float]:
    """A finished training game's ``game/*`` numbers; its boxes from the info (NumberDropTurn-v0)
    or the track of its ``last`` observation (NumberDrop-v0), else left out."""
    b, r = breakdown_dict(info["score_breakdown"]), DEFAULT_RULES
    boxes = info.get("boxes")
    if boxes is None and isinstance(last, dict) and "track" in last:  # identical, consecutive, bonus
        boxes = np.sum(last["track"][: 2 * len(r.box_sizes) + 1])
    out = {
        "score": b["total"],
        "lines": b["lines"] / r.line_points,
        "penalty_rows": -b["penalties"] / r.penalty_points,
        "column_bonuses": b["column_bonuses"],
        "box_points": b["identical"] + b["consecutive"] + b["bonus"],
        "turns": info.get("turn", 0),
    }
    return out if boxes is None else {**out, "boxes": float(boxes)}


class StepProgress(Progress):
    """The PPO trainers' bar: steps, fps and the latest training and evaluation means."""

    def __init__(self, total: int, initial: int, enabled: bool = True) -> None:
        super().__init__(total, enabled, "train", "step", initial)
        self.n0, self.t0 = initial, time.perf_counter()

    def fps(self, steps: int) -> float:
        return (steps - self.n0) / max(time.perf_counter() - self.t0, 1e-9)

    def to(self, steps: int, score: float | None = None, latest: float | None = None) -> None:
        """After an update: the bar at ``steps``, with the training games' mean and the latest evaluation's."""
        post = {"fps": f"{self.fps(steps):.0f}"}
        post.update({k: f"{v:.1f}" for k, v in (("score", score), ("eval", latest)) if v is not None})
        self.bar.set_postfix(post, refresh=False)
        self.postfix = "".join(f", {k} {v}" for k, v in post.items())
        self.update(steps - self.done)
