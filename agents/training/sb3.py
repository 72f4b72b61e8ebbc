"""The SB3 trainer: MaskablePPO for both games (``backend: sb3``), one loop; the games differ in
the environment, the network, the evaluation (Lucky Numbers: the win share) and the closing
tables. Checkpoints resume exactly (``agents.training.resume``)."""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.utils import LinearSchedule, set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from luckynumbers_env.envs.seat import LuckyNumbersEnv
from numberdrop_env.engine.rules import DEFAULT_RULES
from numberdrop_env.envs.decision import NumberDropEnv
from numberdrop_env.envs.table import NumberDropTableEnv
from numberdrop_env.envs.turn import NumberDropTurnEnv

from ..base import load_model
from ..networks.candidate import CandidateScorerPolicy
from ..networks.grid import ACTIVATIONS, GridVectorExtractor
from ..numberdrop.network import play_games
from . import common, imitation
from .checkpoints import Boundaries, Interrupted, keep_up_to
from .config import Env
from .resume import (
    check_checkpoint,
    envs_key,
    resume_model,
    save_checkpoint,
    save_model,
    set_rng_state,
    worker_env,
)
from .sb3_config import LuckyEnv, SB3Config
from .vec_env import NativeTurnVecEnv


def make_env(env_cfg: Env | LuckyEnv, game: str = "numberdrop") -> Any:
    """One monitored training environment (module-level: subprocesses build it)."""
    e = env_cfg
    if game == "luckynumbers":
        env, keys = LuckyNumbersEnv(e.players, list(e.opponents), e.setup, e.bruno, shaping=e.shaping), ("win",)
    elif e.interface == "turn" and e.players > 1:
        table = {"num_players": e.players, "opponents": list(e.opponents), "candidates": e.candidates, "width": e.width}
        env, keys = NumberDropTableEnv(**table), ("win",)
    elif e.interface == "turn":
        env, keys = NumberDropTurnEnv(candidates=e.candidates, width=e.width, afterstates=e.afterstates), ()
    else:
        env, keys = NumberDropEnv(auto_forced=e.auto_forced), ()
    return Monitor(env, info_keywords=keys)


def build_vec_env(cfg: SB3Config, seed: int) -> Any:
    """The training envs as ``vec_env`` says; env ``i`` draws its games from ``seed + i``."""
    if cfg.vec_env == "native":
        e = cfg.env
        venv: Any = NativeTurnVecEnv(cfg.n_envs, candidates=e.candidates, width=e.width, afterstates=e.afterstates)
    else:
        fns = [partial(make_env, cfg.env, cfg.game) for _ in range(cfg.n_envs)]
        venv = SubprocVecEnv([partial(worker_env, fn) for fn in fns]) if cfg.vec_env == "subproc" else DummyVecEnv(fns)
    venv.seed(seed)
    return venv


def ppo_hyperparameters(cfg: SB3Config) -> dict[str, Any]:
    """The config's PPO settings as MaskablePPO arguments (a resumed run takes them too)."""
    p = cfg.ppo
    lr: Any = LinearSchedule(p.learning_rate, 0.0, 1.0) if p.lr_schedule == "linear" else p.learning_rate
    return {**p.model_dump(exclude={"lr_schedule", "actor_warmup_steps"}), "learning_rate": lr}


def build_model(cfg: SB3Config, venv: Any) -> Any:
    """A new MaskablePPO: the candidate scorer (turn), a CNN (decision) or an MLP (Lucky Numbers)."""
    n, turn = cfg.network, cfg.game == "numberdrop" and cfg.env.interface == "turn"
    mlp = dict(net_arch=dict(pi=list(n.pi), vf=list(n.vf)), activation_fn=ACTIVATIONS[n.activation])
    policy: Any
    if cfg.game == "luckynumbers":
        policy, kwargs = "MlpPolicy", mlp
    elif turn:
        keys = {"candidate_hidden", "state_hidden", "scorer_hidden", "value_hidden", "planner_scale", "activation"}
        policy, kwargs = CandidateScorerPolicy, n.model_dump(include=keys | {"grid_channels"})
    else:
        extractor = n.model_dump(include={"cnn_channels", "cnn_hidden", "vector_hidden", "activation"})
        kwargs = dict(features_extractor_class=GridVectorExtractor, features_extractor_kwargs=extractor, **mlp)
        policy = "MultiInputPolicy"
    model = MaskablePPO(
        policy, venv, policy_kwargs=kwargs, seed=cfg.seed, device="cpu", verbose=0, **ppo_hyperparameters(cfg)
    )
    if turn:
        model.turn_width = cfg.env.width  # saved with the model: the agent enumerates turns the same way
    return model


