"""Train a MaskablePPO agent on ``NumberDropTurn-v0`` or ``NumberDrop-v0`` from one YAML config.

    python train.py --config configs/ppo_turn.yaml
    python train.py --config configs/ppo_turn.yaml --resume runs/ppo_turn/checkpoints/ppo_40448_steps.zip
    python train.py --config configs/ppo_turn.yaml --resume runs/ppo_turn      # its newest good checkpoint
    python train.py --config configs/ppo_solo.yaml
    python train.py --config configs/ppo_smoke.yaml --total-steps 2000 --output-dir /tmp/smoke

The run directory (``runs/<experiment>/`` unless ``output_dir`` is set) receives the
TensorBoard events (SB3 scalars, ``game/*`` per-episode metrics, ``eval/*``), the resolved
``config.yaml``, ``checkpoints/``, ``best_model.zip`` (best periodic evaluation on fixed
seeds), ``final_model.zip``, ``evals.jsonl``, ``learning_curve.png`` and ``final_eval.json`` (the closing
``agents.evaluate`` table: trained agent vs random and greedy on the same seeds).

Checkpoints are taken after a PPO update and hold the environments and random states too,
so ``--resume`` with the same config continues exactly where the run stopped
(``agents.resume``). Ctrl-C stops at the next update with a checkpoint and prints the
command that resumes; every file is written atomically (``agents.checkpoints``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
import zipfile
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from agents.checkpoints import (Interrupted, StopRequest, append_jsonl, atomic_path, atomic_write, best_score,
                                keep_steps_up_to, last_step, read_json, report_stop, resume_command, write_json)
from agents.config import EnvConfig, TrainConfig, load_config

GAME_KEYS = ("score", "lines", "boxes", "box_points", "column_bonuses", "penalty_rows", "turns", "decisions")


# ---------------------------------------------------------------- environments
def make_env(env_cfg: EnvConfig):
    """One monitored training environment (top-level, so subprocesses can build it)."""
    from stable_baselines3.common.monitor import Monitor

    if env_cfg.interface == "turn" and env_cfg.players > 1:
        from agents.table_env import NumberDropTableEnv

        return Monitor(NumberDropTableEnv(num_players=env_cfg.players, opponents=list(env_cfg.opponents),
                                          candidates=env_cfg.candidates, width=env_cfg.width),
                       info_keywords=("win",))
    if env_cfg.interface == "turn":
        from numberdrop_env.turn_env import NumberDropTurnEnv

        return Monitor(NumberDropTurnEnv(candidates=env_cfg.candidates, width=env_cfg.width))
    from numberdrop_env.env import NumberDropEnv

    return Monitor(NumberDropEnv(auto_forced=env_cfg.auto_forced))


def build_vec_env(cfg: TrainConfig, seed: int):
    """The training envs: ``vec_env: native`` steps all the turn-level games in one process
    (``agents.vec_env``, their turns enumerated together on every core), ``subproc`` one
    process per env, ``dummy`` one after the other."""
    if cfg.vec_env == "native":
        from agents.vec_env import NativeTurnVecEnv

        venv = NativeTurnVecEnv(cfg.n_envs, candidates=cfg.env.candidates, width=cfg.env.width)
        venv.seed(seed)  # the same games as the other kinds: env i from seed + i, then its own stream
        return venv
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from agents.resume import worker_env

    fns = [partial(make_env, cfg.env) for _ in range(cfg.n_envs)]
    if cfg.vec_env == "subproc":  # workers that a checkpoint can read and Ctrl-C leaves alone
        venv: Any = SubprocVecEnv([partial(worker_env, fn) for fn in fns])
    else:
        venv = DummyVecEnv(fns)
    venv.seed(seed)  # env i draws its games from seed + i, then continues its own stream
    return venv


def greedy_available() -> tuple[bool, str]:
    try:
        from agents.registry import policy_class

        policy_class("greedy")
        return True, ""
    except Exception as err:  # noqa: BLE001 - any import problem means "no greedy baseline"
        return False, f"{type(err).__name__}: {err}"


# ---------------------------------------------------------------- callbacks
def _callbacks():
    from stable_baselines3.common.callbacks import BaseCallback

    from numberdrop_env.env_base import breakdown_dict

    class GameMetricsCallback(BaseCallback):
        """Per-episode game metrics of the training envs, logged as means per rollout (``game/*``)."""

        def __init__(self, rules) -> None:
            super().__init__()
            self.rules = rules
            self.episodes: dict[str, list[float]] = {k: [] for k in GAME_KEYS}
            self.last_score: float | None = None

        def _on_step(self) -> bool:
            r = self.rules
            n_boxes = 2 * len(r.box_sizes) + 1
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if not done or "score_breakdown" not in info:
                    continue
                b = breakdown_dict(info["score_breakdown"])
                ep = self.episodes
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

    class ProgressCallback(BaseCallback):
        """tqdm bar: steps, fps and the latest training / evaluation mean score. When stderr is
        not a terminal (a log file, CI), a plain line every 30 s instead of a redrawn bar."""

        def __init__(self, total: int, metrics: GameMetricsCallback, evals: Evaluation) -> None:
            super().__init__()
            self.total, self.metrics, self.evals = total, metrics, evals
            self.bar = None
            self.last_line = 0.0

        def _on_training_start(self) -> None:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, initial=self.num_timesteps, unit="step", unit_scale=True,
                            dynamic_ncols=True, desc="train", smoothing=0.05, disable=not sys.stderr.isatty())
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
                print(f"train: {self.num_timesteps}/{self.total} steps, "
                      + ", ".join(f"{k} {v}" for k, v in post.items()), file=sys.stderr, flush=True)

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

        def _set(self) -> None:
            if hasattr(self.model.policy, "freeze_actor"):
                self.model.policy.freeze_actor = self.num_timesteps < self.steps

        def _on_training_start(self) -> None:
            self._set()

        def _on_step(self) -> bool:
            return True

        def _on_rollout_end(self) -> None:
            self._set()

        def _on_training_end(self) -> None:
            if hasattr(self.model.policy, "freeze_actor"):
                self.model.policy.freeze_actor = False

    return GameMetricsCallback, ProgressCallback, ActorWarmupCallback


class Evaluation:
    """Fixed-seed evaluation at update boundaries (``eval/*``, ``best_model.zip``,
    ``evals.jsonl``): every ``eval.every_steps`` steps and at the end. A resumed run whose
    evaluation at its checkpoint was never written (killed during it) evaluates at once."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, greedy_mean: dict[str, Any] | None,
                 start_steps: int) -> None:
        self.cfg, self.run_dir, self.greedy = cfg, run_dir, greedy_mean
        self.seeds = list(range(cfg.eval.seed, cfg.eval.seed + cfg.eval.games))
        self.every = cfg.eval.every_steps
        self.evaluated_at = last_step(run_dir / "evals.jsonl", start_steps) if start_steps else -1
        self.last_eval = self.evaluated_at - self.evaluated_at % self.every if self.every and start_steps else 0
        self.best = best_score(run_dir)
        self.latest: float | None = None

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
        from agents.ppo import play_games
        from agents.resume import save_model
        from numberdrop_env.rules import DEFAULT_RULES

        start = time.perf_counter()
        results = play_games(model, self.seeds, deterministic=True)
        scores = np.array([r["score"] for r in results], float)
        mean = float(scores.mean())
        rec = model.logger.record
        rec("eval/score_mean", mean)
        rec("eval/score_std", float(scores.std()))
        rec("eval/score_median", float(np.median(scores)))
        rec("eval/lines", float(np.mean([r["breakdown"]["lines"] for r in results])) / DEFAULT_RULES.line_points)
        rec("eval/turns", float(np.mean([r["turns"] for r in results])))
        rec("eval/seconds", time.perf_counter() - start)
        entry: dict[str, Any] = {"step": steps, "score_mean": mean, "score_std": float(scores.std())}
        if self.greedy is not None:
            greedy = np.array(self.greedy["scores"], float)
            rec("eval/greedy_score_mean", float(greedy.mean()))
            rec("eval/diff_vs_greedy", float((scores - greedy).mean()))
            entry["diff_vs_greedy"] = float((scores - greedy).mean())
        self.latest, self.evaluated_at = mean, steps
        if mean > self.best:
            self.best = mean
            save_model(model, self.run_dir / "best_model.zip")
            write_json(self.run_dir / "best.json", {"score": mean, "step": steps})
        rec("eval/best_score_mean", self.best)
        append_jsonl(self.run_dir / "evals.jsonl", entry)
        return mean


# ---------------------------------------------------------------- pieces
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
    ok, why = greedy_available()
    if not ok:
        note = f"note: greedy baseline unavailable ({why}); eval/greedy_* not logged"
        print(note, file=sys.stderr)
        with (run_dir / "notes.txt").open("a") as fh:
            fh.write(note + "\n")
        return None
    from agents.evaluate import run

    start = time.perf_counter()
    results = run(["greedy"], cfg.eval.games, cfg.eval.seed, workers=1, progress=False)["greedy"]
    data = {"seed": cfg.eval.seed, "games": cfg.eval.games, "scores": [r.score for r in results],
            "mean": float(np.mean([r.score for r in results])), "seconds": time.perf_counter() - start}
    write_json(cache, data)
    print(f"greedy baseline on the eval seeds: {data['mean']:.2f} ({data['seconds']:.1f} s)", file=sys.stderr)
    return data


def ppo_hyperparameters(cfg: TrainConfig) -> dict[str, Any]:
    """The config's PPO settings as MaskablePPO arguments; a resumed run takes them too, so
    the config, not the checkpoint, decides how training continues."""
    from stable_baselines3.common.utils import LinearSchedule

    p = cfg.ppo
    lr: Any = LinearSchedule(p.learning_rate, 0.0, 1.0) if p.lr_schedule == "linear" else p.learning_rate
    return dict(learning_rate=lr, n_steps=p.n_steps, batch_size=p.batch_size, n_epochs=p.n_epochs,
                gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range, ent_coef=p.ent_coef,
                vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, target_kl=p.target_kl,
                normalize_advantage=p.normalize_advantage)


def build_model(cfg: TrainConfig, venv, run_dir: Path):
    import torch
    from sb3_contrib import MaskablePPO

    n = cfg.network
    if cfg.env.interface == "turn":
        from agents.candidate_policy import CandidateScorerPolicy

        policy: Any = CandidateScorerPolicy
        policy_kwargs: dict[str, Any] = dict(
            candidate_hidden=list(n.candidate_hidden), state_hidden=list(n.state_hidden),
            scorer_hidden=list(n.scorer_hidden), value_hidden=list(n.value_hidden),
            planner_scale=n.planner_scale, activation=n.activation)
    else:
        from agents.features import GridVectorExtractor

        policy = "MultiInputPolicy"
        policy_kwargs = dict(
            features_extractor_class=GridVectorExtractor,
            features_extractor_kwargs=dict(cnn_channels=list(n.cnn_channels), cnn_hidden=n.cnn_hidden,
                                           vector_hidden=list(n.vector_hidden), activation=n.activation),
            net_arch=dict(pi=list(n.pi), vf=list(n.vf)),
            activation_fn={"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[n.activation],
        )
    model = MaskablePPO(policy, venv, policy_kwargs=policy_kwargs, seed=cfg.seed, device="cpu", verbose=0,
                        **ppo_hyperparameters(cfg))
    if cfg.env.interface == "turn":
        model.turn_width = cfg.env.width  # saved with the model: the agent enumerates turns the same way
    return model


def behaviour_cloning(cfg: TrainConfig, model: Any, run_dir: Path, progress: bool) -> None:
    """Clone the configured scripted agent before PPO; demonstrations are cached in the run dir."""
    from agents.imitation import collect_demonstrations, pretrain

    b = cfg.pretrain
    cache = run_dir / f"demos_{b.agent}_seed{b.seed}_games{b.games}_gamma{cfg.ppo.gamma}.npz"
    demos = read_demonstrations(cache)
    if demos is None:
        demos = collect_demonstrations(b.agent, b.games, b.seed, cfg.ppo.gamma,
                                       workers=b.workers or os.cpu_count() or 1, progress=progress)
        with atomic_path(cache, ".npz") as tmp:
            np.savez_compressed(tmp, **demos)
    history = pretrain(model, demos, b.epochs, b.batch_size, b.learning_rate, b.value_coef, cfg.seed,
                       progress=progress)
    for record in history:
        for key in ("loss", "accuracy", "value_mae", "nll"):
            model.logger.record(f"pretrain/{key}", record[key])
        model.logger.dump(record["epoch"])
    last = history[-1]
    print(f"behaviour cloning of {b.agent} on {len(demos['actions'])} decisions: held-out accuracy "
          f"{last['accuracy']:.3f}, value MAE {last['value_mae']:.2f}", file=sys.stderr)


def read_demonstrations(cache: Path) -> dict[str, np.ndarray] | None:
    """The cached demonstrations, or None when there are none or the file is damaged."""
    if not cache.is_file():
        return None
    try:
        with np.load(cache) as data:
            return dict(data)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        print(f"note: {cache} is damaged ({type(err).__name__}: {err}); collecting the demonstrations again",
              file=sys.stderr)
        return None


def final_evaluation(cfg: TrainConfig, model_path: Path, run_dir: Path, progress: bool) -> dict[str, Any] | None:
    from agents.evaluate import format_table, run, summarise

    f = cfg.final_eval
    if f.games == 0:
        return None
    if cfg.env.players > 1:
        return _final_tables(cfg, model_path, run_dir, progress)
    agents = list(f.agents)
    if "greedy" in agents:
        ok, why = greedy_available()
        if not ok:
            print(f"note: greedy left out of the final table ({why})", file=sys.stderr)
            agents.remove("greedy")
    workers = f.workers or os.cpu_count() or 1
    results = run(agents, f.games, f.seed, workers=workers, options={"ppo": {"path": str(model_path)}},
                  progress=progress)
    summary = summarise(results, f.games, f.seed)
    summary["model"] = str(model_path)
    print(format_table(summary))
    write_json(run_dir / "final_eval.json", summary, indent=1)
    return summary


def _final_tables(cfg: TrainConfig, model_path: Path, run_dir: Path, progress: bool) -> dict[str, Any]:
    """The closing table of a multiplayer run: the model in one seat among its training opponents."""
    from agents.table_eval import format_tables, run_tables, summarise_tables

    f, players = cfg.final_eval, cfg.env.players
    seats = ["ppo"] + [cfg.env.opponents[i % len(cfg.env.opponents)] for i in range(players - 1)]
    results = run_tables(seats, players, f.games, f.seed, workers=f.workers or os.cpu_count() or 1,
                         options={"ppo": {"path": str(model_path)}}, progress=progress)
    summary = summarise_tables(results, list(dict.fromkeys(seats)), players)
    summary["model"] = str(model_path)
    print(format_tables(summary))
    write_json(run_dir / "final_eval.json", summary, indent=1)
    return summary


def write_learning_curve(run_dir: Path, title: str = "") -> Path | None:
    """``learning_curve.png`` from the run's ``evals.jsonl`` (resumed runs append to it; a
    line cut short by a kill is left out). A picture is not worth a failed run: without
    matplotlib, or without scores to draw, it is skipped with a note."""
    evals = run_dir / "evals.jsonl"
    if not evals.is_file():
        return None
    from agents.plots import plot_learning_curve, read_evals

    try:
        with atomic_path(run_dir / "learning_curve.png", ".png") as tmp:
            plot_learning_curve(read_evals([evals]), tmp, title)
        return run_dir / "learning_curve.png"
    except (ImportError, ValueError) as err:
        print(f"note: no learning_curve.png ({err})", file=sys.stderr)
        return None


def ship(model_path: Path, target: Path) -> None:
    """Copy a model for inference without its optimizer state (a third of the file)."""
    from agents.ppo import load_model

    from agents.resume import save_model

    model = load_model(model_path)
    model.policy.optimizer = type(model.policy.optimizer)(model.policy.parameters())
    save_model(model, target)
    print(f"shipped {model_path} -> {target} ({target.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)


# ---------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    from agents.registry import HelpFormatter, plain_text

    parser = argparse.ArgumentParser(prog="python train.py", description=plain_text(__doc__),
                                     formatter_class=HelpFormatter)
    parser.add_argument("--config", required=True, type=Path, help="YAML experiment config (configs/*.yaml)")
    parser.add_argument("--resume", type=Path, help="checkpoint .zip to continue from (an RLlib run: a checkpoint "
                                                    "directory): keeps its weights and step count, takes the "
                                                    "config's PPO settings")
    parser.add_argument("--total-steps", type=int, help="override total_timesteps")
    parser.add_argument("--output-dir", help="override output_dir (the run directory)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return parser


def prepare(argv: list[str] | None = None) -> tuple[TrainConfig, argparse.Namespace]:
    """Parse the command line and validate the config: every error surfaces here, before any training."""
    args = build_parser().parse_args(argv)
    from agents.rllib_config import config_backend, load_rllib_config, require_ray

    rllib = config_backend(args.config) == "rllib"  # `backend: rllib` runs on Ray (agents/rllib_train.py)
    from agents.lucky.train import is_lucky_config, load_lucky_config

    if is_lucky_config(args.config):  # `game: luckynumbers` trains Lucky Numbers (agents/lucky/train.py)
        cfg: Any = load_lucky_config(args.config)
    else:
        cfg = load_rllib_config(args.config) if rllib else load_config(args.config)
        if rllib:
            require_ray()
    if args.total_steps is not None:
        if args.total_steps <= 0:
            raise ValueError(f"--total-steps must be > 0, got {args.total_steps}")
        cfg.total_timesteps = args.total_steps
    if args.output_dir is not None:
        cfg.output_dir = args.output_dir
    if args.resume is not None:
        args.resume = find_resume(args.resume, rllib)
    return cfg, args


def find_resume(path: Path, rllib: bool) -> Path:
    """The checkpoint ``--resume`` names, or a run directory's newest; a damaged one is
    reported and the previous good one taken (``FileNotFoundError``/``ValueError`` when none)."""
    if rllib:
        from agents.checkpoints import find_folder_checkpoint

        return find_folder_checkpoint(path)
    from agents.resume import find_checkpoint

    return find_checkpoint(path)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return train(*prepare(argv))


def train(cfg: TrainConfig, args: argparse.Namespace) -> dict[str, Any]:
    """Train as the config says; returns the run's numbers, or ``interrupted: True`` and the
    checkpoint to resume from when Ctrl-C stopped it."""
    if getattr(cfg, "game", "numberdrop") == "luckynumbers":
        from agents.lucky.train import train as train_lucky

        return train_lucky(cfg, args)
    if getattr(cfg, "backend", "sb3") == "rllib":
        from agents.rllib_train import train as train_on_rllib

        return train_on_rllib(cfg, args)
    import torch

    torch.set_num_threads(cfg.network.torch_threads)
    run_dir = cfg.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(run_dir / "config.yaml", yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    return _train(cfg, args, run_dir, cfg.progress_bar and not args.no_progress)


def start_model(cfg: TrainConfig, args: argparse.Namespace, run_dir: Path, progress: bool) -> Any:
    """The model to train and its environments: a new one, or the checkpoint ``--resume``
    names, continued exactly when it can be (``agents.resume``), else on new games."""
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed

    from agents.resume import check_checkpoint, envs_key, start_or_resume

    start_steps = check_checkpoint(args.resume) if args.resume is not None else 0
    seed = cfg.seed + start_steps
    set_random_seed(seed)
    venv = build_vec_env(cfg, seed)
    try:
        resumed = start_or_resume(args.resume, venv, partial(new_model, cfg, run_dir), ppo_hyperparameters(cfg),
                                  envs_key(cfg), seed)
        venv = resumed.venv
        if args.resume is not None:  # the evaluations after the checkpoint are written again
            keep_steps_up_to(run_dir / "evals.jsonl", start_steps)
        resumed.model.set_logger(configure(str(run_dir), ["tensorboard"]))
        if args.resume is None and cfg.pretrain.games:
            behaviour_cloning(cfg, resumed.model, run_dir, progress)
    except BaseException:
        venv.close()
        raise
    return resumed


def new_model(cfg: TrainConfig, run_dir: Path, venv: Any) -> Any:
    model = build_model(cfg, venv, run_dir)
    if cfg.init_from:
        model.set_parameters(cfg.init_from, exact_match=True, device="cpu")
        print(f"starting from the weights of {cfg.init_from}", file=sys.stderr)
    return model


def _train(cfg: TrainConfig, args: argparse.Namespace, run_dir: Path, progress: bool) -> dict[str, Any]:
    from agents.resume import envs_key, save_checkpoint, set_rng_state

    resumed = start_model(cfg, args, run_dir, progress)
    model, start_steps = resumed.model, resumed.model.num_timesteps
    try:
        evals = Evaluation(cfg, run_dir, greedy_baseline(cfg, run_dir), start_steps if args.resume else 0)
        stop, callbacks, boundaries = training_callbacks(cfg, run_dir, evals, args.resume, progress)
        remaining = max(0, cfg.total_timesteps - model.num_timesteps)
        if remaining == 0:
            print(f"nothing to train: the model is at step {model.num_timesteps} >= {cfg.total_timesteps}",
                  file=sys.stderr)
        if resumed.rng is not None:
            set_rng_state(resumed.rng)  # last: after anything else that might draw random numbers
        start = time.perf_counter()
        with stop:
            try:  # with 0 steps left this only evaluates and checkpoints what the last run left undone
                model.learn(total_timesteps=remaining, callback=callbacks, log_interval=1,
                            reset_num_timesteps=args.resume is None, progress_bar=False)
            except Interrupted as stopped:
                model.logger.close()
                return stopped_early(args, run_dir, stopped.checkpoint, stopped.steps)
            finally:
                for callback in callbacks:
                    getattr(callback, "close", lambda: None)()
        seconds = time.perf_counter() - start
        save_checkpoint(model, run_dir / "final_model.zip", envs_key(cfg))
        model.logger.close()
    finally:
        resumed.venv.close()
    if stop.requested:  # Ctrl-C after the last update: the closing evaluation is left to a resume
        return stopped_early(args, run_dir, boundaries.latest, model.num_timesteps)
    return finish(cfg, run_dir, model.num_timesteps, model.num_timesteps - start_steps, seconds, evals, progress)


def training_callbacks(cfg: TrainConfig, run_dir: Path, evals: Evaluation, resumed_from: Path | None,
                       progress: bool) -> tuple[StopRequest, list[Any], Any]:
    from agents.resume import UpdateBoundaries, envs_key
    from numberdrop_env.rules import DEFAULT_RULES

    Metrics, Progress, Warmup = _callbacks()
    metrics = Metrics(DEFAULT_RULES)
    stop = StopRequest()
    boundaries = UpdateBoundaries(run_dir / "checkpoints", "ppo", cfg.checkpoint.every_steps, envs_key(cfg), stop,
                                  [evals], resumed_from=resumed_from)
    callbacks = [Warmup(cfg.ppo.actor_warmup_steps), metrics, boundaries]
    callbacks += [Progress(cfg.total_timesteps, metrics, evals)] if progress else []
    return stop, callbacks, boundaries


def stopped_early(args: argparse.Namespace, run_dir: Path, checkpoint: Path | None, steps: int) -> dict[str, Any]:
    """The result of a run that Ctrl-C stopped at an update boundary."""
    report_stop(args.config, checkpoint, steps)
    return {"run_dir": str(run_dir), "interrupted": True, "checkpoint": str(checkpoint), "steps": steps}


def finish(cfg: TrainConfig, run_dir: Path, steps: int, trained: int, seconds: float, evals: Evaluation,
           progress: bool) -> dict[str, Any]:
    """After training: the best model, the learning curve, the closing table, shipping."""
    best = run_dir / "best_model.zip"
    if not best.is_file():
        with atomic_path(best) as tmp:
            shutil.copy2(run_dir / "final_model.zip", tmp)
    fps = trained / seconds if seconds > 0 else float("nan")
    print(f"trained {trained} steps in {seconds:.0f} s ({fps:.0f} steps/s); best eval mean "
          f"{evals.best:.2f}; run dir {run_dir}", file=sys.stderr)
    write_learning_curve(run_dir, f"{cfg.experiment}: mean score on {cfg.eval.games} evaluation games")
    summary = final_evaluation(cfg, best, run_dir, progress)
    if cfg.ship_to:
        ship(best, Path(cfg.ship_to))
    return {"run_dir": str(run_dir), "best_model": str(best), "steps": steps,
            "seconds": seconds, "fps": fps, "best_eval": evals.best, "final_eval": summary}


def interrupted_message(cfg: Any, args: argparse.Namespace) -> str:
    """What a hard stop (a second Ctrl-C) says: the newest checkpoint and how to resume it."""
    try:
        checkpoint = find_resume(cfg.run_dir, getattr(cfg, "backend", "sb3") == "rllib")
    except (FileNotFoundError, ValueError):
        return "interrupted: no checkpoint yet; run the same command to start again"
    return f"interrupted; newest checkpoint {checkpoint}\nto continue: {resume_command(args.config, checkpoint)}"


if __name__ == "__main__":
    try:
        config, arguments = prepare()
    except (ValueError, TypeError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    try:
        outcome = train(config, arguments)
    except KeyboardInterrupt:
        print(f"\n{interrupted_message(config, arguments)}", file=sys.stderr)
        sys.exit(130)
    sys.exit(130 if outcome.get("interrupted") else 0)
