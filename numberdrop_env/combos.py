"""Combination search: which cells may join the combination being selected.

A combination is chosen one cell at a time. An identical set grows by any cell next
to the cells already chosen; a consecutive combination grows as a path from its last
cell, ascending or descending. Every legal combination can be chosen this way, and
a cell is offered only when some legal combination with an open box still contains
the selection: selection never dead-ends.

Two facts make this exact without enumerating combinations:

* a connected set inside a connected region can always be grown one neighbour at a
  time up to the region's size, so an identical selection can reach any size between
  its own and the size of its same-valued region;
* values strictly increase along a consecutive path, so a path never revisits a
  cell, and the longest path continuing from a cell is a dynamic programme over
  values (``up`` / ``down``); every shorter length is reachable by stopping early.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from .rules import Rules
from .shapes import Cell
from .sheet import CONSECUTIVE, IDENTICAL, Sheet


@lru_cache(maxsize=8)
def neighbour_table(rows: int, cols: int) -> np.ndarray:
    """(rows*cols, 4) flat indices of the orthogonal neighbours; ``rows*cols`` pads."""
    n = rows * cols
    out = np.full((n, 4), n, np.int64)
    for i in range(n):
        r, c = divmod(i, cols)
        for k, (dr, dc) in enumerate(((1, 0), (-1, 0), (0, 1), (0, -1))):
            if 0 <= r + dr < rows and 0 <= c + dc < cols:
                out[i, k] = (r + dr) * cols + c + dc
    return out


@dataclass(frozen=True)
class ComboIndex:
    """Everything the selection mask needs about one sheet, computed once per turn."""

    values: np.ndarray  # (n+1,) flat values, pad = -100 so no neighbour relation holds
    free: np.ndarray  # (n+1,) unused number cells
    region: np.ndarray  # (n,) size of the same-valued connected region of free cells
    up: np.ndarray  # (n+1,) longest ascending path starting at the cell
    down: np.ndarray  # (n+1,) longest descending path starting at the cell
    identical_ok: np.ndarray  # (bonus+2,) prefix counts of open identical sizes
    consecutive_ok: np.ndarray  # same for consecutive sizes
    nbr: np.ndarray
    cols: int

    @classmethod
    def build(cls, sheet: Sheet) -> "ComboIndex":
        r = sheet.rules
        nbr = neighbour_table(r.rows, r.cols)
        n = r.rows * r.cols
        flat = sheet.values.reshape(-1).astype(np.int64)
        free = np.zeros(n + 1, bool)
        free[:n] = (flat >= 0) & (flat <= r.max_number) & ~sheet.used.reshape(-1)
        values = np.full(n + 1, -100, np.int64)
        values[:n] = np.where(free[:n], flat, -100)
        return cls(
            values=values,
            free=free,
            region=_region_sizes(values, free, nbr),
            up=_path_lengths(values, free, nbr, +1),
            down=_path_lengths(values, free, nbr, -1),
            identical_ok=_prefix_counts(sheet.open_sizes(IDENTICAL), r),
            consecutive_ok=_prefix_counts(sheet.open_sizes(CONSECUTIVE), r),
            nbr=nbr,
            cols=r.cols,
        )

    def any_open(self, counts: np.ndarray, lo: np.ndarray | int, hi: np.ndarray | int) -> np.ndarray:
        """Whether some open size k satisfies max(3, lo) <= k <= hi (vectorised)."""
        top = len(counts) - 1
        lo = np.clip(np.maximum(lo, 3), 0, top + 1)
        hi = np.clip(hi, 0, top)
        return (hi >= lo) & (counts[hi] > counts[np.minimum(lo, top + 1) - 1])

    def options(self, selection: Sequence[Cell]) -> tuple[np.ndarray, bool]:
        """Flat bool mask of cells that may be added next, and whether to allow confirm."""
        n = len(self.region)
        idx = [r * self.cols + c for r, c in selection]
        size = len(idx)
        cand = np.zeros(n, bool)
        if size == 0:
            cand = self.free[:n] & (
                self.any_open(self.identical_ok, 3, self.region)
                | self.any_open(self.consecutive_ok, 3, np.maximum(self.up, self.down)[:n])
            )
            return cand, False
        kind = self.kind(idx)
        tail = idx[-1]
        if kind == IDENTICAL:
            nb = np.unique(self.nbr[idx].reshape(-1))
            nb = nb[(nb < n) & (self.values[nb] == self.values[tail]) & self.free[nb]]
            nb = nb[~np.isin(nb, idx)]
            if self.any_open(self.identical_ok, size + 1, self.region[tail]):
                cand[nb] = True
            return cand, bool(size >= 3 and self.any_open(self.identical_ok, size, size))
        nb = self.nbr[tail]
        nb = nb[(nb < n) & self.free[nb]]
        for step, longest in ((+1, self.up), (-1, self.down)):
            if kind is not None and kind != (step > 0):
                continue
            ok = nb[self.values[nb] == self.values[tail] + step]
            cand[ok] = self.any_open(self.consecutive_ok, size + 1, size + longest[ok])
        if size == 1:
            same = nb[self.values[nb] == self.values[tail]]
            cand[same] = self.any_open(self.identical_ok, 2, self.region[tail])
            return cand, False
        return cand, bool(size >= 3 and self.any_open(self.consecutive_ok, size, size))

    def kind(self, idx: Sequence[int]) -> str | bool | None:
        """``IDENTICAL``, True (ascending), False (descending) or None for one cell."""
        if len(idx) < 2:
            return None
        step = self.values[idx[1]] - self.values[idx[0]]
        return IDENTICAL if step == 0 else bool(step > 0)


def _prefix_counts(sizes: list[int], rules: Rules) -> np.ndarray:
    counts = np.zeros(rules.bonus_size + 1, np.int64)
    counts[sizes] = 1
    return np.cumsum(counts)


def _region_sizes(values: np.ndarray, free: np.ndarray, nbr: np.ndarray) -> np.ndarray:
    n = len(nbr)
    same = free[:n, None] & free[nbr] & (values[nbr] == values[:n, None])
    label = np.append(np.where(free[:n], np.arange(n), n), n)
    while True:
        spread = np.where(same, label[nbr], n).min(axis=1)
        new = np.minimum(label[:n], spread)
        if np.array_equal(new, label[:n]):
            break
        label[:n] = new
    sizes = np.bincount(label[:n], minlength=n + 1)
    return np.where(free[:n], sizes[label[:n]], 0)


def _path_lengths(values: np.ndarray, free: np.ndarray, nbr: np.ndarray, step: int) -> np.ndarray:
    """Longest monotone path from each free cell, by relaxing until nothing grows."""
    n = len(nbr)
    follows = free[nbr] & (values[nbr] == values[:n, None] + step)
    length = free.astype(np.int64)
    while True:
        grown = np.where(free[:n], 1 + np.where(follows, length[nbr], 0).max(axis=1), 0)
        if np.array_equal(grown, length[:n]):
            return length
        length[:n] = grown

