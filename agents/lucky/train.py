"""Training a MaskablePPO agent on ``LuckyNumbers-v0``: what ``python train.py`` runs for a config
with ``game: luckynumbers`` (``configs/lucky_ppo.yaml``).

The run directory (``runs/<experiment>/``) receives the resolved ``config.yaml``, TensorBoard
events, ``checkpoints/``, ``final_model.zip``, ``best_model.zip`` (best periodic win rate on
fixed seeds, against the training opponents) and ``final_eval.json``: the model in one seat
against each opponent lineup of ``final_eval.opponents``, every seed under every rotation.

Checkpoints, ``--resume`` and Ctrl-C work as for Number Drop (``agents.resume``): taken after
an update, they continue exactly where the run stopped.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml

from luckynumbers_env import Rules

from ..checkpoints import (Interrupted, StopRequest, append_jsonl, atomic_path, atomic_write, keep_steps_up_to,
                           last_step, read_json, report_stop, write_json)
from ..config import CheckpointConfig, PPOConfig, _build
from .registry import AGENTS


@dataclass
class LuckyEnvConfig:
    players: int = 4
    opponents: list[str] = field(default_factory=lambda: ["greedy"])
    """Registry agents of the other seats, cycled round the table."""
    setup: Literal["standard", "michael"] = "standard"
    bruno: bool = False
    shaping: float = 0.0
    """Reward per cell the learner fills (potential-based; 0 = the tournament score alone)."""


@dataclass
class LuckyNetworkConfig:
    pi: list[int] = field(default_factory=lambda: [256, 256])
    vf: list[int] = field(default_factory=lambda: [256, 256])
    activation: Literal["relu", "tanh"] = "relu"
    torch_threads: int = 1


@dataclass
class LuckyEvalConfig:
    every_steps: int = 50_000
    """Win rate of the current policy on fixed seeds every this many steps (0 disables); the
    best one (mean score breaking ties) is kept as ``best_model.zip``."""
    games: int = 100
    seed: int = 10_000


@dataclass
class LuckyFinalEvalConfig:
    games: int = 250
    """Seeds of each closing table (each played under every rotation of seats; 0 skips them)."""
    seed: int = 1_000_000
    opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])
    """One closing table per name: the model in one seat, that agent in the others."""
    workers: int = 0


@dataclass
class LuckyPretrainConfig:
    games: int = 0
    """Tables of demonstrations to clone before PPO (0: PPO starts from chance)."""
    agent: str = "greedy"
    seed: int = 2_000_000
    epochs: int = 10
    batch_size: int = 256
    learning_rate: float = 1e-3


@dataclass
class LuckyTrainConfig:
    game: Literal["luckynumbers"] = "luckynumbers"
    experiment: str = "lucky_ppo"
    seed: int = 0
    total_timesteps: int = 300_000
    n_envs: int = 8
    vec_env: Literal["dummy", "subproc"] = "dummy"
    output_dir: str | None = None
    ship_to: str | None = None
    progress_bar: bool = True
    env: LuckyEnvConfig = field(default_factory=LuckyEnvConfig)
    pretrain: LuckyPretrainConfig = field(default_factory=LuckyPretrainConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    network: LuckyNetworkConfig = field(default_factory=LuckyNetworkConfig)
    eval: LuckyEvalConfig = field(default_factory=LuckyEvalConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)
    final_eval: LuckyFinalEvalConfig = field(default_factory=LuckyFinalEvalConfig)

    @property
    def run_dir(self) -> Path:
        return Path(self.output_dir) if self.output_dir else Path("runs") / self.experiment

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def is_lucky_config(path: str | Path) -> bool:
    """Whether a YAML config trains Lucky Numbers (top-level ``game: luckynumbers``)."""
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and data.get("game") == "luckynumbers"


def load_lucky_config(path: str | Path) -> LuckyTrainConfig:
    path = Path(path)
    data = yaml.safe_load(path.read_text())
    try:
        cfg = _build(LuckyTrainConfig, data)
        _check(cfg)
    except (TypeError, ValueError) as err:
        raise type(err)(f"{path}: {err}") from None
    return cfg


def _check(cfg: LuckyTrainConfig) -> None:
    def need(ok: bool, key: str, what: str) -> None:
        if not ok:
            raise ValueError(f"config key {key!r} {what}")

    need(bool(cfg.experiment) and "/" not in cfg.experiment, "experiment", "must be a non-empty name without '/'")
    need(cfg.seed >= 0, "seed", "must be >= 0")
    need(cfg.total_timesteps > 0, "total_timesteps", "must be > 0")
    need(cfg.n_envs >= 1, "n_envs", "must be >= 1")
    need(2 <= cfg.env.players <= 4, "env.players", "must be 2..4")
    need(bool(cfg.env.opponents) and all(a in AGENTS and a != "ppo" for a in cfg.env.opponents), "env.opponents",
         f"must list scripted agents among {sorted(set(AGENTS) - {'ppo'})}")
    p = cfg.ppo
    need(p.learning_rate > 0, "ppo.learning_rate", "must be > 0")
    need(1 <= p.batch_size <= p.n_steps * cfg.n_envs, "ppo.batch_size", "must be between 1 and n_steps * n_envs")
    need(p.n_epochs >= 1 and 0 < p.gamma <= 1 and 0 <= p.gae_lambda <= 1, "ppo", "has an out-of-range value")
    need(p.actor_warmup_steps == 0, "ppo.actor_warmup_steps", "is a Number Drop turn-level setting; leave it 0")
    need(all(h >= 1 for h in cfg.network.pi + cfg.network.vf), "network", "must list positive layer widths")
    need(cfg.env.shaping >= 0, "env.shaping", "must be >= 0")
    need(cfg.network.torch_threads >= 1, "network.torch_threads", "must be >= 1")
    need(cfg.eval.every_steps >= 0 and cfg.eval.games >= 1 and cfg.eval.seed >= 0, "eval", "has an out-of-range value")
    need(cfg.checkpoint.every_steps >= 0, "checkpoint.every_steps", "must be >= 0")
    b = cfg.pretrain
    need(b.games >= 0 and b.seed >= 0 and b.epochs >= 1 and b.batch_size >= 1 and b.learning_rate > 0, "pretrain",
         "has an out-of-range value")
    need(b.agent in AGENTS and b.agent != "ppo", "pretrain.agent", "must be a scripted agent")
    f = cfg.final_eval
    need(f.games >= 0 and f.seed >= 0 and f.workers >= 0, "final_eval", "has an out-of-range value")
    need(all(a in AGENTS and a != "ppo" for a in f.opponents), "final_eval.opponents",
         f"must list scripted agents among {sorted(set(AGENTS) - {'ppo'})}")


def make_env(cfg: LuckyEnvConfig):
    from stable_baselines3.common.monitor import Monitor

    from .gym_env import LuckyNumbersEnv

    return Monitor(LuckyNumbersEnv(cfg.players, list(cfg.opponents), cfg.setup, cfg.bruno, shaping=cfg.shaping),
                   info_keywords=("win",))


def win_rate(model: Any, cfg: LuckyTrainConfig) -> tuple[float, float]:
    """Win share and mean tournament score of the model's seat on the fixed evaluation seeds."""
    from .gym_env import LuckyNumbersEnv

    env = LuckyNumbersEnv(cfg.env.players, list(cfg.env.opponents), cfg.env.setup, cfg.env.bruno)
    wins, scores = [], []
    for i in range(cfg.eval.games):
        obs, info = env.reset(seed=cfg.eval.seed + i)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, _, done, _, info = env.step(int(action))
        wins.append(info["win"])
        scores.append(info["scores"][env.seat])
    return float(np.mean(wins)), float(np.mean(scores))


