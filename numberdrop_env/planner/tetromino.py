"""The tetromino's part of a turn, compiled: every way to drop and write it, the best kept.

Stage 1 scores every legal (placement, arrangement, wild values) by exact geometry plus local
matches, keeping at most 3 per placement and the ``width`` best; stage 2 writes each and values
the pass and every canonical combination. The result is one sheet's ``Tails``, best first.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..engine.actions import PERMUTATIONS
from ..engine.rules import WILD
from .geometry import placement_geometry
from .kernels import structures, written_sheet_into
from .packing import (
    ARRANGE,
    COMBO,
    F_TURN,
    I_A_ARRANGE,
    I_A_CONFIRM,
    I_A_PASS,
    I_A_PLACE,
    I_A_SELECT,
    I_A_WILD,
    I_BONUS,
    I_COLS,
    I_FULL_COL,
    I_MAXN,
    I_WIDTH,
    MAX_TAIL_ACTIONS,
    PLACE,
    WILD_PHASE,
)

PERMUTATIONS_C = np.ascontiguousarray(PERMUTATIONS)


class Writings(NamedTuple):
    """Every distinct way of writing a roll's sorted dice into 4 cells, one row each."""

    ks: np.ndarray  # the arrangement (index into PERMUTATIONS)
    fills: np.ndarray  # (writings, 4) the wild values, padded
    n_wild: int  # stars among the dice
    written: np.ndarray  # (writings, 4) the values written
    tie: np.ndarray  # the tie-break taken off a writing's local score
    distinct: np.ndarray  # (arrangements, 4) the distinct arrangements (a star as WILD)
    per: int  # writings per distinct arrangement (one per wild values)


class Tails(NamedTuple):
    """The tails of one sheet: each a way to play the tetromino, sorted by ``rank``."""

    value: np.ndarray  # the tails' values, best first
    rank: np.ndarray  # the tail of each place in that order
    actions: np.ndarray  # (tails, MAX_TAIL_ACTIONS), padded with -1
    phases: np.ndarray
    n_actions: np.ndarray
    points: np.ndarray
    row: np.ndarray  # the written sheet (row of ``sheet_values``) each tail leaves
    kind: np.ndarray  # the combination's kind, -1 for the pass
    size: np.ndarray
    cells: np.ndarray  # (tails, 8) the combination's cells, padded with -1
    ends: np.ndarray  # bool: the tail ends the game
    terms: np.ndarray  # (tails, 4) geometry, potential, turns, letter
    sheet_values: np.ndarray  # (sheets, cells) each stage-1 row written
    sheet_heights: np.ndarray  # (sheets, cols)


@njit(cache=True)
def dice_writings(dice, max_number, default):
    """Every distinct way of writing the sorted dice into 4 cells (``turns_python._writings``)."""
    n_perm = PERMUTATIONS_C.shape[0]
    distinct = np.empty((n_perm, 4), np.int64)
    first = np.empty(n_perm, np.int64)
    n_distinct = 0
    tup = np.empty(4, np.int64)
    for k in range(n_perm):
        for i in range(4):
            tup[i] = dice[PERMUTATIONS_C[k, i]]
        dup = False
        for d in range(n_distinct):
            same = True
            for i in range(4):
                if distinct[d, i] != tup[i]:
                    same = False
                    break
            if same:
                dup = True
                break
        if not dup:
            distinct[n_distinct] = tup
            first[n_distinct] = k
            n_distinct += 1
    n_wild = 0
    for v in dice:
        if v == WILD:
            n_wild += 1
    base = max_number + 1
    per = base**n_wild
    q_total = n_distinct * per
    ks = np.empty(q_total, np.int64)
    fills = np.zeros((q_total, 4), np.int64)
    written = np.empty((q_total, 4), np.int64)
    tie = np.empty(q_total)
    q = 0
    digits = np.empty(max(n_wild, 1), np.int64)
    for d in range(n_distinct):
        for f in range(per):
            rest = f
            for w in range(n_wild - 1, -1, -1):  # the first wild cell varies slowest
                digits[w] = rest % base
                rest //= base
            w = 0
            far = 0
            for i in range(4):
                v = distinct[d, i]
                if v == WILD:
                    v = digits[w]
                    fills[q, w] = v
                    far += abs(v - default)
                    w += 1
                written[q, i] = v
            ks[q] = first[d]
            tie[q] = 1e-3 * float(far) + 1e-7 * q
            q += 1
    return Writings(ks, fills, n_wild, written, tie, distinct[:n_distinct], per)


