"""PPO on RLlib (``backend: rllib``): env runners step ``agents.training.rllib.env``, the learner
updates ``NumberDropRLModule``. Fault tolerance is off: the masks are exact, so an illegal action
is a bug that stops the run. A resumed run continues from its checkpoint folder on new games."""

from __future__ import annotations

import re
import shutil
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import torch
from ray.exceptions import RayTaskError
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core import DEFAULT_MODULE_ID
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.tune.registry import register_env

from ...evaluation.runner import play_policy, ray_pool
from ...networks.rllib_module import NumberDropRLModule
from ...numberdrop.rllib import RLlibPolicy
from .. import common
from ..checkpoints import (
    STEPS_FILE,
    Boundaries,
    Interrupted,
    atomic_path,
    folder_steps,
    keep_up_to,
    write_json,
)
from ..scalars import ScalarWriter
from .config import RLlibConfig
from .env import make_env

ENV_NAME = "numberdrop_rllib"
GAME_KEYS = ("score", "lines", "boxes", "box_points", "column_bonuses", "penalty_rows", "turns", "length")
LEARNER_KEYS = (
    "policy_loss",
    "vf_loss",
    "entropy",
    "mean_kl_loss",
    "vf_explained_var",
    "curr_lr",
    "gradients_default_optimizer_global_norm",
)
RUNNER_KEYS = ("episode_return_mean", "episode_len_mean", "num_episodes")
"""The RLlib numbers worth a TensorBoard curve, from the learner and the env runners."""


class GameMetrics(RLlibCallback):
    """Per-episode game metrics, summed per iteration (the driver divides by ``game/episodes``)."""

    def on_episode_end(
        self, *, episode: Any, prev_episode_chunks: Any = None, metrics_logger: Any = None, **kwargs: Any
    ) -> None:
        info = episode.get_infos(-1)
        if not isinstance(info, dict) or "score_breakdown" not in info or metrics_logger is None:
            return
        length = len(episode) + sum(len(chunk) for chunk in prev_episode_chunks or [])  # chunks of iterations
        last = None if "boxes" in info else episode.get_observations(-1)["observations"]
        values = {**common.game_metrics(info, last), "length": length}
        for key, value in values.items():
            metrics_logger.log_value(("game", f"{key}_sum"), float(value), reduce="sum")
            metrics_logger.log_value(("game", f"{key}_count"), 1, reduce="sum")


class FailFastEnvRunner(SingleAgentEnvRunner):
    """An env runner whose errors reach the driver with the environment's message (RLlib's own
    exits, and the driver learns only that an actor died)."""

    def apply(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        return func(self, *args, **kwargs)


def algorithm_config(cfg: RLlibConfig, lose_mask: bool = False) -> Any:
    """RLlib's PPO config for ``cfg``. ``lose_mask`` offers every action (tests only: the run must fail)."""
    register_env(ENV_NAME, make_env)
    p, r, e = cfg.ppo, cfg.ray, cfg.env
    lr = [[0, p.learning_rate], [cfg.total_timesteps, 0.0]] if p.lr_schedule == "linear" else p.learning_rate
    env = e.model_dump(include={"interface", "auto_forced", "candidates", "width"})  # the module's too
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config={**env, "lose_mask": lose_mask})
        .env_runners(
            env_runner_cls=FailFastEnvRunner,
            num_env_runners=r.env_runners,
            num_envs_per_env_runner=cfg.n_envs,
            num_cpus_per_env_runner=r.cpus_per_env_runner,
            rollout_fragment_length=p.n_steps,
            sample_timeout_s=r.sample_timeout_s,
            gym_env_vectorize_mode="sync",
        )
        .learners(num_learners=r.learners, num_cpus_per_learner=r.cpus_per_learner if r.learners else 1)
        .training(
            lr=lr,
            gamma=p.gamma,
            lambda_=p.gae_lambda,
            clip_param=p.clip_range,
            entropy_coeff=p.ent_coef,
            vf_loss_coeff=p.vf_coef,
            grad_clip=p.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,
            vf_clip_param=1e9,  # as SB3: no KL penalty, no value clipping
            train_batch_size_per_learner=cfg.train_batch_size // max(1, r.learners),
            minibatch_size=p.batch_size,
            num_epochs=p.n_epochs,
            shuffle_batch_per_epoch=True,
        )
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=NumberDropRLModule, model_config={**env, **cfg.network.model_dump()}
            )
        )
        .fault_tolerance(
            restart_failed_env_runners=False,
            ignore_env_runner_failures=False,
            restart_failed_sub_environments=False,
            max_num_env_runner_restarts=0,
        )
        .callbacks(GameMetrics)
        .debugging(seed=cfg.seed, log_level="ERROR")
    )


