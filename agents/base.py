"""The policy protocol every agent follows, scripted, search or learned, and where the
shipped models are."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from numberdrop_env.engine.solo import SoloGame

MODELS = Path(__file__).resolve().parent / "models"
"""The shipped model files (``agents/models/*.zip``)."""

# schedules are only needed to keep training; replacing them makes loading independent of
# how (and with which Python) they were pickled
INFERENCE_OBJECTS = {"learning_rate": 0.0, "lr_schedule": lambda _: 0.0, "clip_range": lambda _: 0.0}


def load_model(path: str | Path, device: str = "cpu", hint: str = "") -> Any:
    """Load a MaskablePPO ``.zip`` for inference (the ``train`` extra); a clear error, with
    ``hint``, when the file is missing."""
    from sb3_contrib import MaskablePPO

    path = Path(path)
    if path.suffix != ".zip" and path.with_suffix(".zip").is_file():
        path = path.with_suffix(".zip")
    if not path.is_file():
        raise FileNotFoundError(f"PPO model {str(path)!r} not found{hint}")
    return MaskablePPO.load(str(path), device=device, custom_objects=INFERENCE_OBJECTS)


@runtime_checkable
class Policy(Protocol):
    """Chooses one legal action for the decision pending in ``game``.

    ``reset(seed)`` is called before each game, so a policy that draws random
    numbers plays the same way for the same seed.

    At a multiplayer table ``game`` is a ``numberdrop_env.engine.table.Seat``: a ``SoloGame``
    without slides, whose ``rivals`` give, per letter, the share of opponents who circled
    it and who scored one of its two boxes, and whose ``sheet.crossed`` marks the letters
    crossed off. A policy that ignores them plays a seat as it plays solo.
    """

    name: str

    def reset(self, seed: int) -> None: ...

    def act(self, game: SoloGame, mask: np.ndarray) -> int: ...


@runtime_checkable
class TurnPlayer(Protocol):
    """A policy that can also play the rest of a rolled turn in one move.

    ``play_turn(game)`` leaves ``game`` where ``act`` would have taken it decision by
    decision, and returns how many decisions that was (0 when it declines the turn, which
    is then played through ``act``). Jumping to the turn's afterstate skips the checked
    replay of every decision, so whole games play faster with the same moves.
    """

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