@njit(cache=True)
def _value_table(vals, free, start, region, up, down, max_number):
    """Score of writing value v next to each cell (``turns_python.local_scores``' table)."""
    n = vals.shape[0]
    table = np.zeros((n + 1, max_number + 1))  # the last row pads the neighbour table
    for c in range(n):
        if free[c]:
            nv = vals[c]
            rid = region[c]
            table[c, nv] = 0.5 + 0.5 * (start[rid + 1] - start[rid])
            if nv >= 1:
                table[c, nv - 1] = 0.5 + 0.5 * up[c]
            if nv < max_number:
                table[c, nv + 1] = 0.5 + 0.5 * down[c]
    return table


@njit(cache=True, inline="always")
def tetromino_tails(vals0, heights0, placed, t_rem, letter_live, position, boxes, writings, rules, work):
    """Tails of dropping the tetromino (``placed``: placements and landing rows) on the sheet
    ``vals0``, or of arranging the pending cells ``position.fixed``, best first. ``t_rem``: turns
    left after this one; ``letter_live``: circling each letter's worth; ``work``: ``kernels.sheet_work``."""
    used0, fixed, lines0, penalties0 = position.used, position.fixed, position.lines, position.penalties
    ks, fills, n_wild, written, tie, distinct, per = writings
    ident_targets, cons_targets, ident_sizes, ident_done, cons_done, ident_open, cons_open = boxes
    nbrs, box, ints, floats, dr, cc = rules.nbrs, rules.box, rules.ints, rules.floats, rules.dr, rules.cc
    cols, maxn = ints[I_COLS], ints[I_MAXN]
    n = vals0.shape[0]
    fixed_mode = fixed[0] >= 0
    n_p = 1 if fixed_mode else placed.shape[0]
    flat = np.empty((n_p, 4), np.int64)
    for p in range(n_p):
        if fixed_mode:
            for i in range(4):
                flat[p, i] = fixed[i]
        else:
            pl = placed[p, 0]
            for i in range(4):
                flat[p, i] = (placed[p, 1] + dr[pl, i]) * cols + cc[pl, i]
        for i in range(1, 4):  # the landed cells in (row, column) order
            c = flat[p, i]
            j = i
            while j > 0 and flat[p, j - 1] > c:
                flat[p, j] = flat[p, j - 1]
                j -= 1
            flat[p, j] = c
    free, region, start, members, up, down, up_next = structures(vals0, used0, nbrs, maxn)
    table = _value_table(vals0, free, start, region, up, down, maxn)
    top = min(3, written.shape[0])
    ends = t_rem == 0.0
    heights, geos, lps, pps = placement_geometry(vals0, heights0, flat, lines0, penalties0, ints, floats)
    base = np.empty(n_p)
    n_v = table.shape[1]
    contrib = np.empty((n_p, 4, n_v))
    adjacent = np.empty((n_p, 4, 4), np.bool_)
    reach = np.empty(n_p)  # the best total a placement can reach
    for p in range(n_p):
        base[p] = float(lps[p] + pps[p]) if ends else geos[p] + lps[p] + pps[p]
        reach[p] = base[p] + _contributions(table, free, flat, p, nbrs, contrib, adjacent)
    # the most promising placements first: once ``width`` totals are known, what cannot pass the last is skipped
    width = ints[I_WIDTH]
    kept = np.full(width + 1, -np.inf)  # the best totals so far, descending
    found = 0
    best = np.full((n_p, top), -1, np.int64)
    score = np.full((n_p, top), -np.inf)
    wild = np.empty(4, np.int64)  # every die may show a star (other printings)
    gain = np.empty((4, n_v))
    digits = np.empty(4, np.int64)
    for p in np.argsort(-reach, kind="mergesort"):
        threshold = kept[width - 1] if found >= width else -np.inf
        if reach[p] < threshold:
            break
        _best_writings(contrib, adjacent, p, writings, base[p], threshold, best, score, (wild, gain, digits))
        for j in range(top):
            if best[p, j] >= 0:
                found += 1
                t = base[p] + score[p, j]
                k = width
                while k > 0 and t > kept[k - 1]:
                    kept[k] = kept[k - 1]
                    k -= 1
                kept[k] = t
    total = np.full(n_p * top, -np.inf)
    for p in range(n_p):
        for j in range(top):
            if best[p, j] >= 0:
                total[p * top + j] = base[p] + score[p, j]
    order = np.argsort(-total, kind="mergesort")[: ints[I_WIDTH]]
    # stage 2: write each kept row and try every canonical combination
    cap = len(order) * (1 + len(ident_sizes) + len(cons_targets))
    t_value = np.empty(cap)
    t_actions = np.full((cap, MAX_TAIL_ACTIONS), -1, np.int64)
    t_phases = np.full((cap, MAX_TAIL_ACTIONS), -1, np.int64)
    t_nact = np.zeros(cap, np.int64)
    t_points = np.empty(cap, np.int64)
    t_row = np.empty(cap, np.int64)  # the stage-1 row whose sheet the tail writes
    t_kind = np.full(cap, -1, np.int64)
    t_size = np.zeros(cap, np.int64)
    t_cells = np.full((cap, 8), -1, np.int64)
    t_ends = np.zeros(cap, np.bool_)
    t_terms = np.zeros((cap, 4))
    r_vals = np.empty((len(order), n), np.int64)
    r_heights = np.empty((len(order), cols), np.int64)
    count = 0
    limit = int(np.ceil(t_rem))
    turn_value = floats[F_TURN] * t_rem
    kinds, sizes, cells, after = work.kinds, work.sizes, work.cells, work.after
    head = np.empty(6, np.int64)  # place, arrange, a wild value per die
    head_ph = np.empty(6, np.int64)
    for row_i in range(len(order)):
        fi = order[row_i]
        p, j = fi // top, fi % top
        q = best[p, j]
        geo, lp, pp = geos[p], lps[p], pps[p]
        over = ends or pp < 0
        for c in range(n):
            r_vals[row_i, c] = vals0[c]
        for i in range(4):
            r_vals[row_i, flat[p, i]] = written[q, i]
        for c in range(cols):
            r_heights[row_i, c] = heights[p, c]
        now, n_combos = written_sheet_into(r_vals[row_i], used0, r_heights[row_i], boxes, limit, not over, rules, work)
        nh = 0
        if not fixed_mode:
            head[0], head_ph[0] = ints[I_A_PLACE] + placed[p, 0], PLACE
            nh = 1
        head[nh], head_ph[nh] = ints[I_A_ARRANGE] + ks[q], ARRANGE
        nh += 1
        for w in range(n_wild):
            head[nh], head_ph[nh] = ints[I_A_WILD] + fills[q, w], WILD_PHASE
            nh += 1
        geometry_term = 0.0 if t_rem == 0.0 else geo
        for c in range(-1, n_combos):
            t = count
            count += 1
            t_row[t] = row_i
            t_ends[t] = over
            t_terms[t, 0] = geometry_term
            for a in range(nh):
                t_actions[t, a], t_phases[t, a] = head[a], head_ph[a]
            if c < 0:  # the pass
                t_actions[t, nh], t_phases[t, nh] = ints[I_A_PASS], COMBO
                t_nact[t] = nh + 1
                t_points[t] = lp + pp
                if over:
                    t_value[t] = float(lp + pp) if ends else geo + lp + pp
                else:
                    t_value[t] = ((geo + lp + pp) + turn_value) + now
                    t_terms[t, 1], t_terms[t, 2] = now, turn_value
                continue
            kind, k = kinds[c], sizes[c]
            for a in range(k):
                t_actions[t, nh + a], t_phases[t, nh + a] = ints[I_A_SELECT] + cells[c, a], COMBO
                t_cells[t, a] = cells[c, a]
            t_actions[t, nh + k], t_phases[t, nh + k] = ints[I_A_CONFIRM], COMBO
            t_nact[t] = nh + k + 1
            t_kind[t], t_size[t] = kind, k
            pts = k
            letter_flag = False
            if k != ints[I_BONUS]:
                if kind == 0:
                    if ident_done == len(box) - 1:
                        pts += ints[I_FULL_COL]
                    letter_flag = not _open(cons_open, box, k)
                else:
                    if cons_done == len(box) - 1:
                        pts += ints[I_FULL_COL]
                    letter_flag = not _open(ident_open, box, k)
            t_points[t] = pts + lp + pp
            base = float(lp + pp) if ends else geo + lp + pp
            if over:
                t_value[t] = base + pts
                continue
            letter = 0.0
            if letter_flag:
                for b in range(len(box)):
                    if box[b] == k:
                        letter = letter_live[b]
            t_value[t] = (((base + turn_value) + pts) + letter) + after[c]
            t_terms[t, 1], t_terms[t, 2], t_terms[t, 3] = after[c], turn_value, letter
    rank = np.argsort(-t_value[:count], kind="mergesort")  # the tails best first (the others index through it)
    return Tails(
        t_value[rank],
        rank,
        t_actions,
        t_phases,
        t_nact,
        t_points,
        t_row,
        t_kind,
        t_size,
        t_cells,
        t_ends,
        t_terms,
        r_vals,
        r_heights,
    )


