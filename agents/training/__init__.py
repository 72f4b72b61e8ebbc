"""Training from one YAML config (the command line: ``python train.py``, ``agents.cli.train``).

    python train.py --config configs/ntuple.yaml                               # algorithm: ntuple (make train)
    python train.py --config configs/q_iteration.yaml                          # algorithm: q_iteration
    python train.py --config configs/ppo_turn.yaml
    python train.py --config configs/ppo_turn.yaml --resume runs/ppo_turn/checkpoints/ppo_40448_steps.zip
    python train.py --config configs/ppo_turn.yaml --resume runs/ppo_turn      # its newest good checkpoint
    python train.py --config configs/lucky_ppo.yaml                            # game: luckynumbers
    python train.py --config configs/rllib_ppo.yaml                            # backend: rllib (Ray)
    python train.py --config configs/ppo_smoke.yaml --total-steps 2000 --output-dir /tmp/smoke

One schema per trainer (``agents.training.config``): ``game:``, ``backend:`` and
``algorithm:`` choose what trains. The trainer loads by name (``TRAINERS``), so the config
is checked, and a missing extra named, before torch or Ray is imported. The run directory
(``runs/<experiment>/``) receives what ``agents.training.ntuple``, ``agents.training.sb3``,
``agents.training.rllib.train``, ``agents.training.q_iteration`` or
``agents.training.rerank`` describes. Checkpoints follow each trainer's rounds; ``--resume``
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
    "q_iteration": "agents.training.q_iteration:train [train]",
    "rerank": "agents.training.rerank:train [train]",
    "ntuple": "agents.training.ntuple:train [train]",
}
"""Each trainer (a config's ``trainer``), with the extra it needs."""
FIND_CHECKPOINT = "agents.training.resume:find_checkpoint [train]"
FIND_STATE = {
    "q_iteration": "agents.training.q_iteration:find_state [train]",
    "rerank": "agents.training.rerank:find_state [train]",
    "ntuple": "agents.training.ntuple:find_state [train]",
}
"""Where the trainers in generations find the state ``--resume`` continues from."""


def find_resume(path: Path, trainer: str) -> Path:
    """The checkpoint ``--resume`` names, or a run directory's newest; a damaged one is
    reported and the previous good one taken (``FileNotFoundError``/``ValueError`` when none).
    A run in generations (Q-iteration, the re-ranker) resumes from its directory (its last
    finished generation)."""
    if trainer == "rllib":
        return find_folder_checkpoint(path)
    if trainer in FIND_STATE:
        return load(FIND_STATE[trainer], f"resuming a {trainer} run")(path)
    return load(FIND_CHECKPOINT, "resuming an SB3 run")(path)


def train(cfg: TrainConfig, args: argparse.Namespace) -> dict[str, Any]:
    """Train as the config says; returns the run's numbers, or ``interrupted: True`` and the
    checkpoint to resume from when Ctrl-C stopped it."""
    return load(TRAINERS[cfg.trainer], f"the {cfg.trainer} trainer")(cfg, args)
