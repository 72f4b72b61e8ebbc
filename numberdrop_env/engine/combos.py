"""Which cells may join the combination being selected, exactly, without enumerating combinations:
a connected set grows one neighbour at a time up to its region's size, and values strictly rise
along a consecutive path, so the longest path from a cell is a dynamic programme over values.
A cell is offered only when some legal combination with an open box still contains the selection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit

from .shapes import Cell, neighbour_table
from .sheet import CONSECUTIVE, IDENTICAL, Sheet

_PAD_VALUE = -100  # value of non-free cells and of the padding cell: no neighbour relation holds
_NO_CELLS = np.zeros(0, np.int64)


@dataclass(frozen=True)
class ComboIndex:
    """Everything the selection mask needs about one sheet, computed once per turn."""

    values: np.ndarray  # (n+1,) flat values, pad = -100 so no neighbour relation holds
    free: np.ndarray  # (n+1,) unused number cells
    structures: np.ndarray  # (3, n+1): ``region``, ``up`` and ``down`` below, 0 off the free cells
    identical_ok: np.ndarray  # (bonus+1,) prefix counts of open identical sizes
    consecutive_ok: np.ndarray  # same for consecutive sizes
    nbr: np.ndarray
    cols: int

    @classmethod
    def build(cls, sheet: Sheet) -> ComboIndex:
        r = sheet.rules
        nbr = neighbour_table(r.rows, r.cols)
        values, free, structures = _structures(sheet.values.reshape(-1), sheet.used.reshape(-1), nbr, r.max_number)
        return cls(
            values=values,
            free=free,
            structures=structures,
            identical_ok=_prefix_counts(tuple(sheet.open_sizes(IDENTICAL)), r.bonus_size),
            consecutive_ok=_prefix_counts(tuple(sheet.open_sizes(CONSECUTIVE)), r.bonus_size),
            nbr=nbr,
            cols=r.cols,
        )

    @property
    def region(self) -> np.ndarray:
        """(n,) size of the same-valued connected region of each free cell."""
        return self.structures[0, :-1]

    @property
    def up(self) -> np.ndarray:
        """(n+1,) longest ascending path starting at each free cell."""
        return self.structures[1]

    @property
    def down(self) -> np.ndarray:
        """(n+1,) longest descending path starting at each free cell."""
        return self.structures[2]

    def options(self, selection: Sequence[Cell]) -> tuple[np.ndarray, bool]:
        """Flat bool mask of cells that may be added next, and whether to allow confirm."""
        out = np.zeros(len(self.region) + 1, bool)
        self.write_options(selection, out)
        return out[:-1], bool(out[-1])

    def write_options(self, selection: Sequence[Cell], out: np.ndarray) -> None:
        """``options`` written into a zeroed view of the mask's *select* and *confirm* actions."""
        idx = np.array([r * self.cols + c for r, c in selection], np.int64) if selection else _NO_CELLS
        _write_options(
            self.values, self.free, self.structures, self.identical_ok, self.consecutive_ok, self.nbr, idx, out
        )

    def kind(self, idx: Sequence[int]) -> str | bool | None:
        """``IDENTICAL``, True (ascending), False (descending) or None for one cell."""
        if len(idx) < 2:
            return None
        step = self.values[idx[1]] - self.values[idx[0]]
        return IDENTICAL if step == 0 else bool(step > 0)


@lru_cache(maxsize=1024)
def _prefix_counts(sizes: tuple[int, ...], bonus_size: int) -> np.ndarray:
    """Read-only and shared: there are few sets of open boxes, and every turn asks again."""
    counts = np.zeros(bonus_size + 1, np.int64)
    counts[list(sizes)] = 1
    counts = counts.cumsum()
    counts.flags.writeable = False
    return counts