def _wins_callback():
    from stable_baselines3.common.callbacks import BaseCallback

    class WinsCallback(BaseCallback):
        """The training win rate per rollout (``game/win``)."""

        def __init__(self) -> None:
            super().__init__()
            self.wins: list[float] = []

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if done and "win" in info:
                    self.wins.append(info["win"])
            return True

        def _on_rollout_end(self) -> None:
            if self.wins:
                self.logger.record("game/win", float(np.mean(self.wins)))
            self.wins = []

    return WinsCallback()


class LuckyEvaluation:
    """Win rate on fixed seeds at update boundaries (``eval/*``, ``best_model.zip``,
    ``evals.jsonl``, a line on stderr): every ``eval.every_steps`` steps and at the end."""

    def __init__(self, cfg: LuckyTrainConfig, run_dir: Path, start_steps: int) -> None:
        self.cfg, self.run_dir, self.every = cfg, run_dir, cfg.eval.every_steps
        self.evaluated_at = last_step(run_dir / "evals.jsonl", start_steps) if start_steps else -1
        self.last_eval = self.evaluated_at - self.evaluated_at % self.every if self.every and start_steps else 0
        self.best_key = best_key(run_dir)
        self.best = self.best_key[0]
        self.start = time.perf_counter()

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

    def evaluate(self, model: Any, steps: int) -> None:
        from ..resume import save_model

        self.evaluated_at = steps
        rate, score = win_rate(model, self.cfg)
        model.logger.record("eval/win_rate", rate)
        model.logger.record("eval/score_mean", score)
        if (rate, score) > self.best_key:  # the win rate first, the mean score breaks ties
            self.best, self.best_key = rate, (rate, score)
            save_model(model, self.run_dir / "best_model.zip")
            write_json(self.run_dir / "best.json", {"win_rate": rate, "score_mean": score, "step": steps})
        seconds = time.perf_counter() - self.start
        append_jsonl(self.run_dir / "evals.jsonl",
                     {"step": steps, "win_rate": rate, "score_mean": score, "seconds": seconds})
        print(f"step {steps}: eval win rate {rate:.3f}, mean score {score:.2f} ({seconds:.0f} s)",
              file=sys.stderr, flush=True)