def train_iteration(algo: Any) -> dict[str, Any]:
    """``algo.train()``, failing where RLlib would carry on: an env runner's error (raised as the
    environment's own message), no env-runner metrics, a failed env step, a runner lost."""
    try:
        result = algo.train()
    except RayTaskError as err:
        causes = re.findall(r"^(\w+(?:Error|Exception): .+)$", str(err), flags=re.MULTILINE)
        raise RuntimeError(
            "an env runner failed, training stopped: " + (causes[0] if causes else str(err).splitlines()[-1])
        ) from err
    runners = result.get("env_runners")
    if not runners:
        raise RuntimeError("RLlib returned an iteration without env-runner results (an env runner failed)")
    failures = runners.get("num_env_step_failures", 0)
    if failures:
        raise RuntimeError(f"{failures} env step(s) failed in this iteration")
    wanted, healthy = algo.config.num_env_runners, algo.env_runner_group.num_healthy_remote_workers()
    if healthy != wanted:
        raise RuntimeError(f"{wanted - healthy} of {wanted} env runners were lost")
    return result


def set_actor_frozen(frozen: bool, learner: Any) -> None:
    """Detach the candidate scorer's logits on a learner (``ppo.actor_warmup_steps``)."""
    body = learner.module[DEFAULT_MODULE_ID].body
    if hasattr(body, "freeze_actor"):
        body.freeze_actor = frozen


def game_means(runners: dict[str, Any]) -> dict[str, float]:
    """This iteration's per-episode means from ``GameMetrics``' sums and counts."""
    game = runners.get("game", {})
    out = {k: float(game[f"{k}_sum"]) / float(game[f"{k}_count"]) for k in GAME_KEYS if game.get(f"{k}_count")}
    return {**out, "episodes": float(game.get("score_count", 0))} if out else out


def scalars(result: dict[str, Any]) -> dict[str, float]:
    """The RLlib numbers worth a TensorBoard curve (losses, entropy, KL, throughput)."""
    learner = result.get("learners", {}).get(DEFAULT_MODULE_ID, {})
    runners = result.get("env_runners", {})
    wanted = [(learner, k) for k in LEARNER_KEYS] + [(runners, k) for k in RUNNER_KEYS]
    return {f"rllib/{k}": float(d[k]) for d, k in wanted if isinstance(d.get(k), (int, float))}


def evaluation(
    cfg: RLlibConfig, run_dir: Path, start_steps: int, greedy: dict[str, Any] | None, writer: ScalarWriter
) -> common.Evaluation:
    """Fixed-seed evaluation of the module as a user of its checkpoint gets it (``eval/*``,
    ``best_checkpoint/``), played by the runner."""
    seeds = list(range(cfg.eval.seed, cfg.eval.seed + cfg.eval.games))

    def measure(algo: Any, steps: int) -> tuple:
        results = play_policy(RLlibPolicy(str(save_checkpoint(algo, run_dir / "latest_checkpoint", steps))), seeds)
        return common.score_scalars(results, greedy), results

    def save_best(_: Any) -> None:
        with atomic_path(run_dir / "best_checkpoint") as tmp:
            shutil.copytree(run_dir / "latest_checkpoint", tmp)

    return common.Evaluation(cfg, start_steps, measure, save_best, writer.write, "best_checkpoint")


def save_checkpoint(algo: Any, path: Path, steps: int) -> Path:
    """An algorithm checkpoint with the step count inside, written whole or not at all."""
    with atomic_path(path) as tmp:
        algo.save_to_path(str(tmp.resolve()))
        write_json(tmp / STEPS_FILE, {"env_steps": steps})
    return path