@njit(cache=True)
def _structures(flat, used, nbr, max_number):
    """``values`` and ``free`` (padded), and the (3, n+1) region sizes and ``up`` / ``down`` path
    lengths (filled in value order, farthest values first)."""
    n = nbr.shape[0]
    values = np.full(n + 1, _PAD_VALUE, np.int64)
    free = np.zeros(n + 1, np.bool_)
    for i in range(n):
        if flat[i] >= 0 and flat[i] <= max_number and not used[i]:
            free[i] = True
            values[i] = flat[i]
    structures = np.zeros((3, n + 1), np.int64)
    region, up, down = structures[0], structures[1], structures[2]
    stack = np.empty(n, np.int64)
    members = np.empty(n, np.int64)
    for i in range(n):
        if free[i] and region[i] == 0:
            size = _flood(i, values, free, nbr, region, stack, members)
            for j in range(size):
                region[members[j]] = size
    for v in range(max_number, -1, -1):
        _extend_paths(v, +1, values, nbr, up)
    for v in range(max_number + 1):
        _extend_paths(v, -1, values, nbr, down)
    return values, free, structures


@njit(cache=True)
def _flood(start, values, free, nbr, region, stack, members):
    """Collect the same-valued free region of ``start`` into ``members``; returns its size."""
    region[start] = -1
    stack[0], top, size = start, 1, 0
    while top > 0:
        top -= 1
        j = stack[top]
        members[size] = j
        size += 1
        for q in range(4):
            k = nbr[j, q]
            if free[k] and region[k] == 0 and values[k] == values[start]:
                region[k] = -1
                stack[top] = k
                top += 1
    return size


@njit(cache=True)
def _extend_paths(v, step, values, nbr, length):
    """Lengths of the paths from cells of value ``v``; those from ``v + step`` are known."""
    for i in range(nbr.shape[0]):
        if values[i] == v:
            best = 0
            for q in range(4):
                k = nbr[i, q]
                if values[k] == v + step and length[k] > best:
                    best = length[k]
            length[i] = best + 1


@njit(cache=True)
def _any_open(counts, lo, hi):
    """Whether some open size k satisfies max(3, lo) <= k <= hi."""
    top = len(counts) - 1
    lo = min(max(lo, 3), top + 1)
    hi = min(max(hi, 0), top)
    return hi >= lo and counts[hi] > counts[lo - 1]


@njit(cache=True)
def _write_options(values, free, structures, identical_ok, consecutive_ok, nbr, idx, out):
    """``ComboIndex.write_options`` for the selection ``idx`` (flat cells, in order)."""
    n = nbr.shape[0]
    region, up, down = structures[0], structures[1], structures[2]
    size = len(idx)
    if size == 0:
        for i in range(n):
            out[i] = free[i] and (
                _any_open(identical_ok, 3, region[i]) or _any_open(consecutive_ok, 3, max(up[i], down[i]))
            )
        return
    tail = idx[-1]
    step = values[idx[1]] - values[idx[0]] if size >= 2 else 2  # 2: one cell, any kind
    if step == 0:
        _identical_options(values, free, region, identical_ok, nbr, idx, out)
        return
    for q in range(4):
        k = nbr[tail, q]
        if not free[k]:
            continue
        if values[k] == values[tail] + 1 and step != -1:
            out[k] = _any_open(consecutive_ok, size + 1, size + up[k])
        elif values[k] == values[tail] - 1 and step != 1:
            out[k] = _any_open(consecutive_ok, size + 1, size + down[k])
        elif values[k] == values[tail] and size == 1:
            out[k] = _any_open(identical_ok, 2, region[tail])
    out[n] = size >= 3 and _any_open(consecutive_ok, size, size)


@njit(cache=True)
def _identical_options(values, free, region, identical_ok, nbr, idx, out):
    """An identical selection grows by any free same-valued neighbour of any of its cells."""
    size = len(idx)
    tail = idx[-1]
    if _any_open(identical_ok, size + 1, region[tail]):
        for j in range(size):
            for q in range(4):
                k = nbr[idx[j], q]
                if free[k] and values[k] == values[tail] and not _contains(idx, k):
                    out[k] = True
    out[nbr.shape[0]] = size >= 3 and _any_open(identical_ok, size, size)


@njit(cache=True)
def _contains(idx, k):
    """``k in idx`` for an array."""
    for i in idx:
        if i == k:
            return True
    return False
