"""Training from one YAML config (``python train.py``, ``numberdrop-train``).

    python train.py --config configs/ntuple.yaml                               # algorithm: ntuple (make train)
    python train.py --config configs/q_iteration.yaml                          # algorithm: q_iteration
    python train.py --config configs/ppo_turn.yaml                             # algorithm: ppo (the default)
    python train.py --config configs/ppo_turn.yaml --resume runs/ppo_turn      # its newest good checkpoint
    python train.py --config configs/lucky_ppo.yaml                            # game: luckynumbers
    python train.py --config configs/rllib_ppo.yaml                            # backend: rllib (Ray)
    python train.py --config configs/ppo_smoke.yaml --total-steps 2000 --output-dir /tmp/smoke

``algorithm:`` picks the trainer module. ``--resume`` continues where a run stopped; Ctrl-C
stops at the next update with a checkpoint and prints the command that resumes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agents.cli.common import Parser
from agents.registry import load
from agents.training.checkpoints import resume_command
from agents.training.config import TrainConfig, load_config
from numberdrop_env.compile_progress import CompileProgress


def build_parser() -> argparse.ArgumentParser:
    parser = Parser("python train.py", __doc__)
    parser.add_argument("--config", required=True, type=Path, help="YAML experiment config (configs/*.yaml)")
    parser.add_argument(
        "--resume",
        type=Path,
        help="checkpoint .zip to continue from (an RLlib run: a checkpoint "
        "directory; a run directory: its newest good checkpoint): keeps "
        "its weights and step count, takes the config's PPO settings",
    )
    parser.add_argument("--total-steps", type=int, help="override total_timesteps")
    parser.add_argument("--output-dir", help="override output_dir (the run directory)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return parser


def find_resume(path: Path, cfg: TrainConfig) -> Path:
    """The checkpoint or run state ``--resume`` names (a damaged checkpoint is reported and the
    previous good one taken)."""
    return load(cfg.resume_entry, f"resuming a {cfg.trainer} run")(path)


def train(cfg: TrainConfig, args: argparse.Namespace) -> dict[str, Any]:
    """The run's numbers, or ``interrupted: True`` and the checkpoint to resume from."""
    return load(cfg.trainer_entry, f"the {cfg.trainer} trainer")(cfg, args)


def prepare(argv: list[str] | None = None) -> tuple[TrainConfig, argparse.Namespace]:
    """Parse the command line and validate the config: every error surfaces here, before any training."""
    args = build_parser().parse_args(argv)
    cfg = load_config(args.config)
    if args.total_steps is not None:
        if cfg.length != "total_timesteps":
            raise ValueError(f"--total-steps does not apply to algorithm {cfg.algorithm!r}: it runs {cfg.length}")
        if args.total_steps <= 0:
            raise ValueError(f"--total-steps must be > 0, got {args.total_steps}")
        cfg.total_timesteps = args.total_steps
    if args.output_dir is not None:
        cfg.output_dir = args.output_dir
    if args.resume is not None:
        args.resume = find_resume(args.resume, cfg)
    return cfg, args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return train(*prepare(argv))


def cli(argv: list[str] | None = None) -> int:
    """``python train.py``: exit status 0 when the run finished, 130 when Ctrl-C stopped it, 2 on a bad config."""
    try:
        config, arguments = prepare(argv)
    except (ValueError, TypeError, FileNotFoundError, ImportError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        with CompileProgress():  # a line while numba compiles (a fresh install)
            outcome = train(config, arguments)
    except KeyboardInterrupt:  # a second Ctrl-C: the newest checkpoint and how to resume it
        try:
            checkpoint = find_resume(config.run_dir, config)
            resume = resume_command(arguments.config, checkpoint)
            said = f"interrupted; newest checkpoint {checkpoint}\nto continue: {resume}"
        except (FileNotFoundError, ValueError):
            said = "interrupted: no checkpoint yet; run the same command to start again"
        print(f"\n{said}", file=sys.stderr)
        return 130
    return 130 if outcome.get("interrupted") else 0
