"""Training throughput on Ray: env steps/s of PPO with 1, 2, 4 env runners next to SB3's
MaskablePPO, on the same network, PPO settings and environments per sampler, and the share of
time in the learner update (``docs/ray.md``). ``--interface turn`` measures ``NumberDropTurn-v0``.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from pathlib import Path
from typing import Any

from agents.training import sb3 as sb3_training
from agents.training.config import TrainConfig, load_config
from agents.training.rllib import train as rllib_train
from agents.training.sb3_config import PPOConfig

ROOT = Path(__file__).resolve().parents[1]


def bench_config(interface: str) -> TrainConfig:
    cfg = load_config(ROOT / "configs" / "rllib_ppo.yaml")
    if interface == "decision":  # ppo_solo.yaml's network and batch shape
        solo = load_config(ROOT / "configs" / "rllib_smoke.yaml")
        cfg.env = solo.env
        cfg.network.cnn_channels, cfg.network.cnn_hidden = [32, 32], 128
        cfg.network.vector_hidden, cfg.network.pi, cfg.network.vf = [128], [128], [128]
        cfg.n_envs, cfg.ppo.n_steps, cfg.ppo.batch_size, cfg.ppo.n_epochs = 8, 64, 128, 4
        cfg.ppo.actor_warmup_steps = 0
    return cfg


def timing(owner: Any, name: str) -> list[float]:
    """Wraps ``owner.name`` (a learner update) to add its seconds up in the list returned (the
    trainers' own timers are smoothed)."""
    spent, call = [0.0], getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start

    setattr(owner, name, timed)
    return spent


def line(trainer: str, steps: int, seconds: float, learn_s: float) -> dict[str, Any]:
    """A line of the table; sampling is everything but the update (weight sync and bookkeeping too)."""
    keys = ("trainer", "steps", "seconds", "steps_per_s", "sampling", "learner")
    return dict(zip(keys, (trainer, steps, seconds, steps / seconds, 1 - learn_s / seconds, learn_s / seconds)))


def rllib_rate(cfg: TrainConfig, runners: int, iterations: int) -> dict[str, Any]:
    import ray
    import torch

    torch.set_num_threads(cfg.network.torch_threads)  # the learner, in this process
    cfg.ray.env_runners = runners
    ray.init(num_cpus=max(1, runners), include_dashboard=False, logging_level=logging.WARNING)
    try:
        algo = rllib_train.algorithm_config(cfg).build_algo()
        rllib_train.train_iteration(algo)  # actor start-up, first weights: not timed
        learn, steps, start = timing(algo.learner_group, "update"), 0, time.perf_counter()
        for _ in range(iterations):
            result = rllib_train.train_iteration(algo)  # checked as the trainer checks it
            steps += int(result["env_runners"]["num_env_steps_sampled"])
        seconds = time.perf_counter() - start
        algo.stop()
    finally:
        ray.shutdown()
    return line(f"rllib, {runners} env runner{'s' if runners > 1 else ''}", steps, seconds, learn[0])


def sb3_rate(cfg: TrainConfig, iterations: int) -> dict[str, Any]:
    """MaskablePPO with the same network, ``n_envs`` envs in one process, the same batch shape."""
    import torch

    sb3 = PPOConfig(n_envs=cfg.n_envs, vec_env="dummy", env=cfg.env, ppo=cfg.ppo, network=cfg.network)
    torch.set_num_threads(cfg.network.torch_threads)
    venv = sb3_training.build_vec_env(sb3, 0)
    try:
        model = sb3_training.build_model(sb3, venv)
        per = cfg.ppo.n_steps * cfg.n_envs
        model.learn(per)  # warm-up rollout and update, not timed
        learn, start = timing(model, "train"), time.perf_counter()
        model.learn(per * iterations, reset_num_timesteps=False)
        seconds = time.perf_counter() - start
    finally:
        venv.close()
    return line("SB3 MaskablePPO, 1 process", per * iterations, seconds, learn[0])


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.rllib_scaling", description=__doc__)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    interfaces = {"choices": ["decision", "turn"], "default": "decision"}
    parser.add_argument("--interface", **interfaces, help="NumberDrop-v0 (CNN) or NumberDropTurn-v0 (candidates)")
    parser.add_argument("--runners", default="1,2,4", help="comma-separated env runner counts")
    parser.add_argument("--iterations", type=int, default=4, help="timed PPO iterations per line")
    args = parser.parse_args(argv)
    runners = [int(r) for r in args.runners.split(",") if r.strip()]
    if not runners or min(runners) < 1 or args.iterations < 1:
        parser.error("--runners must list positive counts and --iterations must be positive")
    cfg = bench_config(args.interface)
    print(
        f"{args.interface}: {cfg.n_envs} envs per sampler x {cfg.ppo.n_steps} steps, minibatch "
        f"{cfg.ppo.batch_size}, {cfg.ppo.n_epochs} epochs; {os.cpu_count()} CPUs",
        flush=True,
    )
    print(f"{'trainer':<32} {'steps':>7} {'seconds':>8} {'steps/s':>8} {'sampling':>9} {'learner':>8}", flush=True)
    lines = []
    for n in [0, *runners]:  # 0: SB3
        cfg = bench_config(args.interface)
        lines.append(sb3_rate(cfg, args.iterations) if n == 0 else rllib_rate(cfg, n, args.iterations))
        r = lines[-1]
        print(
            f"{r['trainer']:<32} {r['steps']:>7} {r['seconds']:>8.1f} {r['steps_per_s']:>8.0f} "
            f"{100 * r['sampling']:>8.0f}% {100 * r['learner']:>7.0f}%",
            flush=True,
        )
    return lines


if __name__ == "__main__":
    main()
