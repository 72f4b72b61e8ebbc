"""The flat action space: every decision of a turn is one index of one ``Discrete``. With the
default 4x4 board and tiles 1..20 (43 actions): 0 draw, 1..20 take face-up tile v, 21..36 place
on cell 0..15 (a swap on a full cell), 37 discard, 38..41 setup on diagonal cell (k, k), 42 stop.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cached_property, lru_cache

import numpy as np

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


@dataclass(frozen=True, eq=False)
class ActionLayout:
    """Index ranges of the flat action space for one ``Rules``."""

    max_tile: int
    size: int

    @property
    def draw(self) -> int:
        return 0

    def take(self, tile: int) -> int:
        return tile

    @property
    def place0(self) -> int:
        return self.max_tile + 1

    def place(self, cell: int) -> int:
        return self.place0 + cell

    @property
    def discard(self) -> int:
        return self.place0 + self.size * self.size

    @property
    def setup0(self) -> int:
        return self.discard + 1

    def setup(self, k: int) -> int:
        return self.setup0 + k

    @property
    def stop(self) -> int:
        return self.setup0 + self.size

    @property
    def n(self) -> int:
        return self.stop + 1

    def decode(self, action: int) -> tuple[str, int]:
        """``(kind, argument)``: kind is draw, take (tile), place (cell), discard, setup (k) or stop."""
        if type(action) is int and 0 <= action < len(self.kinds):
            return self.kinds[action]
        if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
            action = action[()]  # a 0-d integer array, as the Number Drop envs accept
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"action must be an int, got {action!r}")
        if not 0 <= action < self.n:
            raise ValueError(f"action {int(action)} is outside 0..{self.n - 1}")
        return self.kinds[int(action)]

    @cached_property
    def kinds(self) -> tuple[tuple[str, int], ...]:
        return tuple(self._kind(a) for a in range(self.n))

    def _kind(self, a: int) -> tuple[str, int]:
        if a == self.draw:
            return "draw", 0
        if a < self.place0:
            return "take", a
        if a < self.discard:
            return "place", a - self.place0
        if a == self.discard:
            return "discard", 0
        if a < self.stop:
            return "setup", a - self.setup0
        return "stop", 0


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