def train(cfg: RLlibConfig, args: Any, lose_mask: bool = False) -> dict[str, Any]:
    """Train, evaluate and checkpoint as the config says; returns what ``agents.cli.train.train`` returns."""
    run_dir, resume, progress = common.open_run(cfg, args)
    start_steps = folder_steps(resume) if resume is not None else 0
    torch.set_num_threads(cfg.network.torch_threads)
    common.write_config(cfg, run_dir)
    greedy = common.greedy_baseline(cfg, run_dir)  # before Ray starts: plain local games
    steps, config_path = start_steps, getattr(args, "config", None)
    # Ray as it runs, a cluster's, or a local one
    with ray_pool(cfg.ray.address, cfg.ray.num_cpus), ScalarWriter(run_dir) as writer:
        config = algorithm_config(cfg, lose_mask=lose_mask)
        if resume is not None:  # new games: the env seeds move on with the step count
            config = config.debugging(seed=cfg.seed + start_steps)
        algo = config.build_algo()
        try:
            if resume is not None:
                restore(algo, resume)
                print(f"resuming from {resume} at step {start_steps}, on new games", file=sys.stderr)
                keep_up_to(run_dir / "evals.jsonl", start_steps)
            evaluate = evaluation(cfg, run_dir, start_steps, greedy, writer)

            def save(n: int) -> Path:
                return save_checkpoint(algo, run_dir / "checkpoints" / f"rllib_{n}_steps", n)

            boundaries = Boundaries(save, cfg.checkpoint.every_steps, partial(evaluate, algo), start_steps)
            start = time.perf_counter()
            with boundaries:
                try:
                    steps = loop(cfg, algo, boundaries, evaluate, writer, start_steps, progress)
                except Interrupted as stopped:
                    return common.stopped_early(config_path, run_dir, stopped.checkpoint, stopped.steps)
                seconds = time.perf_counter() - start
                save_checkpoint(algo, run_dir / "final_checkpoint", steps)  # first: a kill in evaluation loses nothing
                boundaries(steps, final=True)
        finally:
            algo.stop()
        if boundaries.requested:  # Ctrl-C after the last update: the closing table is left to a resume
            return common.stopped_early(config_path, run_dir, boundaries.latest, steps)
        trained = steps - start_steps
        return common.finish(cfg, run_dir, "final_checkpoint", steps, trained, seconds, evaluate.best, progress)


def restore(algo: Any, checkpoint: Path) -> None:
    """``algo.restore_from_path``, a failure named by its checkpoint."""
    try:
        algo.restore_from_path(str(Path(checkpoint).resolve()))
    except Exception as err:  # noqa: BLE001 - RLlib raises many kinds; all mean "this checkpoint"
        raise ValueError(
            f"checkpoint {checkpoint} cannot be restored ({type(err).__name__}: {err}); "
            "--resume the run directory to take an earlier one"
        ) from err


def loop(
    cfg: RLlibConfig, algo: Any, boundaries: Boundaries, evaluate: Any, writer: ScalarWriter, steps: int, progress: bool
) -> int:
    """Iterations until ``total_timesteps``, a boundary after each but the last; returns the steps."""
    bar = common.StepProgress(cfg.total_timesteps, steps, progress)
    try:
        boundaries(steps)  # a resumed run catches up on an evaluation its checkpoint missed
        while steps < cfg.total_timesteps:
            if cfg.ppo.actor_warmup_steps:
                algo.learner_group.foreach_learner(partial(set_actor_frozen, steps < cfg.ppo.actor_warmup_steps))
            result = train_iteration(algo)
            steps += int(result["env_runners"].get("num_env_steps_sampled", 0))
            games = game_means(result["env_runners"])
            game = {f"game/{k}": v for k, v in games.items()}
            writer.write(steps, {**game, **scalars(result), "time/fps": bar.fps(steps)})
            if steps < cfg.total_timesteps:
                boundaries(steps)
            bar.to(steps, games.get("score"), evaluate.latest)
    finally:
        bar.close()
    return steps
