"""The slides and block drops of a turn, compiled: the small tree before the tetromino.

Slides are enumerated exactly, depth first in action order; a dropping block keeps its
``block_width`` best placements. Each leaf is a sheet on which the tetromino drops, or LOST.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..engine.rules import X
from .geometry import SEQUENTIAL, any_legal, geometry, legal_placements
from .kernels import potential_into, potential_work, structures
from .packing import (
    BLOCK,
    I_A_BLOCK,
    I_A_SLIDE,
    I_BLOCK_WIDTH,
    I_COLS,
    I_LAST,
    I_MAXN,
    LOST,
    PLACE,
    SLIDE,
    STAR_SLIDE,
    same_rows,
)

BLOCK_DROP = np.int64(-1)
"""``_advance``'s tile for a block drop. Constants passed to compiled callees are numpy scalars:
numba compiles a callee again for each literal Python int it meets (even a counter's starting 0)."""
EVERY_CREDIT = np.int64(-1)
"""``potential_into``'s limit that counts every credit."""


class Leaves(NamedTuple):
    """The leaves of a turn's slides and block drops, one row each, in the reference's order."""

    notches: np.ndarray  # (leaves, letters)
    values: np.ndarray  # (leaves, cells) the sheet
    heights: np.ndarray  # (leaves, cols)
    actions: np.ndarray  # (leaves, 6) the slides and blocks
    phases: np.ndarray  # (leaves, 6)
    n_actions: np.ndarray  # (leaves,)
    lost: np.ndarray  # (leaves,) bool: the tetromino has no legal placement


@njit(cache=True)
def _advance(notches, vals, heights, state, slid, position, rules, allowed):
    """Resolve what follows a slide of tile ``slid`` (or ``BLOCK_DROP``), as ``SoloGame._slide`` /
    ``_after_slides`` do; ``state`` = [phase, star owed, block tile]; ``allowed`` is scratch."""
    tiles, circled, face = position.tiles, position.circled, position.face
    last = rules.ints[I_LAST]
    t = slid
    while True:
        if t >= 0 and notches[t] == last and not circled[t]:
            allowed[:] = False
            allowed[tiles[t]] = True
            if any_legal(heights, allowed, rules):
                state[0], state[2] = BLOCK, t
                return
        state[2] = -1
        if state[1]:
            state[1] = 0
            if face < 0:
                for n in notches:
                    if n < last:
                        state[0] = STAR_SLIDE
                        return
            else:
                tile = 0
                for i in range(len(tiles)):
                    if tiles[i] == face:
                        tile = i
                if notches[tile] < last:
                    notches[tile] += 1
                    t = tile
                    continue
        if face < 0:
            allowed[:] = True
        else:
            allowed[:] = False
            allowed[face] = True
        state[0] = PLACE if any_legal(heights, allowed, rules) else LOST
        return


@njit(cache=True)
def _best_blocks(vals, heights, tile_shape, position, boxes, rules):
    """The ``block_width`` best (placement, landing row) of the block ``tile_shape`` by geometry + potential."""
    used, lines0, penalties0 = position.used, position.lines, position.penalties
    ident_targets, cons_targets = boxes.ident_targets, boxes.cons_targets
    dr, cc, ints, floats = rules.dr, rules.cc, rules.ints, rules.floats
    cols = ints[I_COLS]
    allowed = np.zeros(rules.owner.max() + 1, np.bool_)
    allowed[tile_shape] = True
    placed = np.empty((dr.shape[0], 2), np.int64)
    n = legal_placements(heights, allowed, rules, placed)
    st = structures(vals, used, rules.nbrs, ints[I_MAXN])
    work = potential_work(vals.shape[0], max(len(ident_targets), len(cons_targets)))
    scores = np.empty(n)
    v = np.empty_like(vals)
    h = np.empty_like(heights)
    for j in range(n):
        v[:] = vals
        h[:] = heights
        p, r0 = placed[j, 0], placed[j, 1]
        for i in range(dr.shape[1]):
            r, c = r0 + dr[p, i], cc[p, i]
            v[r * cols + c] = X
            if r + 1 > h[c]:
                h[c] = r + 1
        geo, lp, pp = geometry(v, h, lines0, penalties0, ints, floats, SEQUENTIAL)
        pot = potential_into(v, h, st, ident_targets, cons_targets, EVERY_CREDIT, rules, work)
        scores[j] = ((geo + lp) + pp) + pot
    order = np.argsort(-scores, kind="mergesort")[: ints[I_BLOCK_WIDTH]]
    return placed[order]


@njit(cache=True, inline="always")
def leaves(position, boxes, rules):
    """Every way through the slides and block drops of ``position``, depth first in action order."""
    vals0, heights0, notches0, tiles = position.values, position.heights, position.notches, position.tiles
    dr, cc, ints = rules.dr, rules.cc, rules.ints
    n, cols, last = vals0.shape[0], ints[I_COLS], ints[I_LAST]
    n_t = notches0.shape[0]
    # two slides, each may drop a block: at most (tiles x block width)^2 leaves; the depth-first
    # stack holds at most the children of four levels (plus the slot the popped entry is copied to)
    fan = max(n_t, ints[I_BLOCK_WIDTH])
    cap_stack, cap_leaves = 4 * fan + 2, (n_t * max(1, ints[I_BLOCK_WIDTH])) ** 2 + n_t
    s_notch = np.empty((cap_stack, n_t), np.int64)
    s_vals = np.empty((cap_stack, n), np.int64)
    s_h = np.empty((cap_stack, cols), np.int64)
    s_state = np.empty((cap_stack, 3), np.int64)
    s_acts = np.empty((cap_stack, 6), np.int64)
    s_phs = np.empty((cap_stack, 6), np.int64)
    s_nact = np.empty(cap_stack, np.int64)
    l_notch = np.empty((cap_leaves, n_t), np.int64)
    l_vals = np.empty((cap_leaves, n), np.int64)
    l_h = np.empty((cap_leaves, cols), np.int64)
    l_acts = np.empty((cap_leaves, 6), np.int64)
    l_phs = np.empty((cap_leaves, 6), np.int64)
    l_nact = np.empty(cap_leaves, np.int64)
    l_lost = np.empty(cap_leaves, np.bool_)
    allowed = np.empty(rules.owner.max() + 1, np.bool_)
    memo_tile = np.empty(16, np.int64)  # block drops already chosen: tile, sheet, best placements
    memo_vals = np.empty((16, n), np.int64)
    memo_best = np.empty((16, ints[I_BLOCK_WIDTH], 2), np.int64)
    memo_n = np.empty(16, np.int64)
    n_memo = 0
    s_notch[0], s_vals[0], s_h[0] = notches0, vals0, heights0
    s_state[0, 0], s_state[0, 1], s_state[0, 2] = position.phase, position.star, position.block
    s_nact[0] = 0
    top_i = 1
    n_leaves = 0
    while top_i > 0:
        top_i -= 1
        i = cap_stack - 1  # the popped entry is copied aside: its children are written over it
        s_notch[i], s_vals[i], s_h[i], s_state[i] = s_notch[top_i], s_vals[top_i], s_h[top_i], s_state[top_i]
        s_acts[i], s_phs[i], s_nact[i] = s_acts[top_i], s_phs[top_i], s_nact[top_i]
        phase = s_state[i, 0]
        if phase == SLIDE or phase == STAR_SLIDE:
            kids = 0
            for t in range(n_t - 1, -1, -1):  # pushed last to first: the first tile is expanded first
                if s_notch[i, t] >= last:
                    continue
                j = top_i + kids
                kids += 1
                s_notch[j], s_vals[j], s_h[j], s_state[j] = s_notch[i], s_vals[i], s_h[i], s_state[i]
                s_acts[j], s_phs[j], s_nact[j] = s_acts[i], s_phs[i], s_nact[i] + 1
                s_acts[j, s_nact[i]], s_phs[j, s_nact[i]] = ints[I_A_SLIDE] + t, phase
                s_notch[j, t] += 1
                _advance(s_notch[j], s_vals[j], s_h[j], s_state[j], t, position, rules, allowed)
            top_i += kids
        elif phase == BLOCK:
            tile = s_state[i, 2]
            m = np.int64(0)  # slides in another order often reach the same block on the same sheet: choose once
            while m < n_memo and not (memo_tile[m] == tile and same_rows(memo_vals, m, s_vals, i)):
                m += 1
            if m == n_memo:
                best = _best_blocks(s_vals[i], s_h[i], tiles[tile], position, boxes, rules)
                if n_memo < len(memo_tile):
                    memo_tile[m], memo_vals[m], memo_n[m] = tile, s_vals[i], len(best)
                    memo_best[m, : len(best)] = best
                    n_memo += 1
            else:
                best = memo_best[m, : memo_n[m]]
            kids = 0
            for b in range(len(best) - 1, -1, -1):
                j = top_i + kids
                kids += 1
                s_notch[j], s_vals[j], s_h[j], s_state[j] = s_notch[i], s_vals[i], s_h[i], s_state[i]
                s_acts[j], s_phs[j], s_nact[j] = s_acts[i], s_phs[i], s_nact[i] + 1
                s_acts[j, s_nact[i]], s_phs[j, s_nact[i]] = ints[I_A_BLOCK] + best[b, 0], BLOCK
                p, r0 = best[b, 0], best[b, 1]
                for k in range(dr.shape[1]):
                    r, c = r0 + dr[p, k], cc[p, k]
                    s_vals[j, r * cols + c] = X
                    if r + 1 > s_h[j, c]:
                        s_h[j, c] = r + 1
                _advance(s_notch[j], s_vals[j], s_h[j], s_state[j], BLOCK_DROP, position, rules, allowed)
            top_i += kids
        else:
            l_notch[n_leaves], l_vals[n_leaves], l_h[n_leaves] = s_notch[i], s_vals[i], s_h[i]
            l_acts[n_leaves], l_phs[n_leaves], l_nact[n_leaves] = s_acts[i], s_phs[i], s_nact[i]
            l_lost[n_leaves] = phase == LOST
            n_leaves += 1
    return Leaves(
        l_notch[:n_leaves],
        l_vals[:n_leaves],
        l_h[:n_leaves],
        l_acts[:n_leaves],
        l_phs[:n_leaves],
        l_nact[:n_leaves],
        l_lost[:n_leaves],
    )