def start_model(cfg: SB3Config, resume: Path | None, run_dir: Path, progress: bool) -> tuple[Any, Any, Any]:
    """The model, its environments and the random states to set just before training (``None``:
    none): a new model (from ``init_from``'s weights, cloned first when ``pretrain.games`` asks),
    or the checkpoint ``resume`` continued."""
    start_steps = check_checkpoint(resume) if resume is not None else 0
    seed = cfg.seed + start_steps
    set_random_seed(seed)
    venv = build_vec_env(cfg, seed)
    try:
        if resume is None:
            model, rng = build_model(cfg, venv), None
            if init_from := getattr(cfg, "init_from", None):  # (Number Drop)
                model.set_parameters(init_from, exact_match=True, device="cpu")
                print(f"starting from the weights of {init_from}", file=sys.stderr)
        else:
            model, venv, rng = resume_model(resume, venv, ppo_hyperparameters(cfg), envs_key(cfg), seed)
            keep_up_to(run_dir / "evals.jsonl", start_steps)  # the evaluations after it are written again
        model.set_logger(configure(str(run_dir), ["tensorboard"]))
        if resume is None and cfg.pretrain.games:
            imitation.behaviour_cloning(cfg, model, run_dir, progress)
    except BaseException:
        venv.close()
        raise
    return model, venv, rng


def model_games(model: Any, seeds: list[int]) -> list[common.Result]:
    """The games of a Number Drop network, in lockstep."""
    lines = DEFAULT_RULES.line_points
    games = play_games(model, seeds, deterministic=True)
    return [common.Result(g["seed"], g["score"], g["turns"], g["breakdown"]["lines"] / lines) for g in games]


def lucky_games(model: Any, e: LuckyEnv, seeds: list[int]) -> list[common.Result]:
    """The games of a Lucky Numbers network in its seat of the training tables."""
    env, results = LuckyNumbersEnv(e.players, list(e.opponents), e.setup, e.bruno), []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, _, done, _, info = env.step(int(action))
        results.append(common.Result(seed, info["scores"][env.seat], win=info["win"]))
    return results


def evaluation(cfg: SB3Config, run_dir: Path, start_steps: int, model: Any) -> common.Evaluation:
    """The periodic evaluation, played by the runner: Number Drop's mean score (beside the
    greedy's), or Lucky Numbers' win rate."""
    greedy = common.greedy_baseline(cfg, run_dir) if cfg.game == "numberdrop" else None
    seeds, lucky = list(range(cfg.eval.seed, cfg.eval.seed + cfg.eval.games)), cfg.game == "luckynumbers"

    def measure(model: Any, steps: int) -> tuple[dict[str, float], list]:
        if lucky:
            results = common.play_batched(partial(lucky_games, model, cfg.env), seeds)
            means = {k: float(np.mean([getattr(r, k) for r in results])) for k in ("win", "score")}
            return {"win_rate": means["win"], "score_mean": means["score"]}, results
        results = common.play_batched(partial(model_games, model), seeds)
        return common.score_scalars(results, greedy), results

    def log(steps: int, scalars: dict[str, float]) -> None:
        for key, value in scalars.items():
            model.logger.record(key, value)
        model.logger.dump(steps)

    def save_best(model: Any) -> None:
        save_model(model, run_dir / "best_model.zip")

    return common.Evaluation(cfg, start_steps, measure, save_best, log)


GAME_KEYS = ("score", "lines", "boxes", "box_points", "column_bonuses", "penalty_rows", "turns", "decisions", "win")