def best_key(run_dir: Path) -> tuple[float, float]:
    """(win rate, mean score) of ``best_model.zip`` (``best.json``; a damaged file is named
    and the evaluations start over)."""
    state = run_dir / "best.json"
    if state.is_file():
        try:
            data = read_json(state)
            return float(data["win_rate"]), float(data["score_mean"])
        except (ValueError, KeyError, TypeError) as err:
            print(f"note: {err}; the next evaluation sets the best model again", file=sys.stderr)
    return -1.0, -1e9


def final_tables(cfg: LuckyTrainConfig, model_path: Path, run_dir: Path, progress: bool) -> dict[str, Any]:
    from .evaluate import format_summary, run_tables, summarise

    f, players = cfg.final_eval, cfg.env.players
    out: dict[str, Any] = {"model": str(model_path)}
    for opponent in f.opponents:
        seats = ["ppo"] + [opponent] * (players - 1)
        results = run_tables(seats, players, f.games, f.seed, workers=f.workers or os.cpu_count() or 1,
                             options={"ppo": {"path": str(model_path)}}, progress=progress)
        summary = summarise(results, ["ppo", opponent], players)
        print(format_summary(summary))
        out[f"vs_{opponent}"] = summary
    write_json(run_dir / "final_eval.json", out, indent=1)
    return out


def ppo_hyperparameters(cfg: LuckyTrainConfig) -> dict[str, Any]:
    from stable_baselines3.common.utils import LinearSchedule

    p = cfg.ppo
    lr: Any = LinearSchedule(p.learning_rate, 0.0, 1.0) if p.lr_schedule == "linear" else p.learning_rate
    return dict(learning_rate=lr, n_steps=p.n_steps, batch_size=p.batch_size, n_epochs=p.n_epochs,
                gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range, ent_coef=p.ent_coef,
                vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, target_kl=p.target_kl,
                normalize_advantage=p.normalize_advantage)