@njit(cache=True)
def _contributions(table, free, flat, p, nbrs, contrib, adjacent):
    """Each landed cell's local score per value written and which landed cells touch; returns an
    upper bound of placement ``p``'s local score."""
    n_v = table.shape[1]
    n = free.shape[0]
    bound = 0.0
    for i in range(4):
        for v in range(n_v):
            contrib[p, i, v] = 0.0
        for j in range(4):
            adjacent[p, i, j] = False
        for q in range(4):
            c = nbrs[flat[p, i], q]
            own = -1
            for j in range(4):
                if flat[p, j] == c:
                    own = j
            if own >= 0:
                adjacent[p, i, own] = True
            elif c < n and free[c]:  # other neighbours have no score
                for v in range(n_v):
                    contrib[p, i, v] += table[c, v]
        top = contrib[p, i, 0]
        for v in range(1, n_v):
            top = max(top, contrib[p, i, v])
        bound += top
    for i in range(4):
        for j in range(i + 1, 4):
            if adjacent[p, i, j]:
                bound += 1.0
    return bound


@njit(cache=True)
def _best_writings(contrib, adjacent, p, writings, base, threshold, best, score, scratch):
    """The ``len(best)`` best writings of the dice into placement ``p`` by local score
    (``turns_python.local_scores``, fused with the choice): indices and scores, best first (-1, -inf
    where skipped). A local score is a sum of halves, exact in any order, so each arrangement's
    fixed cells are summed once; one whose best case cannot pass the third best, or ``threshold``
    (where stage 1 no longer looks), is skipped: ``tie`` only lowers scores."""
    distinct, per, tie = writings.distinct, writings.per, writings.tie
    wild, gain, digits = scratch
    n_v = contrib.shape[2]
    top = best.shape[1]
    for j in range(top):
        best[p, j], score[p, j] = -1, -np.inf
    for d in range(distinct.shape[0]):
        fixed_sum = 0.0
        k = 0
        for i in range(4):
            if distinct[d, i] == WILD:
                wild[k] = i
                k += 1
                continue
            fixed_sum += contrib[p, i, distinct[d, i]]
            for j in range(i + 1, 4):
                if adjacent[p, i, j] and distinct[d, j] != WILD and abs(distinct[d, i] - distinct[d, j]) <= 1:
                    fixed_sum += 1.0
        bound = fixed_sum
        for a in range(k):
            i = wild[a]
            top_gain = -np.inf
            for v in range(n_v):
                g = contrib[p, i, v]
                for j in range(4):
                    if adjacent[p, i, j] and distinct[d, j] != WILD and abs(v - distinct[d, j]) <= 1:
                        g += 1.0
                gain[a, v] = g
                top_gain = max(top_gain, g)
            bound += top_gain
            for b in range(a + 1, k):
                if adjacent[p, i, wild[b]]:
                    bound += 1.0
        q0 = d * per
        bound -= 1e-7 * q0
        if bound <= score[p, top - 1] or base + bound < threshold:
            continue
        for f in range(per):
            s = fixed_sum
            if k == 1:
                s += gain[0, f]
            elif k == 2:
                v0, v1 = f // n_v, f % n_v
                s += gain[0, v0] + gain[1, v1]
                if adjacent[p, wild[0], wild[1]] and abs(v0 - v1) <= 1:
                    s += 1.0
            elif k >= 3:
                rest = f
                for a in range(k - 1, -1, -1):  # the first wild cell's value varies slowest
                    digits[a] = rest % n_v
                    rest //= n_v
                for a in range(k):
                    s += gain[a, digits[a]]
                    for b in range(a + 1, k):
                        if adjacent[p, wild[a], wild[b]] and abs(digits[a] - digits[b]) <= 1:
                            s += 1.0
            s -= tie[q0 + f]
            if s > score[p, top - 1]:
                j = top - 1
                while j > 0 and s > score[p, j - 1]:
                    best[p, j], score[p, j] = best[p, j - 1], score[p, j - 1]
                    j -= 1
                best[p, j], score[p, j] = q0 + f, s


@njit(cache=True)
def _open(open_flags, box, k):
    """Whether the box of size ``k`` is open (``open_flags`` by box)."""
    for b in range(len(box)):
        if box[b] == k:
            return open_flags[b]
    return False
