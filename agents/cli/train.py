"""Training from one YAML config: ``numberdrop-train --config NAME`` (in a checkout, ``python
train.py`` is the same command). NAME is a shipped config (``configs/NAME.yaml`` of the checkout,
in the package of an install, found from any folder) or the path of your own.

    numberdrop-train --config ntuple                               # algorithm: ntuple (make train)
    numberdrop-train --config q_iteration                          # algorithm: q_iteration
    numberdrop-train --config ppo_turn                             # algorithm: ppo (the default)
    numberdrop-train --config ppo_turn --resume runs/ppo_turn      # its newest good checkpoint
    numberdrop-train --config lucky_ppo                            # game: luckynumbers
    numberdrop-train --config rllib_ppo                            # backend: rllib (Ray)
    numberdrop-train --config ppo_smoke --total-steps 2000 --output-dir /tmp/smoke
    numberdrop-train --config my_run.yaml                          # a config of your own

``algorithm:`` picks the trainer module. ``--resume`` continues where a run stopped; Ctrl-C
stops at the next update with a checkpoint and prints the command that resumes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agents.cli.common import Parser, closed_pipe
from agents.registry import load, require_entry
from agents.training.checkpoints import resume_command
from agents.training.config import TrainConfig, load_config, shipped_configs
from numberdrop_env.compile_progress import CompileProgress

PROG = "numberdrop-train"


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = Parser(prog, __doc__)
    parser.add_argument(
        "--config",
        required=True,
        help=f"a shipped config by name ({', '.join(shipped_configs())}) or a YAML file's path",
    )
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


def prepare(argv: list[str] | None = None, prog: str = PROG) -> tuple[TrainConfig, argparse.Namespace]:
    """Parse the command line, validate the config and check the extra its trainer needs: every
    error surfaces here, before any training."""
    args = build_parser(prog).parse_args(argv)
    cfg = load_config(args.config)
    require_entry(cfg.trainer_entry, f"the {cfg.trainer} trainer")
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


def cli(argv: list[str] | None = None, prog: str = PROG) -> int:
    """Exit status 0 when the run finished, 130 when Ctrl-C stopped it, 2 on a bad config or a
    missing extra (one line), 141 when the output's reader left."""
    try:
        config, arguments = prepare(argv, prog)
    except (ValueError, TypeError, FileNotFoundError, ImportError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    try:
        with CompileProgress():  # a line while numba compiles (a fresh install)
            outcome = train(config, arguments)
            sys.stdout.flush()
    except BrokenPipeError:
        return closed_pipe()
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


if __name__ == "__main__":
    sys.exit(cli(prog=f"python -m {__spec__.name if __spec__ else 'agents.cli.train'}"))
