"""The policy protocol every agent follows, scripted, search or learned, and where the
shipped models are."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from numberdrop_env.engine.solo import SoloGame

MODELS = Path(__file__).resolve().parent / "models"
TRAINED_BY = {
    "ppo_turn.zip": "configs/ppo_turn.yaml",
    "q_turn.zip": "configs/q_iteration.yaml",
    "lucky_ppo.zip": "configs/lucky_search_clone.yaml",
}
"""The config that trains each shipped network (named when the file is missing)."""

# schedules are only needed to keep training; replacing them makes loading independent of
# how (and with which Python) they were pickled
INFERENCE_OBJECTS = {"learning_rate": 0.0, "lr_schedule": lambda _: 0.0, "clip_range": lambda _: 0.0}


def load_model(path: str | Path, device: str = "cpu") -> Any:
    """Load a MaskablePPO ``.zip`` for inference (the ``train`` extra)."""
    from sb3_contrib import MaskablePPO

    path = Path(path)
    if path.suffix != ".zip" and path.with_suffix(".zip").is_file():
        path = path.with_suffix(".zip")
    if not path.is_file():
        config = TRAINED_BY.get(path.name) if path.parent == MODELS else None
        hint = f" (train one with `python train.py --config {config}`)" if config else ""
        raise FileNotFoundError(f"PPO model {str(path)!r} not found{hint}")
    return MaskablePPO.load(str(path), device=device, custom_objects=INFERENCE_OBJECTS)


@runtime_checkable
class Policy(Protocol):
    """Chooses one legal action for the decision pending in ``game``; ``reset(seed)`` before each
    game makes a random policy replay the same game for the same seed. At a multiplayer table
    ``game`` is a ``Seat``, whose ``rivals`` and ``sheet.crossed`` a solo policy may ignore."""

    name: str

    def reset(self, seed: int) -> None: ...

    def act(self, game: SoloGame, mask: np.ndarray) -> int: ...


@runtime_checkable
class TurnPlayer(Protocol):
    """A policy that can play the rest of a rolled turn in one move: ``play_turn(game)`` leaves
    ``game`` where ``act`` would have, and returns how many decisions that was (0: declined)."""

    def play_turn(self, game: SoloGame) -> int: ...


class RandomPolicy:
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, game: SoloGame, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(len(legal))])