class TrainingCallback(BaseCallback):
    """Per rollout: the training games' means (``game/*``; tables: ``game/win``), the value head
    trained alone for the first ``actor_warmup_steps``, and the progress bar (moved every 1,000
    steps); ``Boundaries`` at training's start, each later rollout's start and training's end."""

    def __init__(self, cfg: SB3Config, run_dir: Path, evals: Any, start: int, resume: Any, progress: bool) -> None:
        super().__init__()
        self.warmup, self.evals = cfg.ppo.actor_warmup_steps, evals
        self.episodes: dict[str, list[float]] = {k: [] for k in GAME_KEYS}
        self.last_score: float | None = None
        self.bar = common.StepProgress(cfg.total_timesteps, start, progress)
        self.at, key = -1, envs_key(cfg)

        def save(n: int) -> Path:
            return save_checkpoint(self.model, run_dir / "checkpoints" / f"ppo_{n}_steps.zip", key)

        every = cfg.checkpoint.every_steps
        self.boundaries = Boundaries(save, every, lambda n, final: evals(self.model, n, final), start, resume)

    def _freeze(self, frozen: bool) -> None:
        if hasattr(self.model.policy, "freeze_actor"):
            self.model.policy.freeze_actor = frozen

    def _on_training_start(self) -> None:
        self._freeze(self.num_timesteps < self.warmup)
        self._on_rollout_start()

    def _on_rollout_start(self) -> None:
        if self.num_timesteps != self.at:
            self.at = self.num_timesteps
            self.boundaries(self.num_timesteps)

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done and "win" in info:
                self.episodes["win"].append(info["win"])
            if not done or "score_breakdown" not in info:
                continue
            metrics = common.game_metrics(info, info.get("terminal_observation"))
            if "episode" in info:
                metrics["decisions"] = info["episode"]["l"]
            for key, value in metrics.items():
                self.episodes[key].append(value)
        if self.num_timesteps - self.bar.done >= 1000:
            self.bar.update(self.num_timesteps - self.bar.done)
        return True

    def _on_rollout_end(self) -> None:
        for key, values in self.episodes.items():
            if values:
                self.logger.record(f"game/{key}", float(np.mean(values)))
        if self.episodes["score"]:
            self.logger.record("game/episodes", len(self.episodes["score"]))
            self.last_score = float(np.mean(self.episodes["score"]))
        self.episodes = {k: [] for k in GAME_KEYS}
        self._freeze(self.num_timesteps < self.warmup)
        self.bar.to(self.num_timesteps, self.last_score, self.evals.latest)

    def _on_training_end(self) -> None:
        self._freeze(False)
        self.bar.close()
        self.boundaries(self.num_timesteps, final=True)


def train(cfg: SB3Config, args: argparse.Namespace) -> dict[str, Any]:
    """The run's numbers, or ``interrupted: True`` and the checkpoint when Ctrl-C stopped it."""
    torch.set_num_threads(cfg.network.torch_threads)
    run_dir, resume, progress = common.open_run(cfg, args)
    common.write_config(cfg, run_dir)
    model, venv, rng = start_model(cfg, resume, run_dir, progress)
    start_steps = model.num_timesteps
    try:
        evals = evaluation(cfg, run_dir, start_steps if resume else 0, model)
        callback = TrainingCallback(cfg, run_dir, evals, start_steps, resume, progress)
        remaining = max(0, cfg.total_timesteps - model.num_timesteps)
        if remaining == 0:
            print(f"nothing to train: the model is at step {start_steps} >= {cfg.total_timesteps}", file=sys.stderr)
        if rng is not None:
            set_rng_state(rng)  # last: after anything else that might draw random numbers
        start = time.perf_counter()
        with callback.boundaries:
            try:  # with 0 steps left this only evaluates and checkpoints what the last run left undone
                model.learn(remaining, callback, log_interval=1, reset_num_timesteps=resume is None)
            except Interrupted as stopped:
                model.logger.close()
                return common.stopped_early(args.config, run_dir, stopped.checkpoint, stopped.steps)
            finally:
                callback.bar.close()
        seconds = time.perf_counter() - start
        save_checkpoint(model, run_dir / "final_model.zip", envs_key(cfg))
        model.logger.close()
    finally:
        venv.close()
    if callback.boundaries.requested:  # Ctrl-C after the last update: the closing evaluation is left to a resume
        return common.stopped_early(args.config, run_dir, callback.boundaries.latest, model.num_timesteps)
    steps = model.num_timesteps
    return common.finish(
        cfg, run_dir, "final_model.zip", steps, steps - start_steps, seconds, evals.best, progress, ship
    )


def ship(model_path: Path, target: Path) -> None:
    """Copy a model for inference without its optimizer state (a third of the file)."""
    model = load_model(model_path)
    model.policy.optimizer = type(model.policy.optimizer)(model.policy.parameters())
    save_model(model, target)
    print(f"shipped {model_path} -> {target} ({target.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
