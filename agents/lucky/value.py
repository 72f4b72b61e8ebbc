"""How good a board is, for the scripted agents: filled cells first, then room for future tiles.

Each empty cell accepts the numbers strictly between the largest tile before it (left in its
row, above in its column) and the smallest tile after it; its *room* is how many numbers that
is. A cell with no room can only be filled after a swap changes its row or column. The value
of a board is ``fill`` per tile plus ``room_weight`` * sqrt(room) per empty cell, minus
``dead`` per empty cell without room.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from luckynumbers_env.engine import _LINE_CACHES, geometry, line_bounds


@dataclass(frozen=True)
class Weights:
    fill: float = 1.0
    room_weight: float = 0.25
    dead: float = 0.6


@lru_cache(maxsize=64)
def room_table(top: int, w: Weights) -> tuple[float, ...]:
    """Value of an empty cell by its room 0..top."""
    return tuple(-w.dead if room <= 0 else w.room_weight * math.sqrt(room) for room in range(top + 1))


class BoardValue:
    """Board values and the change of value when one tile goes on one cell."""

    def __init__(self, size: int, max_tile: int, weights: Weights = Weights()) -> None:
        self.size, self.top = size, max_tile + 1
        self.w = weights
        self.room = room_table(self.top, weights)
        self.cache = _LINE_CACHES.setdefault((size, max_tile), {})
        self.lines = geometry(size)[3]

    def _line(self, key: tuple[int, ...]) -> tuple[list[int], list[int]]:
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = line_bounds(key, self.top)
        return found

    def cell_values(self, b: list[int], cells) -> float:
        size, room = self.size, self.room
        total = 0.0
        rows: dict[int, tuple] = {}
        cols: dict[int, tuple] = {}
        for c in cells:
            if b[c]:
                total += self.w.fill
                continue
            r, k = divmod(c, size)
            rb = rows.get(r)
            if rb is None:
                rb = rows[r] = self._line(tuple(b[r * size:(r + 1) * size]))
            cb = cols.get(k)
            if cb is None:
                cb = cols[k] = self._line(tuple(b[k::size]))
            lo = rb[0][k] if rb[0][k] > cb[0][r] else cb[0][r]
            hi = rb[1][k] if rb[1][k] < cb[1][r] else cb[1][r]
            total += room[hi - lo - 1 if hi - lo > 1 else 0]
        return total

    def value(self, b: list[int]) -> float:
        return self.cell_values(b, range(len(b)))

    def gain(self, b: list[int], cell: int, tile: int) -> float:
        """Value after putting ``tile`` on ``cell`` minus the value now (only its row and column change)."""
        cells = self.lines[cell]
        before = self.cell_values(b, cells)
        old = b[cell]
        b[cell] = tile
        after = self.cell_values(b, cells)
        b[cell] = old
        return after - before
