"""Where a shape lands and what the sheet's shape is worth (``heuristic.Context.geometry``),
compiled; sums follow it operation by operation (NumPy's pairwise sum included).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.placements import landing_row
from ..engine.rules import EMPTY
from .packing import F_BUMP, F_HIGH, F_HOLE, F_HOLE_ROW, F_ROW_FILL, I_COLS, I_LINE_PTS, I_PEN_PTS, I_REG, I_ROWS

PAIRWISE, SEQUENTIAL = np.bool_(True), np.bool_(False)
"""``geometry``'s ways to sum the rows, numpy booleans: one compiled signature (``slides.BLOCK_DROP``)."""


@njit(cache=True)
def legal_placements(heights, allowed, rules, out):
    """Fill ``out`` with the legal (placement, landing row) of the allowed shapes; returns how many."""
    rows = rules.ints[I_ROWS]
    dr, cc, bottom, top, fits, owner = rules.dr, rules.cc, rules.bottom, rules.top, rules.fits, rules.owner
    n = 0
    for p in range(dr.shape[0]):
        if fits[p] and allowed[owner[p]]:
            r0 = landing_row(p, heights, cc, bottom)
            if r0 + top[p] < rows:
                out[n, 0] = p
                out[n, 1] = r0
                n += 1
    return n


@njit(cache=True)
def any_legal(heights, allowed, rules):
    """Whether one of the allowed shapes has a legal placement."""
    rows = rules.ints[I_ROWS]
    cc, bottom, top, fits, owner = rules.cc, rules.bottom, rules.top, rules.fits, rules.owner
    for p in range(rules.dr.shape[0]):
        if fits[p] and allowed[owner[p]] and landing_row(p, heights, cc, bottom) + top[p] < rows:
            return True
    return False


@njit(cache=True)
def pairwise_sum(x):
    """NumPy's sum of a short contiguous float64 row (pairwise: eight partial sums first)."""
    n = x.shape[0]
    if n < 8:
        s = 0.0
        for v in x:
            s += v
        return s
    r0, r1, r2, r3, r4, r5, r6, r7 = x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
    i = 8
    while i + 8 <= n:
        r0 += x[i]
        r1 += x[i + 1]
        r2 += x[i + 2]
        r3 += x[i + 3]
        r4 += x[i + 4]
        r5 += x[i + 5]
        r6 += x[i + 6]
        r7 += x[i + 7]
        i += 8
    s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        s += x[i]
        i += 1
    return s


@njit(cache=True)
def geometry(vals, heights, lines0, penalties0, ints, floats, pairwise):
    """(geometry value, line points, penalty points) of a sheet (see ``row_geometry``)."""
    filled, holes = row_counts(vals, heights, ints)
    return row_geometry(filled, holes, heights, lines0, penalties0, ints, floats, pairwise, np.empty(ints[I_REG]))


@njit(cache=True)
def row_counts(vals, heights, ints):
    """Filled cells and holes (empty cells under a column's height) of each row."""
    rows, cols = ints[I_ROWS], ints[I_COLS]
    filled = np.zeros(rows, np.int64)
    holes = np.zeros(rows, np.int64)
    for r in range(rows):
        for c in range(cols):
            if vals[r * cols + c] != EMPTY:
                filled[r] += 1
            elif r < heights[c]:
                holes[r] += 1
    return filled, holes


@njit(cache=True)
def row_geometry(filled, holes, heights, lines0, penalties0, ints, floats, pairwise, row_value):
    """(geometry value, line points, penalty points) from each row's filled cells and holes;
    ``pairwise`` sums the rows as ``geometry_batch`` does (stage 1), else in order (block drops)."""
    rows, cols, reg = ints[I_ROWS], ints[I_COLS], ints[I_REG]
    seq = 0.0
    line_pts = 0
    for r in range(reg):
        if filled[r] == cols:
            if not lines0[r]:
                line_pts += ints[I_LINE_PTS]
            row_value[r] = 0.0
            continue
        if holes[r]:
            v = -(floats[F_HOLE_ROW] + floats[F_HOLE] * holes[r])
            row_value[r] = v
            seq += v
        else:
            f = filled[r] / cols
            row_value[r] = floats[F_ROW_FILL] * (f * f)
            seq += floats[F_ROW_FILL] * f * f
    pen_pts = 0
    for i in range(rows - reg):
        if not penalties0[i] and filled[reg + i] > 0:
            pen_pts -= ints[I_PEN_PTS]
    bump = 0
    high = 0
    for c in range(cols):
        h = heights[c]
        if c:
            bump += abs(h - heights[c - 1])
        if h > 8:
            high += (h - 8) * (h - 8)
    total = pairwise_sum(row_value) if pairwise else seq
    return total - (floats[F_BUMP] * bump + floats[F_HIGH] * float(high)), line_pts, pen_pts


@njit(cache=True, inline="always")
def placement_geometry(vals0, heights0, flat, lines0, penalties0, ints, floats):
    """Stage 1's geometry of every placement (``Context.geometry_batch``): each placement's heights,
    geometry, line and penalty points, the sheet's rows counted once."""
    rows, cols = ints[I_ROWS], ints[I_COLS]
    n_p = flat.shape[0]
    heights = np.empty((n_p, cols), np.int64)
    geos = np.empty(n_p)
    lps = np.empty(n_p, np.int64)
    pps = np.empty(n_p, np.int64)
    filled0, holes0 = row_counts(vals0, heights0, ints)
    filled = np.empty(rows, np.int64)
    holes = np.empty(rows, np.int64)
    h = np.empty(cols, np.int64)
    row_value = np.empty(ints[I_REG])
    for p in range(n_p):
        for c in range(cols):
            h[c] = heights0[c]
        for r in range(rows):
            filled[r] = filled0[r]
            holes[r] = holes0[r]
        for i in range(4):
            r, c = flat[p, i] // cols, flat[p, i] % cols
            filled[r] += 1
            if r + 1 > h[c]:
                h[c] = r + 1
        for c in range(cols):  # the cells the piece covers below its lowest cell in a column become holes
            low = rows
            for i in range(4):
                if flat[p, i] % cols == c:
                    low = min(low, flat[p, i] // cols)
            for r in range(heights0[c], min(low, h[c])):
                holes[r] += 1
        for c in range(cols):
            heights[p, c] = h[c]
        geos[p], lps[p], pps[p] = row_geometry(filled, holes, h, lines0, penalties0, ints, floats, PAIRWISE, row_value)
    return heights, geos, lps, pps
