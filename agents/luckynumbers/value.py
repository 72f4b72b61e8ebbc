"""How good a board is, for the scripted agents: ``fill`` per tile plus ``room_weight`` *
sqrt(room) per empty cell (room: the numbers it still accepts between its neighbours' bounds,
each weighted by the share of its ``copies`` that can still come), minus ``dead`` per cell without room.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from luckynumbers_env.engine.game import geometry, line_bounds


@dataclass(frozen=True)
class Weights:
    fill: float = 1.0
    room_weight: float = 0.25
    dead: float = 0.6


def cell_table(top: int, w: Weights, copies: Sequence[float] | None = None) -> list[list[float]]:
    """Value of an empty cell, ``[lo][hi]``, by the largest tile before it (``lo``) and the smallest
    after it (``hi``). Its room is ``hi - lo - 1`` numbers, or with ``copies`` (indexed by number)
    the sum of their shares."""
    below = [0.0, 0.0]  # below[x]: the room of the numbers 1..x-1
    for v in range(1, top):
        below.append(below[-1] + (1.0 if copies is None else copies[v]))
    return [
        [_empty_cell(below[hi] - below[lo + 1] if hi > lo + 1 else 0.0, w) for hi in range(top + 1)]
        for lo in range(top + 1)
    ]


def _empty_cell(room: float, w: Weights) -> float:
    """More room is worth less and less (sqrt); a cell without room needs a swap first."""
    return w.room_weight * math.sqrt(room) if room > 1e-9 else -w.dead


class BoardValue:
    """Board values and the change of value when one tile goes on one cell."""

    def __init__(
        self, size: int, max_tile: int, weights: Weights = Weights(), copies: Sequence[float] | None = None
    ) -> None:
        self.size, self.top = size, max_tile + 1
        self.w = weights
        self.empty = cell_table(self.top, weights, copies)
        self.lines = geometry(size)[1]

    def _line(self, key: tuple[int, ...]) -> tuple[list[int], list[int]]:
        return line_bounds(key, self.top)  # cached by the engine

    def cell_values(self, b: list[int], cells) -> float:
        size, empty = self.size, self.empty
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
                rb = rows[r] = self._line(tuple(b[r * size : (r + 1) * size]))
            cb = cols.get(k)
            if cb is None:
                cb = cols[k] = self._line(tuple(b[k::size]))
            lo = rb[0][k] if rb[0][k] > cb[0][r] else cb[0][r]
            hi = rb[1][k] if rb[1][k] < cb[1][r] else cb[1][r]
            total += empty[lo][hi]
        return total

    def bounds(self, b: list[int]) -> tuple[list[int], list[int]]:
        """Per cell of board ``b``: a tile placed there must be above ``lo`` and below ``hi``."""
        size = self.size
        rows = [self._line(tuple(b[r * size : (r + 1) * size])) for r in range(size)]
        cols = [self._line(tuple(b[k::size])) for k in range(size)]
        lo, hi = [], []
        for c in range(len(b)):
            r, k = divmod(c, size)
            lo.append(max(rows[r][0][k], cols[k][0][r]))
            hi.append(min(rows[r][1][k], cols[k][1][r]))
        return lo, hi

    def ranked(self, b: list[int], tile: int, bounds, before: dict[int, float]) -> list[tuple[float, int]]:
        """(gain, cell) of every legal cell for ``tile`` on board ``b`` within its ``bounds``, best
        first (ties in cell order)."""
        lo, hi = bounds
        out = [(self.gain(b, c, tile, before), c) for c in range(len(b)) if lo[c] < tile < hi[c] and b[c] != tile]
        out.sort(key=lambda gc: -gc[0])
        return out

    def value(self, b: list[int]) -> float:
        return self.cell_values(b, range(len(b)))

    def gain(self, b: list[int], cell: int, tile: int, before: dict[int, float] | None = None) -> float:
        """Value after putting ``tile`` on ``cell`` minus the value now (only its row and column
        change); ``before`` keeps the value of each cell's lines now, across tiles."""
        before = {} if before is None else before
        if cell not in before:
            before[cell] = self.cell_values(b, self.lines[cell])
        old = b[cell]
        b[cell] = tile
        after = self.cell_values(b, self.lines[cell])
        b[cell] = old
        return after - before[cell]