def build_vec_env(cfg: LuckyTrainConfig, seed: int) -> Any:
    """The training tables: one process each (``subproc``, resumable workers deaf to Ctrl-C)
    or one after the other (``dummy``)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from ..resume import worker_env

    fns = [partial(make_env, cfg.env) for _ in range(cfg.n_envs)]
    venv: Any = SubprocVecEnv([partial(worker_env, f) for f in fns]) if cfg.vec_env == "subproc" else DummyVecEnv(fns)
    venv.seed(seed)
    return venv


def new_model(cfg: LuckyTrainConfig, run_dir: Path, venv: Any) -> Any:
    """A MaskablePPO model of the config's network, cloned from a scripted agent first when
    ``pretrain.games`` asks for it."""
    import torch
    from sb3_contrib import MaskablePPO

    n = cfg.network
    act = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[n.activation]
    return MaskablePPO("MlpPolicy", venv, seed=cfg.seed, verbose=0, device="cpu",
                       policy_kwargs=dict(net_arch=dict(pi=list(n.pi), vf=list(n.vf)), activation_fn=act),
                       **ppo_hyperparameters(cfg))


def pretrain(cfg: LuckyTrainConfig, model: Any, run_dir: Path) -> None:
    from .imitation import behaviour_cloning

    b, e = cfg.pretrain, cfg.env
    rules = Rules(players=e.players, setup=e.setup, bruno=e.bruno)
    cloned = behaviour_cloning(model, b.agent, rules, b.games, b.seed, e.shaping, b.epochs, b.batch_size,
                               b.learning_rate)
    write_json(run_dir / "pretrain.json", cloned)


def start_model(cfg: LuckyTrainConfig, resume: Path | None, run_dir: Path) -> Any:
    """A new model on new tables, or the checkpoint ``resume`` continued (``agents.resume``)."""
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed

    from ..resume import check_checkpoint, envs_key, start_or_resume

    start_steps = check_checkpoint(resume) if resume is not None else 0
    seed = cfg.seed + start_steps
    set_random_seed(seed)
    venv = build_vec_env(cfg, seed)
    try:
        resumed = start_or_resume(resume, venv, partial(new_model, cfg, run_dir), ppo_hyperparameters(cfg),
                                  envs_key(cfg), seed)
        venv = resumed.venv
        resumed.model.set_logger(configure(str(run_dir), ["tensorboard"]))
        if resume is None and cfg.pretrain.games:
            pretrain(cfg, resumed.model, run_dir)
        if resume is not None:  # the evaluations after the checkpoint are written again
            keep_steps_up_to(run_dir / "evals.jsonl", start_steps)
    except BaseException:
        venv.close()
        raise
    return resumed


def train(cfg: LuckyTrainConfig, args: Any) -> dict[str, Any]:
    """Train, keep the best model, play the closing tables; ``args`` as parsed by train.py.
    Stopped by Ctrl-C, returns ``interrupted: True`` and the checkpoint to resume from."""
    import torch

    from ..resume import UpdateBoundaries, envs_key, save_checkpoint, set_rng_state

    resume: Path | None = getattr(args, "resume", None)
    progress = cfg.progress_bar and not getattr(args, "no_progress", False)
    torch.set_num_threads(cfg.network.torch_threads)
    run_dir = cfg.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(run_dir / "config.yaml", yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    resumed = start_model(cfg, resume, run_dir)
    model, start_steps = resumed.model, resumed.model.num_timesteps
    try:
        evaluation = LuckyEvaluation(cfg, run_dir, start_steps if resume else 0)
        stop = StopRequest()
        boundaries = UpdateBoundaries(run_dir / "checkpoints", "ppo", cfg.checkpoint.every_steps, envs_key(cfg),
                                      stop, [evaluation], resumed_from=resume)
        if resumed.rng is not None:
            set_rng_state(resumed.rng)  # last: after anything else that might draw random numbers
        start = time.perf_counter()
        with stop:
            try:
                model.learn(total_timesteps=max(0, cfg.total_timesteps - start_steps),
                            callback=[_wins_callback(), boundaries], reset_num_timesteps=resume is None,
                            progress_bar=False)
            except Interrupted as stopped:
                report_stop(args.config, stopped.checkpoint, stopped.steps)
                return {"run_dir": str(run_dir), "interrupted": True, "checkpoint": str(stopped.checkpoint),
                        "steps": stopped.steps}
        seconds = time.perf_counter() - start
        save_checkpoint(model, run_dir / "final_model.zip", envs_key(cfg))
    finally:
        resumed.venv.close()
    if stop.requested:  # Ctrl-C after the last update: the closing tables are left to a resume
        report_stop(args.config, boundaries.latest, model.num_timesteps)
        return {"run_dir": str(run_dir), "interrupted": True, "checkpoint": str(boundaries.latest),
                "steps": model.num_timesteps}
    return finish(cfg, run_dir, model.num_timesteps, model.num_timesteps - start_steps, seconds, evaluation.best,
                  progress)


def finish(cfg: LuckyTrainConfig, run_dir: Path, steps: int, trained: int, seconds: float, best_rate: float,
           progress: bool) -> dict[str, Any]:
    """After training: the best model, the closing tables, shipping."""
    from ..ppo import load_model
    from ..resume import save_model

    best = run_dir / "best_model.zip"
    if not best.is_file():
        with atomic_path(best) as tmp:
            shutil.copy2(run_dir / "final_model.zip", tmp)
    fps = trained / seconds if seconds > 0 else float("nan")
    print(f"trained {trained} steps in {seconds:.0f} s ({fps:.0f} steps/s); best eval win rate {best_rate:.3f}; "
          f"run dir {run_dir}", file=sys.stderr)
    summary = final_tables(cfg, best, run_dir, progress) if cfg.final_eval.games else {}
    if cfg.ship_to:
        shipped = load_model(best)
        shipped.policy.optimizer = type(shipped.policy.optimizer)(shipped.policy.parameters())
        save_model(shipped, cfg.ship_to)
    return {"run_dir": str(run_dir), "best_model": str(best), "steps": steps, "seconds": seconds,
            "best_eval": best_rate, "final_eval": summary}
