"""Training from one YAML config (the command line: ``python train.py``, :mod:`agents.cli.train`).

    python train.py --config configs/ppo_turn.yaml
    python train.py --config configs/ppo_turn.yaml --resume runs/ppo_turn/checkpoints/ppo_40448_steps.zip
    python train.py --config configs/ppo_turn.yaml --resume runs/ppo_turn      # its newest good checkpoint
    python train.py --config configs/lucky_ppo.yaml                            # game: luckynumbers
    python train.py --config configs/rllib_ppo.yaml                            # backend: rllib (Ray)
    python train.py --config configs/ppo_smoke.yaml --total-steps 2000 --output-dir /tmp/smoke

One config schema (:mod:`agents.training.config`): ``game:`` and ``backend:`` choose what
trains. The trainer of a backend loads by name (:data:`TRAINERS`), so the config is checked,
and a missing extra named, before torch or Ray is imported. The run directory
(``runs/<experiment>/``) receives what :mod:`agents.training.sb3` (or
:mod:`agents.training.rllib.train`) describes. Checkpoints follow PPO updates; ``--resume``
continues exactly where a run stopped; Ctrl-C stops at the next update with a checkpoint and
prints the command that resumes.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..registry import load
from .checkpoints import find_folder_checkpoint
from .config import TrainConfig

TRAINERS = {
    "sb3": "agents.training.sb3:train [train]",
    "rllib": "agents.training.rllib.train:train [rllib]",
    "expert": "agents.training.expert:train [train]",
    "rerank": "agents.training.rerank:train [train]",
}
"""The trainer of each ``backend`` (and of ``algorithm: expert_iteration`` and ``rerank``), with the
extra it needs."""
FIND_CHECKPOINT = "agents.training.resume:find_checkpoint [train]"
FIND_STATE = "agents.training.expert:find_state [train]"
FIND_RERANK_STATE = "agents.training.rerank:find_state [train]"


def find_resume(path: Path, trainer: str) -> Path:
    """The checkpoint ``--resume`` names, or a run directory's newest; a damaged one is
    reported and the previous good one taken (``FileNotFoundError``/``ValueError`` when none).
    An expert-iteration or re-ranker run resumes from its directory (its last finished generation)."""
    if trainer == "rllib":
        return find_folder_checkpoint(path)
    if trainer == "expert":
        return load(FIND_STATE, "resuming an expert-iteration run")(path)
    if trainer == "rerank":
        return load(FIND_RERANK_STATE, "resuming a re-ranker run")(path)
    return load(FIND_CHECKPOINT, "resuming an SB3 run")(path)


def train(cfg: TrainConfig, args: argparse.Namespace) -> dict[str, Any]:
    """Train as the config says; returns the run's numbers, or ``interrupted: True`` and the
    checkpoint to resume from when Ctrl-C stopped it."""
    return load(TRAINERS[cfg.trainer], f"backend {cfg.backend!r}")(cfg, args)
