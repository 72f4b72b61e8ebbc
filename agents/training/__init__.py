"""Training from one YAML config (``python train.py``, ``agents.cli.train``).

    python train.py --config configs/ntuple.yaml                               # algorithm: ntuple (make train)
    python train.py --config configs/q_iteration.yaml                          # algorithm: q_iteration
    python train.py --config configs/ppo_turn.yaml                             # algorithm: ppo (the default)
    python train.py --config configs/ppo_turn.yaml --resume runs/ppo_turn      # its newest good checkpoint
    python train.py --config configs/lucky_ppo.yaml                            # game: luckynumbers
    python train.py --config configs/rllib_ppo.yaml                            # backend: rllib (Ray)
    python train.py --config configs/ppo_smoke.yaml --total-steps 2000 --output-dir /tmp/smoke

Each algorithm is one trainer module with its schema beside it (``<trainer>_config``; the
shared sections and the loader in ``agents.training.config``). ``--resume`` continues exactly
where a run stopped; Ctrl-C stops at the next update with a checkpoint and prints the command
that resumes.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..registry import load
from .config import TrainConfig


def find_resume(path: Path, cfg: TrainConfig) -> Path:
    """The checkpoint ``--resume`` names, or a run directory's newest; a damaged one is
    reported and the previous good one taken (``FileNotFoundError``/``ValueError`` when none).
    A run in generations or rounds (Q-iteration, n-tuple) resumes from its directory (its last
    gate)."""
    return load(cfg.resume_entry, f"resuming a {cfg.trainer} run")(path)


def train(cfg: TrainConfig, args: argparse.Namespace) -> dict[str, Any]:
    """Train as the config says; returns the run's numbers, or ``interrupted: True`` and the
    checkpoint to resume from when Ctrl-C stopped it."""
    return load(cfg.trainer_entry, f"the {cfg.trainer} trainer")(cfg, args)
