"""The flat action space: every decision of a turn is one index of one ``Discrete``. With the
default 4x4 board and tiles 1..20 (43 actions): 0 draw, 1..20 take face-up tile v, 21..36 place
on cell 0..15 (a swap on a full cell), 37 discard, 38..41 setup on diagonal cell (k, k), 42 stop.
"""

from __future__ import annotations

from enum import Enum
from functools import lru_cache

import numpy as np

from gamekit.checks import as_action

from .rules import Rules


class Phase(str, Enum):
    """What the player to act decides now."""

    SETUP = "setup"
    """Michael's setup: where on the diagonal the drawn tile goes."""
    CHOOSE = "choose"
    """Draw from the pool or take a face-up tile (or, for Bruno's extra action, stop)."""
    PLACE = "place"
    """Where the tile in hand goes (or, for a drawn tile, onto the table)."""
    OVER = "over"


PHASE_CODES = {phase: code for code, phase in enumerate(Phase)}
"""``info["phase_code"]`` of the environments: 0 setup, 1 choose, 2 place, 3 over."""


def phase_code(phase: Phase) -> np.int64:
    """The integer of a phase (``PHASE_CODES``): tools that stack infos into arrays take no strings."""
    return np.int64(PHASE_CODES[phase])


class ActionLayout:
    """Index ranges of the flat action space for one board ``size`` and top tile."""

    draw = 0

    def __init__(self, max_tile: int, size: int) -> None:
        self.max_tile, self.size = max_tile, size
        self.place0 = max_tile + 1
        self.discard = self.place0 + size * size
        self.setup0 = self.discard + 1
        self.stop = self.setup0 + size
        self.n = self.stop + 1
        kinds = [("draw", 0)] + [("take", v) for v in range(1, self.place0)]
        kinds += [("place", c) for c in range(size * size)] + [("discard", 0)]
        self.kinds = tuple(kinds + [("setup", k) for k in range(size)] + [("stop", 0)])
        """``(kind, argument)`` of every action, as ``decode`` gives it."""

    def take(self, tile: int) -> int:
        return tile

    def place(self, cell: int) -> int:
        return self.place0 + cell

    def setup(self, k: int) -> int:
        return self.setup0 + k

    def decode(self, action: int) -> tuple[str, int]:
        """``(kind, argument)``: kind is draw, take (tile), place (cell), discard, setup (k) or stop."""
        if type(action) is int and 0 <= action < self.n:  # agents' own ints: no checks to pay
            return self.kinds[action]
        return self.kinds[as_action(action, self.n)]


@lru_cache(maxsize=32)
def layout_for(rules: Rules) -> ActionLayout:
    return ActionLayout(rules.max_tile, rules.size)


def describe(rules: Rules, action: int, tile: int | None = None, occupant: int = 0) -> str:
    """One action in the game's words; ``tile`` is the tile in hand, ``occupant`` the tile on the cell."""
    kind, arg = layout_for(rules).decode(action)
    hand = f"tile {tile}" if tile else "the tile"
    if kind == "draw":
        return "draw a tile from the pool"
    if kind == "take":
        return f"take face-up tile {arg} from the table"
    if kind == "place":
        r, c = divmod(arg, rules.size)
        if occupant:
            return f"place {hand} on row {r}, column {c}, swapping tile {occupant} onto the table"
        return f"place {hand} on row {r}, column {c}"
    if kind == "discard":
        return f"put {hand} face up on the table"
    if kind == "setup":
        return f"put {hand} on diagonal cell ({arg}, {arg})"
    return "stop: end the turn without the extra action"
