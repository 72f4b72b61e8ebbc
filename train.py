"""Train a MaskablePPO agent on ``NumberDropTurn-v0`` or ``NumberDrop-v0`` from one YAML config.

    python train.py --config configs/ppo_turn.yaml
    python train.py --config configs/ppo_turn.yaml --resume runs/ppo_turn/checkpoints/ppo_40000_steps.zip
    python train.py --config configs/ppo_solo.yaml
    python train.py --config configs/ppo_smoke.yaml --total-steps 2000 --output-dir /tmp/smoke

The run directory (``runs/<experiment>/`` unless ``output_dir`` is set) receives the
TensorBoard events (SB3 scalars, ``game/*`` per-episode metrics, ``eval/*``), the resolved
``config.yaml``, ``checkpoints/``, ``best_model.zip`` (best periodic evaluation on fixed
seeds), ``final_model.zip``, ``evals.jsonl``, ``learning_curve.png`` and ``final_eval.json`` (the closing
``agents.evaluate`` table: trained agent vs random and greedy on the same seeds).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import yaml

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

    fns = [partial(make_env, cfg.env) for _ in range(cfg.n_envs)]
    venv = SubprocVecEnv(fns) if cfg.vec_env == "subproc" else DummyVecEnv(fns)
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
                b = info["score_breakdown"]
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

    class EvalCheckpointCallback(BaseCallback):
        """Fixed-seed evaluation (``eval/*``, ``best_model.zip``) and periodic checkpoints."""

        def __init__(self, cfg: TrainConfig, run_dir: Path, greedy_mean: dict[str, Any] | None) -> None:
            super().__init__()
            self.cfg, self.run_dir = cfg, run_dir
            self.seeds = list(range(cfg.eval.seed, cfg.eval.seed + cfg.eval.games))
            self.greedy = greedy_mean
            state_file = run_dir / "best.json"
            state = json.loads(state_file.read_text()) if state_file.is_file() else {}
            self.best = state.get("score", -float("inf"))
            self.last_eval = self.last_ckpt = 0
            self.latest: float | None = None

        def _on_training_start(self) -> None:
            n = self.num_timesteps
            if self.cfg.eval.every_steps:
                self.last_eval = n - n % self.cfg.eval.every_steps
            if self.cfg.checkpoint.every_steps:
                self.last_ckpt = n - n % self.cfg.checkpoint.every_steps

        def _on_step(self) -> bool:
            return True

        def _on_rollout_end(self) -> None:
            n = self.num_timesteps
            every = self.cfg.checkpoint.every_steps
            if every and n - self.last_ckpt >= every:
                self.last_ckpt = n - n % every
                path = self.run_dir / "checkpoints" / f"ppo_{n}_steps.zip"
                path.parent.mkdir(parents=True, exist_ok=True)
                self.model.save(path)
            every = self.cfg.eval.every_steps
            if every and n - self.last_eval >= every:
                self.last_eval = n - n % every
                self.evaluate()

        def _on_training_end(self) -> None:
            if self.num_timesteps != self.last_eval or not (self.run_dir / "best_model.zip").is_file():
                self.last_eval = self.num_timesteps
                self.evaluate()
                self.logger.dump(self.num_timesteps)

        def evaluate(self) -> float:
            from agents.ppo import play_games
            from numberdrop_env.rules import DEFAULT_RULES

            start = time.perf_counter()
            results = play_games(self.model, self.seeds, deterministic=True)
            scores = np.array([r["score"] for r in results], float)
            mean = float(scores.mean())
            rec = self.logger.record
            rec("eval/score_mean", mean)
            rec("eval/score_std", float(scores.std()))
            rec("eval/score_median", float(np.median(scores)))
            rec("eval/lines", float(np.mean([r["breakdown"]["lines"] for r in results])) / DEFAULT_RULES.line_points)
            rec("eval/turns", float(np.mean([r["turns"] for r in results])))
            rec("eval/seconds", time.perf_counter() - start)
            entry: dict[str, Any] = {"step": self.num_timesteps, "score_mean": mean, "score_std": float(scores.std())}
            if self.greedy is not None:
                greedy = np.array(self.greedy["scores"], float)
                rec("eval/greedy_score_mean", float(greedy.mean()))
                rec("eval/diff_vs_greedy", float((scores - greedy).mean()))
                entry["diff_vs_greedy"] = float((scores - greedy).mean())
            self.latest = mean
            if mean > self.best:
                self.best = mean
                self.model.save(self.run_dir / "best_model.zip")
                (self.run_dir / "best.json").write_text(json.dumps({"score": mean, "step": self.num_timesteps}))
            rec("eval/best_score_mean", self.best)
            with (self.run_dir / "evals.jsonl").open("a") as fh:
                fh.write(json.dumps(entry) + "\n")
            return mean

    class ProgressCallback(BaseCallback):
        """tqdm bar: steps, fps and the latest training / evaluation mean score. When stderr is
        not a terminal (a log file, CI), a plain line every 30 s instead of a redrawn bar."""

        def __init__(self, total: int, metrics: GameMetricsCallback, evals: EvalCheckpointCallback) -> None:
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

    return GameMetricsCallback, EvalCheckpointCallback, ProgressCallback, ActorWarmupCallback


# ---------------------------------------------------------------- pieces
def greedy_baseline(cfg: TrainConfig, run_dir: Path) -> dict[str, Any] | None:
    """Greedy scores on the evaluation seeds, computed once and cached in the run directory."""
    if not cfg.eval.greedy_baseline:
        return None
    cache = run_dir / f"greedy_eval_seed{cfg.eval.seed}_games{cfg.eval.games}.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    ok, why = greedy_available()
    if not ok:
        note = f"note: greedy baseline unavailable ({why}); eval/greedy_* not logged"
        print(note, file=sys.stderr)
        (run_dir / "notes.txt").open("a").write(note + "\n")
        return None
    from agents.evaluate import run

    start = time.perf_counter()
    results = run(["greedy"], cfg.eval.games, cfg.eval.seed, workers=1, progress=False)["greedy"]
    data = {"seed": cfg.eval.seed, "games": cfg.eval.games, "scores": [r.score for r in results],
            "mean": float(np.mean([r.score for r in results])), "seconds": time.perf_counter() - start}
    cache.write_text(json.dumps(data))
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
    if cache.is_file():
        with np.load(cache) as data:
            demos = dict(data)
    else:
        demos = collect_demonstrations(b.agent, b.games, b.seed, cfg.ppo.gamma,
                                       workers=b.workers or os.cpu_count() or 1, progress=progress)
        np.savez_compressed(cache, **demos)
    history = pretrain(model, demos, b.epochs, b.batch_size, b.learning_rate, b.value_coef, cfg.seed,
                       progress=progress)
    for record in history:
        for key in ("loss", "accuracy", "value_mae", "nll"):
            model.logger.record(f"pretrain/{key}", record[key])
        model.logger.dump(record["epoch"])
    last = history[-1]
    print(f"behaviour cloning of {b.agent} on {len(demos['actions'])} decisions: held-out accuracy "
          f"{last['accuracy']:.3f}, value MAE {last['value_mae']:.2f}", file=sys.stderr)


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
    (run_dir / "final_eval.json").write_text(json.dumps(summary, indent=1))
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
    (run_dir / "final_eval.json").write_text(json.dumps(summary, indent=1))
    return summary


def write_learning_curve(run_dir: Path, title: str = "") -> Path | None:
    """``learning_curve.png`` from the run's ``evals.jsonl`` (resumed runs append to it). A
    picture is not worth a failed run: without matplotlib, or without scores to draw, it is
    skipped with a note."""
    evals = run_dir / "evals.jsonl"
    if not evals.is_file():
        return None
    from agents.plots import plot_learning_curve, read_evals

    try:
        return plot_learning_curve(read_evals([evals]), run_dir / "learning_curve.png", title)
    except (ImportError, ValueError) as err:
        print(f"note: no learning_curve.png ({err})", file=sys.stderr)
        return None


def ship(model_path: Path, target: Path) -> None:
    """Copy a model for inference without its optimizer state (a third of the file)."""
    from agents.ppo import load_model

    model = load_model(model_path)
    model.policy.optimizer = type(model.policy.optimizer)(model.policy.parameters())
    target.parent.mkdir(parents=True, exist_ok=True)
    model.save(target)
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
    if args.resume is not None and not (args.resume.is_dir() if rllib else args.resume.is_file()):
        raise FileNotFoundError(f"--resume checkpoint {str(args.resume)!r} not found")
    return cfg, args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return train(*prepare(argv))


def train(cfg: TrainConfig, args: argparse.Namespace) -> dict[str, Any]:
    if getattr(cfg, "game", "numberdrop") == "luckynumbers":
        from agents.lucky.train import train as train_lucky

        return train_lucky(cfg, args)
    if getattr(cfg, "backend", "sb3") == "rllib":
        from agents.rllib_train import train as train_on_rllib

        return train_on_rllib(cfg, args)
    progress = cfg.progress_bar and not args.no_progress

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed

    from numberdrop_env.rules import DEFAULT_RULES

    torch.set_num_threads(cfg.network.torch_threads)
    run_dir = cfg.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))

    start_steps = 0
    if args.resume is not None:
        from zipfile import ZipFile

        with ZipFile(args.resume) as zf:  # the step count, to reseed the envs for unseen games
            start_steps = int(json.loads(zf.read("data"))["num_timesteps"])
    seed = cfg.seed + start_steps
    set_random_seed(seed)
    venv = build_vec_env(cfg, seed)
    try:
        if args.resume is not None:
            model = MaskablePPO.load(str(args.resume), env=venv, device="cpu",
                                     custom_objects=ppo_hyperparameters(cfg))
            print(f"resuming from {args.resume} at step {model.num_timesteps}", file=sys.stderr)
        else:
            model = build_model(cfg, venv, run_dir)
            if cfg.init_from:
                model.set_parameters(cfg.init_from, exact_match=True, device="cpu")
                print(f"starting from the weights of {cfg.init_from}", file=sys.stderr)
        model.set_logger(configure(str(run_dir), ["tensorboard"]))
        if args.resume is None and cfg.pretrain.games:
            behaviour_cloning(cfg, model, run_dir, progress)
        greedy = greedy_baseline(cfg, run_dir)
        Metrics, EvalCkpt, Progress, Warmup = _callbacks()
        metrics = Metrics(DEFAULT_RULES)
        evals = EvalCkpt(cfg, run_dir, greedy)
        callbacks = [Warmup(cfg.ppo.actor_warmup_steps), metrics, evals]
        callbacks += [Progress(cfg.total_timesteps, metrics, evals)] if progress else []
        remaining = cfg.total_timesteps - model.num_timesteps
        start = time.perf_counter()
        if remaining > 0:
            model.learn(total_timesteps=remaining, callback=callbacks, log_interval=1,
                        reset_num_timesteps=args.resume is None, progress_bar=False)
        else:
            print(f"nothing to train: the model is at step {model.num_timesteps} >= {cfg.total_timesteps}",
                  file=sys.stderr)
        seconds = time.perf_counter() - start
        trained = model.num_timesteps - start_steps
        model.save(run_dir / "final_model.zip")
        model.logger.close()
    finally:
        venv.close()

    best = run_dir / "best_model.zip"
    if not best.is_file():
        shutil.copy2(run_dir / "final_model.zip", best)
    fps = trained / seconds if seconds > 0 else float("nan")
    print(f"trained {trained} steps in {seconds:.0f} s ({fps:.0f} steps/s); best eval mean "
          f"{evals.best:.2f}; run dir {run_dir}", file=sys.stderr)
    write_learning_curve(run_dir, f"{cfg.experiment}: mean score on {cfg.eval.games} evaluation games")
    summary = final_evaluation(cfg, best, run_dir, progress)
    if cfg.ship_to:
        ship(best, Path(cfg.ship_to))
    return {"run_dir": str(run_dir), "best_model": str(best), "steps": model.num_timesteps,
            "seconds": seconds, "fps": fps, "best_eval": evals.best, "final_eval": summary}


if __name__ == "__main__":
    try:
        config, arguments = prepare()
    except (ValueError, TypeError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    train(config, arguments)
