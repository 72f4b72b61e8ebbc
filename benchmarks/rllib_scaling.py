"""Training throughput on Ray: env steps/s of PPO with 1, 2, 4 env runners, next to SB3.

    python -m benchmarks.rllib_scaling --runners 1,2,4 --iterations 4
    python -m benchmarks.rllib_scaling --interface turn --runners 1,2 --iterations 3

Both trainers run the same network (the config's ``network`` section: the CNN + vectors of
``NumberDrop-v0`` or the candidate scorer of ``NumberDropTurn-v0``), the same PPO settings and
``n_envs`` environments per sampler (one env runner, or SB3's one vector env). Each RLlib
iteration samples ``n_steps * n_envs * runners`` steps (weak scaling: every runner does the
same work) and updates once in the driver; the first iteration (actor start-up) is not
timed. Reported per line: env steps/s over the timed iterations, and the share of the
time spent in the learner update (timed around RLlib's learner-group update) and in the
rest (sampling, weight sync, bookkeeping). Local Ray is given one logical CPU
per runner, so runners beyond the physical cores share them.
"""

from __future__ import annotations

import argparse
import json
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


def rllib_rate(cfg: TrainConfig, runners: int, iterations: int) -> dict[str, Any]:
    import ray
    import torch

    torch.set_num_threads(cfg.network.torch_threads)  # the learner, in this process
    cfg.ray.env_runners = runners
    ray.init(num_cpus=max(1, runners), include_dashboard=False, logging_level=logging.WARNING)
    try:
        algo = rllib_train.algorithm_config(cfg).build_algo()
        rllib_train.train_iteration(algo)  # actor start-up, first weights: not timed
        learn = [0.0]
        update = algo.learner_group.update

        def timed_update(*args: Any, **kwargs: Any) -> Any:  # RLlib's own timers are smoothed
            t = time.perf_counter()
            try:
                return update(*args, **kwargs)
            finally:
                learn[0] += time.perf_counter() - t

        algo.learner_group.update = timed_update
        steps = 0
        start = time.perf_counter()
        for _ in range(iterations):
            result = rllib_train.train_iteration(algo)
            rllib_train.check_iteration(result, algo, cfg)
            steps += int(result["env_runners"]["num_env_steps_sampled"])
        seconds = time.perf_counter() - start
        learn_s = learn[0]
        sample_s = seconds - learn_s  # sampling, weight sync and bookkeeping
        algo.stop()
    finally:
        ray.shutdown()
    return {
        "trainer": f"rllib, {runners} env runner{'s' if runners > 1 else ''}",
        "steps": steps,
        "seconds": seconds,
        "steps_per_s": steps / seconds,
        "sampling": sample_s / seconds,
        "learner": learn_s / seconds,
    }


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
        learn = [0.0]
        update = model.train

        def timed_update() -> None:
            t = time.perf_counter()
            update()
            learn[0] += time.perf_counter() - t

        model.train = timed_update
        start = time.perf_counter()
        model.learn(per * iterations, reset_num_timesteps=False)
        seconds = time.perf_counter() - start
    finally:
        venv.close()
    return {
        "trainer": "SB3 MaskablePPO, 1 process",
        "steps": per * iterations,
        "seconds": seconds,
        "steps_per_s": per * iterations / seconds,
        "sampling": 1 - learn[0] / seconds,
        "learner": learn[0] / seconds,
    }


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.rllib_scaling",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--interface",
        choices=["decision", "turn"],
        default="decision",
        help="NumberDrop-v0 (CNN + vectors) or NumberDropTurn-v0 (candidate scorer)",
    )
    parser.add_argument("--runners", default="1,2,4", help="comma-separated env runner counts")
    parser.add_argument("--iterations", type=int, default=4, help="timed PPO iterations per line")
    parser.add_argument("--no-sb3", action="store_true", help="leave out the SB3 line")
    parser.add_argument("--json", type=Path, help="also write the lines to this JSON file")
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
    jobs = [("sb3", 0)] * (not args.no_sb3) + [("rllib", r) for r in runners]
    for kind, n in jobs:
        line = (
            sb3_rate(bench_config(args.interface), args.iterations)
            if kind == "sb3"
            else rllib_rate(bench_config(args.interface), n, args.iterations)
        )
        lines.append(line)
        print(
            f"{line['trainer']:<32} {line['steps']:>7} {line['seconds']:>8.1f} {line['steps_per_s']:>8.0f} "
            f"{100 * line['sampling']:>8.0f}% {100 * line['learner']:>7.0f}%",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(lines, indent=1))
    return lines


if __name__ == "__main__":
    main()
