"""The compiled turn engine: a sheet and a roll in, the ranked distinct candidates out.

It computes exactly what :mod:`numberdrop_env.planner.turns_reference` computes (the module
docstring of :mod:`numberdrop_env.planner.turns` says what a candidate is and how they are
pruned and ranked), as one numba function over flat arrays, so that a turn costs no
Python objects: the slides and block drops are a small explicit tree, the tetromino
search of each distinct sheet is memoised, the tails of every leaf are merged by value
(ties: leaf order, then tail order, as ``heapq.merge`` does) and deduplicated by their
afterstate. The result is a structure of arrays (:class:`TurnArrays`).

Floating-point sums follow the reference operation by operation (NumPy's pairwise sum
included), so values are bitwise equal and the order of candidates is the same; the
differential tests check it over thousands of turns.

Conventions as in :mod:`numberdrop_env.planner.kernels`: flat sheets (``row * cols + column``),
the neighbour table padded with the number of cells.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..engine.actions import PERMUTATIONS
from ..engine.placements import landing_row
from ..engine.rules import EMPTY, WILD, X
from ..engine.sheet import tick_lines_and_penalties
from .kernels import potential_into, potential_work, sheet_work, structures, written_sheet_into

MAX_ACTIONS = 20
"""Micro-actions of one candidate at most: 2 slides, 2 blocks, place, arrange, 4 wild, 8 selects, confirm."""
MAX_TAIL_ACTIONS = 15
"""Micro-actions of a tetromino's part of a turn at most: place, arrange, 4 wild, 8 selects, confirm."""

# phase codes of the micro-actions (the order of ``PHASE_CODES`` in turns.py)
SLIDE, STAR_SLIDE, BLOCK, PLACE, ARRANGE, WILD_PHASE, COMBO = 0, 1, 2, 3, 4, 5, 6
LOST = 7  # a leaf whose tetromino has no legal placement: the turn and the game end

# integer parameters, by index into ``ints``
(
    I_ROWS,
    I_COLS,
    I_REG,
    I_LAST,
    I_MAXN,
    I_BONUS,
    I_LINE_PTS,
    I_PEN_PTS,
    I_FULL_COL,
    I_WILD_DEFAULT,
    I_WIDTH,
    I_BLOCK_WIDTH,
    I_LIMIT,
    I_A_SLIDE,
    I_A_BLOCK,
    I_A_PLACE,
    I_A_ARRANGE,
    I_A_WILD,
    I_A_SELECT,
    I_A_CONFIRM,
    I_A_PASS,
    I_LETTERS,
) = range(22)
N_INTS = 22
"""``ints`` holds these, then the box sizes."""
# fields of a packed game (``pack`` in turns.py), in this order; the sizes come from the rules
STATE_FIELDS = (
    "values",
    "used",
    "heights",
    "notches",
    "tiles",
    "circled",
    "identical",
    "consecutive",
    "crossed",
    "lines",
    "penalties",
    "bonus",
    "dice",
    "face",
    "star",
    "phase",
    "block",
    "fixed",
    "limit",
)
# float weights, by index into ``floats``
(F_TURN, F_LETTER, F_LETTER_HALF, F_HURT, F_THREAT, F_HOLE_ROW, F_HOLE, F_ROW_FILL, F_BUMP, F_HIGH) = range(10)


class TurnArrays(NamedTuple):
    """The candidates of a turn, one row each, best first."""

    actions: np.ndarray  # (n, MAX_ACTIONS) int64, padded with -1
    phases: np.ndarray  # (n, MAX_ACTIONS) int64 phase codes
    n_actions: np.ndarray  # (n,)
    value: np.ndarray  # (n,) float64 planner value
    points: np.ndarray  # (n,) int64 official points of the turn
    values: np.ndarray  # (n, cells) int64 afterstate grid
    used: np.ndarray  # (n, cells) bool
    heights: np.ndarray  # (n, cols) int64
    notches: np.ndarray  # (n, letters) int64
    combo_kind: np.ndarray  # (n,) -1 none, 0 identical, 1 consecutive
    combo_size: np.ndarray  # (n,)
    ends_game: np.ndarray  # (n,) bool
    terms: np.ndarray  # (n, 5) geometry, potential, turns, letter, letter_half
    has_terms: np.ndarray  # (n,) bool: False for a lost piece (its value is its points)


# ---------------------------------------------------------------------------- small pieces
@njit(cache=True)
def remaining_turns(notches, last):
    """Expected turns after the current one (``turns.remaining_turns``, same operations)."""
    total = 0
    count = 0
    for n in notches:
        if n < last:
            total += last - n
            count += 1
    if count == 0:
        return 0.0
    return total / (1.0 + 1.0 / 6.0 + 0.0702 * count)


@njit(cache=True)
def _legal_placements(heights, dr, cc, bottom, top, fits, owner, allowed, rows, out):
    """Fill ``out`` with the legal placements of the allowed shapes; returns how many, and
    each one's landing row in ``out[:, 1]``."""
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
def _any_legal(heights, dr, cc, bottom, top, fits, owner, allowed, rows):
    for p in range(dr.shape[0]):
        if fits[p] and allowed[owner[p]] and landing_row(p, heights, cc, bottom) + top[p] < rows:
            return True
    return False


@njit(cache=True)
def _pairwise_sum(x):
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
def _geometry(vals, heights, lines0, penalties0, ints, floats, pairwise):
    """(geometry value, line points, penalty points) of a sheet (see :func:`_row_geometry`)."""
    filled, holes = _row_counts(vals, heights, ints)
    return _row_geometry(filled, holes, heights, lines0, penalties0, ints, floats, pairwise, np.empty(ints[I_REG]))


@njit(cache=True)
def _row_counts(vals, heights, ints):
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
def _row_geometry(filled, holes, heights, lines0, penalties0, ints, floats, pairwise, row_value):
    """(geometry value, line points, penalty points) from each row's filled cells and holes
    (``heuristic.Context.geometry``); ``pairwise`` sums the rows as NumPy's
    ``geometry_batch`` does (stage 1), else one after the other (block drops). ``row_value``
    is scratch space for the rows' values."""
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
    total = _pairwise_sum(row_value) if pairwise else seq
    return total - (floats[F_BUMP] * bump + floats[F_HIGH] * float(high)), line_pts, pen_pts


@njit(cache=True)
def _placement_geometry(vals0, heights0, flat, lines0, penalties0, ints, floats, heights, geos, lps, pps):
    """Stage 1's geometry of every placement (``heuristic.Context.geometry_batch``): the
    sheet's rows counted once, then each placement's four cells and the holes under them."""
    rows, cols = ints[I_ROWS], ints[I_COLS]
    filled0, holes0 = _row_counts(vals0, heights0, ints)
    filled = np.empty(rows, np.int64)
    holes = np.empty(rows, np.int64)
    h = np.empty(cols, np.int64)
    row_value = np.empty(ints[I_REG])
    for p in range(flat.shape[0]):
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
        geos[p], lps[p], pps[p] = _row_geometry(filled, holes, h, lines0, penalties0, ints, floats, True, row_value)


@njit(cache=True)
def _writings(dice, max_number, default):
    """Every distinct way of writing the sorted dice into 4 cells (``turns_reference._writings``):
    arrangement index, wild values (padded), values written, tie-break."""
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
    return ks, fills, n_wild, written, tie, distinct[:n_distinct], per


PERMUTATIONS_C = np.ascontiguousarray(PERMUTATIONS)


@njit(cache=True)
def _value_table(vals, free, start, region, up, down, max_number):
    """Score of writing value v next to each cell (``turns_reference._local_scores``'s table)."""
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


# ---------------------------------------------------------------------------- the tetromino
@njit(cache=True)
def _tetromino(
    vals0,
    used0,
    heights0,
    placed,
    fixed,
    lines0,
    penalties0,
    t_rem,
    letter_live,
    ks,
    fills,
    n_wild,
    written,
    tie,
    distinct,
    per,
    nbrs,
    tables,
    box,
    ident_targets,
    cons_targets,
    ident_sizes,
    kweights,
    ident_done,
    cons_done,
    ident_open,
    cons_open,
    ints,
    floats,
    work,
):
    """Tails of dropping the tetromino (``placed`` = (P, 2) placements and landing rows) or of
    arranging the pending cells ``fixed``, best first: value, actions, points, afterstate,
    combination and terms of each."""
    dr, cc = tables[0], tables[1]
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
    heights = np.empty((n_p, cols), np.int64)
    geos = np.empty(n_p)
    lps = np.empty(n_p, np.int64)
    pps = np.empty(n_p, np.int64)
    _placement_geometry(vals0, heights0, flat, lines0, penalties0, ints, floats, heights, geos, lps, pps)
    base = np.empty(n_p)
    n_v = table.shape[1]
    contrib = np.empty((n_p, 4, n_v))
    adjacent = np.empty((n_p, 4, 4), np.bool_)
    reach = np.empty(n_p)  # the best total a placement can reach
    for p in range(n_p):
        base[p] = float(lps[p] + pps[p]) if ends else geos[p] + lps[p] + pps[p]
        reach[p] = base[p] + _contributions(table, free, flat, p, nbrs, contrib, adjacent)
    # the most promising placements first: once ``width`` totals are known, placements and
    # arrangements that cannot pass the last of them are skipped (they could not be kept)
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
        _best_writings(contrib, adjacent, p, distinct, per, tie, base[p], threshold, best, score, wild, gain, digits)
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
        now, n_combos = written_sheet_into(
            r_vals[row_i],
            used0,
            r_heights[row_i],
            nbrs,
            ident_targets,
            cons_targets,
            ident_sizes,
            kweights,
            ints[I_BONUS],
            cols,
            ints[I_REG],
            maxn,
            limit,
            not over,
            work,
        )
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
    return (
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
    """Each landed cell of placement ``p`` its local score per value written (its free
    number neighbours outside the piece) and which landed cells touch; returns an upper
    bound of the placement's local score."""
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
def _best_writings(contrib, adjacent, p, distinct, per, tie, base, threshold, best, score, wild, gain, digits):
    """The ``len(best)`` best writings of the dice into a placement's landed cells by local
    score (``kernels.local_scores`` for one placement, fused with the choice of the best):
    their indices into the writings and their scores, best first.

    A local score is a sum of halves, exact in any order, so each arrangement's fixed cells
    are summed once and only the wild cells' terms per wild value. An arrangement whose
    best case cannot pass the third best so far, or whose ``base`` + score stays below
    ``threshold`` (where stage 1 no longer looks), is skipped: ``tie`` only lowers scores.
    Writings skipped that way keep index -1 and score -inf. ``wild``, ``gain`` and ``digits``
    are scratch space: the wild cells, a wild cell's score with the fixed cells per value,
    and the wild values of one writing.
    """
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
    for b in range(len(box)):
        if box[b] == k:
            return open_flags[b]
    return False


# ---------------------------------------------------------------------------- slides and blocks
@njit(cache=True)
def _advance(notches, vals, heights, state, slid, tiles, circled, face, tables, ints, allowed):
    """Resolve what follows a slide of tile ``slid`` (or, with -1, a block drop), as
    ``SoloGame._slide`` / ``_after_slides`` do; ``state`` = [phase, star owed, block tile].
    ``allowed`` is scratch space (one flag per shape)."""
    dr, cc, bottom, top, fits, owner = tables
    rows, last = ints[I_ROWS], ints[I_LAST]
    t = slid
    while True:
        if t >= 0 and notches[t] == last and not circled[t]:
            allowed[:] = False
            allowed[tiles[t]] = True
            if _any_legal(heights, dr, cc, bottom, top, fits, owner, allowed, rows):
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
        state[0] = PLACE if _any_legal(heights, dr, cc, bottom, top, fits, owner, allowed, rows) else LOST
        return


@njit(cache=True)
def _best_blocks(
    vals,
    used,
    heights,
    tile_shape,
    tables,
    nbrs,
    lines0,
    penalties0,
    ident_targets,
    cons_targets,
    kweights,
    ints,
    floats,
):
    """The ``block_width`` best block placements (placement, landing row) by geometry + potential."""
    dr, cc, bottom, top, fits, owner = tables
    rows, cols = ints[I_ROWS], ints[I_COLS]
    allowed = np.zeros(owner.max() + 1, np.bool_)
    allowed[tile_shape] = True
    placed = np.empty((dr.shape[0], 2), np.int64)
    n = _legal_placements(heights, dr, cc, bottom, top, fits, owner, allowed, rows, placed)
    free, region, start, members, up, down, up_next = structures(vals, used, nbrs, ints[I_MAXN])
    work_floats, work_ints = potential_work(vals.shape[0], max(len(ident_targets), len(cons_targets)))
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
        geo, lp, pp = _geometry(v, h, lines0, penalties0, ints, floats, False)
        pot = potential_into(
            v,
            h,
            free,
            start,
            members,
            up,
            down,
            up_next,
            nbrs,
            ident_targets,
            cons_targets,
            kweights,
            ints[I_BONUS],
            cols,
            ints[I_REG],
            ints[I_MAXN],
            -1,
            work_floats,
            work_ints,
        )
        scores[j] = ((geo + lp) + pp) + pot
    order = np.argsort(-scores, kind="mergesort")[: ints[I_BLOCK_WIDTH]]
    return placed[order]


@njit(cache=True)
def _leaves(
    vals0,
    heights0,
    used0,
    notches0,
    tiles,
    circled,
    face,
    star0,
    phase0,
    block0,
    tables,
    nbrs,
    lines0,
    penalties0,
    ident_targets,
    cons_targets,
    kweights,
    ints,
    floats,
):
    """Every way through the slides and block drops, depth first in action order (the
    reference's recursion): each leaf's notches, sheet, actions and phase (PLACE or LOST)."""
    dr, cc = tables[0], tables[1]
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
    allowed = np.empty(tables[5].max() + 1, np.bool_)
    memo_tile = np.empty(16, np.int64)  # block drops already chosen: tile, sheet, best placements
    memo_vals = np.empty((16, n), np.int64)
    memo_best = np.empty((16, ints[I_BLOCK_WIDTH], 2), np.int64)
    memo_n = np.empty(16, np.int64)
    n_memo = 0
    s_notch[0], s_vals[0], s_h[0] = notches0, vals0, heights0
    s_state[0, 0], s_state[0, 1], s_state[0, 2] = phase0, star0, block0
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
                _advance(s_notch[j], s_vals[j], s_h[j], s_state[j], t, tiles, circled, face, tables, ints, allowed)
            top_i += kids
        elif phase == BLOCK:
            tile = s_state[i, 2]
            m = 0  # slides in another order often reach the same block on the same sheet: choose once
            while m < n_memo and not (memo_tile[m] == tile and _same_rows_of(memo_vals, m, s_vals, i)):
                m += 1
            if m == n_memo:
                best = _best_blocks(
                    s_vals[i],
                    used0,
                    s_h[i],
                    tiles[tile],
                    tables,
                    nbrs,
                    lines0,
                    penalties0,
                    ident_targets,
                    cons_targets,
                    kweights,
                    ints,
                    floats,
                )
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
                _advance(s_notch[j], s_vals[j], s_h[j], s_state[j], -1, tiles, circled, face, tables, ints, allowed)
            top_i += kids
        else:
            l_notch[n_leaves], l_vals[n_leaves], l_h[n_leaves] = s_notch[i], s_vals[i], s_h[i]
            l_acts[n_leaves], l_phs[n_leaves], l_nact[n_leaves] = s_acts[i], s_phs[i], s_nact[i]
            l_lost[n_leaves] = phase == LOST
            n_leaves += 1
    return (
        l_notch[:n_leaves],
        l_vals[:n_leaves],
        l_h[:n_leaves],
        l_acts[:n_leaves],
        l_phs[:n_leaves],
        l_nact[:n_leaves],
        l_lost[:n_leaves],
    )


# ---------------------------------------------------------------------------- the turn
@njit(cache=True)
def state_offsets(ints):
    """Start of each field of ``STATE_FIELDS`` in a packed game, and the total length."""
    rows, cols, reg, letters = ints[I_ROWS], ints[I_COLS], ints[I_REG], ints[I_LETTERS]
    n = rows * cols
    sizes = np.array(
        [n, n, cols, letters, letters, letters, letters, letters, letters, reg, rows - reg, 1, 4, 1, 1, 1, 1, 4, 1]
    )
    out = np.zeros(len(sizes) + 1, np.int64)
    for i in range(len(sizes)):
        out[i + 1] = out[i] + sizes[i]
    return out


@njit(cache=True)
def _targets(done, box, bonus, bonus_size):
    """Open boxes of one kind, ascending, then the bonus box if it is open."""
    out = np.empty(len(box) + 1, np.int64)
    k = 0
    for b in range(len(box)):
        if not done[b]:
            out[k] = box[b]
            k += 1
    if not bonus:
        out[k] = bonus_size
        k += 1
    return out[:k]


@njit(cache=True)
def enumerate_packed(state, rivals, table, nbrs, kweights, ints, floats):
    """:func:`enumerate_turn` of a packed game (one int64 vector, see ``STATE_FIELDS``) with
    the placement table packed as (placements, 3 x cells + 3): row offsets, columns, lowest offsets,
    top, fits the columns, shape. ``rivals`` is (2, letters), or (0, 0) at a solo game."""
    o = state_offsets(ints)
    box = ints[N_INTS:]
    w = (table.shape[1] - 3) // 3  # cells per shape
    tables = (
        np.ascontiguousarray(table[:, :w]),
        np.ascontiguousarray(table[:, w : 2 * w]),
        np.ascontiguousarray(table[:, 2 * w : 3 * w]),
        np.ascontiguousarray(table[:, 3 * w]),
        table[:, 3 * w + 1] != 0,
        np.ascontiguousarray(table[:, 3 * w + 2]),
    )
    identical, consecutive = state[o[6] : o[7]] != 0, state[o[7] : o[8]] != 0
    bonus = state[o[11]] != 0
    ident_targets = _targets(identical, box, bonus, ints[I_BONUS])
    cons_targets = _targets(consecutive, box, bonus, ints[I_BONUS])
    run = ints.copy()
    run[I_LIMIT] = state[o[18]]
    return enumerate_turn(
        state[o[0] : o[1]],
        state[o[1] : o[2]] != 0,
        state[o[2] : o[3]],
        state[o[3] : o[4]],
        state[o[4] : o[5]],
        state[o[5] : o[6]] != 0,
        identical,
        consecutive,
        state[o[9] : o[10]] != 0,
        state[o[10] : o[11]] != 0,
        state[o[12] : o[13]],
        state[o[13]],
        state[o[14]],
        state[o[15]],
        state[o[16]],
        state[o[17] : o[18]],
        rivals,
        rivals.shape[0] > 0,
        tables,
        nbrs,
        box,
        ident_targets,
        cons_targets,
        np.unique(ident_targets),
        kweights,
        run,
        floats,
    )


@njit(cache=True)
def _letter_values(notches, circled, rivals, has_rivals, floats, last):
    """``turns.letter_values``: what circling each letter is worth now."""
    out = np.zeros(notches.shape[0])
    for i in range(notches.shape[0]):
        if notches[i] < last and not circled[i]:
            if has_rivals:
                c, h = rivals[0, i], rivals[1, i]
                out[i] = floats[F_LETTER] + floats[F_HURT] * (1.0 - c) + floats[F_THREAT] * max(c, h)
            else:
                out[i] = floats[F_LETTER]
    return out


@njit(cache=True)
def _letter_half(notches, circled, identical, consecutive, floats, last):
    v = 0.0
    for i in range(notches.shape[0]):
        if not circled[i] and notches[i] < last and identical[i] != consecutive[i]:
            v += floats[F_LETTER_HALF] * (last - notches[i])
    return v


@njit(cache=True)
def _mix(h, x):
    """One step of an unsigned 64-bit hash (boost's ``hash_combine``)."""
    return h ^ (np.uint64(x) + np.uint64(0x9E3779B97F4A7C15) + (h << np.uint64(6)) + (h >> np.uint64(2)))


@njit(cache=True)
def enumerate_turn(
    vals0,
    used0,
    heights0,
    notches0,
    tiles,
    circled,
    identical,
    consecutive,
    lines0,
    penalties0,
    dice,
    face,
    star0,
    phase0,
    block0,
    fixed,
    rivals,
    has_rivals,
    tables,
    nbrs,
    box,
    ident_targets,
    cons_targets,
    ident_sizes,
    kweights,
    ints,
    floats,
):
    """The distinct candidates of the rest of a turn, best first (see the module docstring).

    ``phase0`` is SLIDE, STAR_SLIDE, BLOCK or PLACE (with ``fixed[0] < 0``), or ARRANGE with
    the pending cells in ``fixed``; ``face`` is the shape die (-1 for a star).
    """
    n, cols, last = vals0.shape[0], ints[I_COLS], ints[I_LAST]
    n_t = notches0.shape[0]
    if phase0 == ARRANGE:
        l_notch, l_vals = notches0.reshape(1, n_t).copy(), vals0.reshape(1, n).copy()
        l_h = heights0.reshape(1, cols).copy()
        l_acts, l_phs = np.zeros((1, 6), np.int64), np.zeros((1, 6), np.int64)
        l_nact, l_lost = np.zeros(1, np.int64), np.zeros(1, np.bool_)
    else:
        l_notch, l_vals, l_h, l_acts, l_phs, l_nact, l_lost = _leaves(
            vals0,
            heights0,
            used0,
            notches0,
            tiles,
            circled,
            face,
            star0,
            phase0,
            block0,
            tables,
            nbrs,
            lines0,
            penalties0,
            ident_targets,
            cons_targets,
            kweights,
            ints,
            floats,
        )
    n_leaves = l_notch.shape[0]
    ks, fills, n_wild, written, tie, distinct, per = _writings(dice, ints[I_MAXN], ints[I_WILD_DEFAULT])
    dr, cc, bottom, top, fits, owner = tables
    allowed = np.zeros(owner.max() + 1, np.bool_)
    if face < 0:
        allowed[:] = True
    else:
        allowed[face] = True
    ident_done, cons_done = 0, 0
    for b in range(len(box)):
        ident_done += identical[b]
        cons_done += consecutive[b]
    ident_open, cons_open = identical == 0, consecutive == 0
    work = sheet_work(n, ints[I_MAXN], len(ident_targets), len(cons_targets))
    # one tetromino search per distinct (sheet, remaining turns, tiles at the last notch)
    search_of = np.full(n_leaves, -1, np.int64)
    offset = np.zeros(n_leaves)
    t_rems = np.zeros(n_leaves)
    searches = []
    owners = np.empty(n_leaves, np.int64)  # the leaf each search was made for
    n_search = 0
    for li in range(n_leaves):
        if l_lost[li]:
            continue
        t_rem = remaining_turns(l_notch[li], last)
        t_rems[li] = t_rem
        if t_rem != 0.0 and phase0 != ARRANGE:
            offset[li] = _letter_half(l_notch[li], circled, identical, consecutive, floats, last)
        for s in range(n_search):
            o = owners[s]
            if t_rems[o] == t_rem and _same_rows(l_vals, o, li) and _same_last(l_notch, o, li, last):
                search_of[li] = s
                break
        if search_of[li] >= 0:
            continue
        live = _letter_values(l_notch[li], circled, rivals, has_rivals, floats, last)
        placed = np.empty((dr.shape[0], 2), np.int64)
        if phase0 == ARRANGE:
            n_placed = 0
        else:
            n_placed = _legal_placements(l_h[li], dr, cc, bottom, top, fits, owner, allowed, ints[I_ROWS], placed)
        searches.append(
            _tetromino(
                l_vals[li],
                used0,
                l_h[li],
                placed[:n_placed],
                fixed,
                lines0,
                penalties0,
                t_rem,
                live,
                ks,
                fills,
                n_wild,
                written,
                tie,
                distinct,
                per,
                nbrs,
                tables,
                box,
                ident_targets,
                cons_targets,
                ident_sizes,
                kweights,
                ident_done,
                cons_done,
                ident_open,
                cons_open,
                ints,
                floats,
                work,
            )
        )
        owners[n_search] = li
        search_of[li] = n_search
        n_search += 1
    return _merge(
        l_notch,
        l_vals,
        l_h,
        l_acts,
        l_phs,
        l_nact,
        l_lost,
        search_of,
        offset,
        searches,
        used0,
        lines0,
        penalties0,
        ints,
        floats,
    )


@njit(cache=True)
def _merge(
    l_notch,
    l_vals,
    l_h,
    l_acts,
    l_phs,
    l_nact,
    l_lost,
    search_of,
    offset,
    searches,
    used0,
    lines0,
    penalties0,
    ints,
    floats,
):
    """Merge the leaves' sorted tails by value (ties: leaf order, then tail order) and keep the
    first candidate of each afterstate, up to ``ints[I_LIMIT]`` (all when negative)."""
    n_leaves, n_t = l_notch.shape
    n, cols = l_vals.shape[1], l_h.shape[1]
    length = np.ones(n_leaves, np.int64)
    lost_points = np.zeros(n_leaves, np.int64)
    n_search = len(searches)
    search_start = np.zeros(n_search + 1, np.int64)
    for si in range(n_search):
        search_start[si + 1] = search_start[si] + searches[si][0].shape[0]
    tail_value = np.empty(search_start[n_search])  # every search's sorted values, one after the other
    for si in range(n_search):
        tail_value[search_start[si] : search_start[si + 1]] = searches[si][0]
    head = np.empty(n_leaves)  # the value of each leaf's next tail
    for li in range(n_leaves):
        if l_lost[li]:
            _, lp, pp = _geometry(l_vals[li], l_h[li], lines0, penalties0, ints, floats, True)
            lost_points[li] = lp + pp
            head[li] = float(lp + pp)
        else:
            si = search_of[li]
            length[li] = search_start[si + 1] - search_start[si]
            head[li] = offset[li] + tail_value[search_start[si]]
    total = length.sum()
    cap = total if ints[I_LIMIT] < 0 else min(total, ints[I_LIMIT])
    out = TurnArrays(
        np.full((cap, MAX_ACTIONS), -1, np.int64),
        np.full((cap, MAX_ACTIONS), -1, np.int64),
        np.zeros(cap, np.int64),
        np.zeros(cap),
        np.zeros(cap, np.int64),
        np.empty((cap, n), np.int64),
        np.empty((cap, n), np.bool_),
        np.empty((cap, cols), np.int64),
        np.empty((cap, n_t), np.int64),
        np.full(cap, -1, np.int64),
        np.zeros(cap, np.int64),
        np.zeros(cap, np.bool_),
        np.zeros((cap, 5)),
        np.zeros(cap, np.bool_),
    )
    o_values, o_used, o_notches = out.values, out.used, out.notches
    slots = 1
    while slots < 2 * total:
        slots *= 2
    table = np.full(slots, -1, np.int64)
    keys = np.empty(cap, np.uint64)
    ptr = np.zeros(n_leaves, np.int64)
    count = 0
    while count < cap:
        li, best = -1, 0.0
        for j in range(n_leaves):
            if ptr[j] < length[j] and (li < 0 or head[j] > best):
                li, best = j, head[j]
        if li < 0:
            break
        ti = ptr[li]
        ptr[li] += 1
        if ptr[li] < length[li]:
            head[li] = offset[li] + tail_value[search_start[search_of[li]] + ptr[li]]
        _fill(
            out,
            count,
            li,
            ti,
            best,
            l_notch,
            l_vals,
            l_h,
            l_acts,
            l_phs,
            l_nact,
            l_lost,
            lost_points,
            search_of,
            offset,
            searches,
            used0,
        )
        h = np.uint64(1469598103934665603)
        for c in range(n):
            h = _mix(h, o_values[count, c] * 2 + 2 + o_used[count, c])
        for t in range(n_t):
            h = _mix(h, o_notches[count, t])
        slot = np.int64(h & np.uint64(slots - 1))
        duplicate = False
        while table[slot] >= 0:
            other = table[slot]
            if (
                keys[other] == h
                and _same_rows(o_values, other, count)
                and _same_rows(o_used, other, count)
                and _same_rows(o_notches, other, count)
            ):
                duplicate = True
                break
            slot = (slot + 1) & (slots - 1)
        if duplicate:
            continue
        table[slot] = count
        keys[count] = h
        count += 1
    return TurnArrays(
        out.actions[:count],
        out.phases[:count],
        out.n_actions[:count],
        out.value[:count],
        out.points[:count],
        out.values[:count],
        out.used[:count],
        out.heights[:count],
        out.notches[:count],
        out.combo_kind[:count],
        out.combo_size[:count],
        out.ends_game[:count],
        out.terms[:count],
        out.has_terms[:count],
    )


@njit(cache=True)
def _same_rows(a, i, j):
    return _same_rows_of(a, i, a, j)


@njit(cache=True)
def _same_rows_of(a, i, b, j):
    """Whether row i of ``a`` equals row j of ``b``."""
    for c in range(a.shape[1]):
        if a[i, c] != b[j, c]:
            return False
    return True


@njit(cache=True)
def _same_last(notches, i, j, last):
    """Whether the same tiles are at the last notch in rows i and j."""
    for t in range(notches.shape[1]):
        if (notches[i, t] >= last) != (notches[j, t] >= last):
            return False
    return True


@njit(cache=True)
def _fill(
    out,
    i,
    li,
    ti,
    value,
    l_notch,
    l_vals,
    l_h,
    l_acts,
    l_phs,
    l_nact,
    l_lost,
    lost_points,
    search_of,
    offset,
    searches,
    used0,
):
    """Write candidate ``i``: leaf ``li``'s slides and blocks, then its tail ``ti`` (over a
    duplicate that may have been written there before)."""
    out.actions[i] = -1
    out.phases[i] = -1
    na = l_nact[li]
    out.actions[i, :na] = l_acts[li, :na]
    out.phases[i, :na] = l_phs[li, :na]
    out.value[i] = value
    out.notches[i] = l_notch[li]
    if l_lost[li]:
        out.n_actions[i] = na
        out.points[i] = lost_points[li]
        out.values[i] = l_vals[li]
        out.used[i] = used0
        out.heights[i] = l_h[li]
        out.ends_game[i] = True
        out.combo_kind[i], out.combo_size[i] = -1, 0
        out.terms[i] = 0.0
        out.has_terms[i] = False
        return
    (
        _,
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
    ) = searches[search_of[li]]
    ti = rank[ti]
    k = t_nact[ti]
    out.actions[i, na : na + k] = t_actions[ti, :k]
    out.phases[i, na : na + k] = t_phases[ti, :k]
    out.n_actions[i] = na + k
    out.points[i] = t_points[ti]
    out.values[i] = r_vals[t_row[ti]]
    out.used[i] = used0
    for a in range(t_size[ti]):
        out.used[i, t_cells[ti, a]] = True
    out.heights[i] = r_heights[t_row[ti]]
    out.combo_kind[i], out.combo_size[i] = t_kind[ti], t_size[ti]
    out.ends_game[i] = t_ends[ti]
    out.terms[i, :4] = t_terms[ti]
    out.terms[i, 4] = offset[li]
    out.has_terms[i] = True


# ---------------------------------------------------------------------------- feature rows
@njit(cache=True)
def feature_count(ints):
    """Columns of a candidate's feature row: 21 numbers, the heights, the boxes, the letters
    circled and the notches (``turn_env.CANDIDATE_FEATURES`` names them)."""
    n_box = len(ints) - N_INTS
    return 21 + ints[I_COLS] + 2 * n_box + 1 + n_box + ints[I_LETTERS]


@njit(cache=True)
def candidate_features(
    a_value,
    a_points,
    a_values,
    a_used,
    a_heights,
    a_notches,
    a_kind,
    a_size,
    a_ends,
    a_terms,
    identical,
    consecutive,
    bonus,
    circled,
    crossed,
    box,
    ints,
    slots,
    n_features,
):
    """``NumberDropTurn-v0``'s ``candidates`` rows (see ``turn_env.CANDIDATE_FEATURES``), each
    computed in float64 as the NumPy reference does, then stored as float32."""
    rows, cols, reg, last = ints[I_ROWS], ints[I_COLS], ints[I_REG], ints[I_LAST]
    maxn, bonus_size = ints[I_MAXN], ints[I_BONUS]
    nb = len(box)
    if n_features != feature_count(ints):
        raise ValueError("candidate_features: n_features does not match the rules' feature rows")
    out = np.zeros((slots, n_features), np.float32)
    for k in range(min(len(a_value), slots)):
        row = out[k]
        h = a_heights[k]
        holes = hole_rows = full_rows = penalty_rows = filled_cells = free_numbers = 0
        for r in range(rows):
            filled_row = 0
            holes_row = 0
            for c in range(cols):
                v = a_values[k, r * cols + c]
                if v != EMPTY:
                    filled_row += 1
                    if v <= maxn and not a_used[k, r * cols + c]:
                        free_numbers += 1
                elif r < h[c]:
                    holes_row += 1
            holes += holes_row
            filled_cells += filled_row
            if r < reg:
                hole_rows += holes_row > 0
                full_rows += filled_row == cols
            elif filled_row > 0:
                penalty_rows += 1
        bump = 0
        top = h[0]
        for c in range(1, cols):
            bump += abs(h[c] - h[c - 1])
            top = max(top, h[c])
        kind, size = a_kind[k], a_size[k]
        row[0] = 1.0
        row[1] = a_value[k] / 10.0
        row[2] = a_points[k] / 10.0
        row[3] = kind == 0
        row[4] = kind == 1
        row[5] = size / bonus_size
        row[6] = a_ends[k]
        for t in range(5):
            row[7 + t] = a_terms[k, t] / 10.0
        row[12] = remaining_turns(a_notches[k], last) / 10
        row[13] = holes / 10
        row[14] = hole_rows / reg
        row[15] = full_rows / reg
        row[16] = penalty_rows / (rows - reg)
        row[17] = filled_cells / (rows * cols)
        row[18] = free_numbers / 20
        row[19] = top / rows
        row[20] = bump / 20
        j = 21
        for c in range(cols):
            row[j + c] = h[c] / rows
        j += cols
        for b in range(nb):
            row[j + b] = identical[b] or (kind == 0 and size == box[b])
            row[j + nb + b] = consecutive[b] or (kind == 1 and size == box[b])
        row[j + 2 * nb] = bonus or (kind >= 0 and size == bonus_size)
        j += 2 * nb + 1
        for b in range(nb):
            row[j + b] = circled[b] or (row[21 + cols + b] > 0 and row[21 + cols + nb + b] > 0 and not crossed[b])
        j += nb
        for t in range(a_notches.shape[1]):
            row[j + t] = a_notches[k, t] / last
    return out


@njit(cache=True)
def _put(out, j, flags):
    """Write ``flags`` into ``out`` from index j on; returns the index after them."""
    for b in range(len(flags)):
        out[j + b] = flags[b]
    return j + len(flags)


@njit(cache=True)
def turn_state(
    dice,
    shape_die,
    identical,
    consecutive,
    bonus,
    circled,
    lines,
    penalties,
    tiles,
    notches,
    heights,
    extra,
    n_dice,
    n_faces,
    n_shape_die,
    n_shapes,
    last,
    rows,
):
    """``NumberDropTurn-v0``'s ``state`` vector (see ``turn_env._state_reference``): the sorted
    number dice one-hot (a star in the last column), the shape die one-hot (``shape_die``
    its face, -1 for none), the boxes, the board, the heights and ``extra``."""
    size = (
        n_dice * n_faces
        + n_shape_die
        + 3 * len(identical)
        + 1
        + len(lines)
        + len(penalties)
        + len(tiles) * (n_shapes + last + 1)
        + len(heights)
        + len(extra)
    )
    out = np.zeros(size, np.float32)
    for i in range(len(dice)):
        out[i * n_faces + (n_faces - 1 if dice[i] == WILD else dice[i])] = 1.0
    j = n_dice * n_faces
    if shape_die >= 0:
        out[j + shape_die] = 1.0
    j = _put(out, j + n_shape_die, identical)
    j = _put(out, j, consecutive)
    out[j] = bonus
    j = _put(out, j + 1, circled)
    j = _put(out, j, lines)
    j = _put(out, j, penalties)
    width = n_shapes + last + 1
    for t in range(len(tiles)):
        out[j + t * width + tiles[t]] = 1.0
        out[j + t * width + n_shapes + notches[t]] = 1.0
    j += len(tiles) * width
    for c in range(len(heights)):
        out[j + c] = heights[c] / rows
    j += len(heights)
    for e in range(len(extra)):
        out[j + e] = extra[e]
    return out


@njit(cache=True)
def turn_states_packed(states, extra, die_of_face, ints, n_dice, n_faces, n_shape_die, n_shapes, out):
    """:func:`turn_state` of packed games inside a turn (rows of ``states``, see ``turns.pack``)
    with their ``extra`` rows, written into ``out``; ``die_of_face[f]`` is the shape die's face
    showing shape f, its last entry the star's."""
    o = state_offsets(ints)
    for g in range(states.shape[0]):
        s = states[g]
        out[g] = turn_state(
            s[o[12] : o[13]],
            die_of_face[s[o[13]]],
            s[o[6] : o[7]],
            s[o[7] : o[8]],
            s[o[11]],
            s[o[5] : o[6]],
            s[o[9] : o[10]],
            s[o[10] : o[11]],
            s[o[4] : o[5]],
            s[o[3] : o[4]],
            s[o[2] : o[3]],
            extra[g],
            n_dice,
            n_faces,
            n_shape_die,
            n_shapes,
            ints[I_LAST],
            ints[I_ROWS],
        )


# ---------------------------------------------------------------------------- many games at once
@njit(cache=True)
def turn_costs(states, ints):
    """A rough relative cost of enumerating each packed game's turn, to hand the dearest out
    first (fitted on random play): a star on the shape die multiplies it by about 2.3, each
    letter one notch from its block by about 1.8 (a block may drop), each wild die by 1.15."""
    o = state_offsets(ints)
    out = np.empty(states.shape[0])
    for g in range(states.shape[0]):
        s = states[g]
        cost = 2.3 if s[o[13]] < 0 else 1.0
        for t in range(o[3], o[4]):
            cost *= 1.8 if s[t] == ints[I_LAST] - 1 else 1.0
        for d in range(o[12], o[13]):
            cost *= 1.15 if s[d] == WILD else 1.0
        out[g] = cost
    return out


@njit(cache=True, nogil=True)
def enumerate_many(
    states,
    order,
    lo,
    hi,
    table,
    nbrs,
    kweights,
    ints,
    floats,
    with_features,
    count,
    actions,
    phases,
    n_actions,
    value,
    points,
    values,
    used,
    heights,
    notches,
    combo_kind,
    combo_size,
    ends_game,
    terms,
    has_terms,
    features,
):
    """:func:`enumerate_packed` (and, ``with_features``, :func:`candidate_features`) of the packed
    games ``order[lo:hi]``, written into their rows of the output arrays (padded to the
    slots of ``features``; ``count[g]`` says how many rows of game g are candidates).

    It holds no GIL, so a few Python threads each given a share of the games run on every
    core; each call reads its own copies of the shared tables (threads that share an array
    contend for its reference count)."""
    o = state_offsets(ints)
    table, nbrs, kweights, ints, floats = table.copy(), nbrs.copy(), kweights.copy(), ints.copy(), floats.copy()
    box = ints[N_INTS:]
    slots = features.shape[1]
    no_rivals = np.zeros((0, 0))
    for g in order[lo:hi]:
        state = states[g].copy()  # this thread's own: views of the shared rows would share their count
        r = enumerate_packed(state, no_rivals, table, nbrs, kweights, ints, floats)
        k = len(r.value)
        count[g] = k
        actions[g, :k] = r.actions
        phases[g, :k] = r.phases
        n_actions[g, :k] = r.n_actions
        value[g, :k] = r.value
        points[g, :k] = r.points
        values[g, :k] = r.values
        used[g, :k] = r.used
        heights[g, :k] = r.heights
        notches[g, :k] = r.notches
        combo_kind[g, :k] = r.combo_kind
        combo_size[g, :k] = r.combo_size
        ends_game[g, :k] = r.ends_game
        terms[g, :k] = r.terms
        has_terms[g, :k] = r.has_terms
        if with_features:
            features[g] = candidate_features(
                r.value,
                r.points,
                r.values,
                r.used,
                r.heights,
                r.notches,
                r.combo_kind,
                r.combo_size,
                r.ends_game,
                r.terms,
                state[o[6] : o[7]] != 0,
                state[o[7] : o[8]] != 0,
                state[o[11]] != 0,
                state[o[5] : o[6]] != 0,
                state[o[8] : o[9]] != 0,
                box,
                ints,
                slots,
                features.shape[2],
            )


@njit(cache=True)
def finish_turns(states, games, chosen, values, used, heights, notches, combo_kind, combo_size, has_terms, ints, over):
    """``SoloGame.play_afterstate`` on packed games, up to the next roll: game ``g = games[j]``
    (row g of ``states``) jumps to the afterstate of its candidate ``chosen[j]`` (row g of the
    candidate arrays), ticks the box its combination scores (circling a letter both boxes
    complete), ticks completed lines and occupied penalty rows, and ``over[j]`` says whether
    the game ended (a penalty row reached, the tetromino lost, every letter at its last notch)."""
    o = state_offsets(ints)
    box = ints[N_INTS:]
    rows, cols = ints[I_ROWS], ints[I_COLS]
    for j in range(len(games)):
        g, c = games[j], chosen[j]
        s = states[g]
        for i in range(rows * cols):
            s[o[0] + i] = values[g, c, i]
            s[o[1] + i] = used[g, c, i]
        s[o[2] : o[3]] = heights[g, c]
        s[o[3] : o[4]] = notches[g, c]
        size = combo_size[g, c]
        if combo_kind[g, c] >= 0 and size == ints[I_BONUS]:
            s[o[11]] = 1
        elif combo_kind[g, c] >= 0:
            for b in range(len(box)):
                if box[b] == size:
                    s[(o[6] if combo_kind[g, c] == 0 else o[7]) + b] = 1
                    if s[o[6] + b] != 0 and s[o[7] + b] != 0 and s[o[8] + b] == 0:
                        s[o[5] + b] = 1
        grid = s[o[0] : o[1]].reshape((rows, cols))
        crossed = tick_lines_and_penalties(grid, ints[I_REG], s[o[9] : o[10]], s[o[10] : o[11]])
        over[j] = crossed or not has_terms[g, c] or s[o[3] : o[4]].min() >= ints[I_LAST]


@njit(cache=True)
def start_turns(states, games, dice, shape, ints):
    """Start the next turn of packed games: game ``games[j]`` rolled number dice ``dice[j]`` (in
    die order) and shape face ``shape[j]`` (a shape index, -1 for the star); its row becomes
    the turn's first decision (phase slide, its star slide owed when a die shows a star)."""
    o = state_offsets(ints)
    for j in range(len(games)):
        s = states[games[j]]
        ordered = np.sort(np.where(dice[j] == WILD, 1 << 30, dice[j]))  # stars last
        star = shape[j] < 0
        for k in range(len(ordered)):
            s[o[12] + k] = WILD if ordered[k] == 1 << 30 else ordered[k]
            star = star or ordered[k] == 1 << 30
        s[o[13]], s[o[14]], s[o[15]] = shape[j], star, SLIDE
        s[o[16] : o[18]] = -1  # no block dropping, no cells fixed


@njit(cache=True)
def score_rows(states, ints, parts, boxes):
    """``Sheet.score_breakdown`` of packed games, one row of ``parts`` each (identical,
    consecutive, bonus, column bonuses, lines, penalties, total), and their ticked boxes."""
    o = state_offsets(ints)
    box = ints[N_INTS:]
    for g in range(states.shape[0]):
        s = states[g]
        identical = consecutive = ticked_identical = ticked_consecutive = 0
        for b in range(len(box)):
            identical += box[b] * (s[o[6] + b] != 0)
            consecutive += box[b] * (s[o[7] + b] != 0)
            ticked_identical += s[o[6] + b] != 0
            ticked_consecutive += s[o[7] + b] != 0
        bonus = s[o[11]] != 0
        lines = penalties = 0
        for r in range(o[9], o[10]):
            lines += s[r] != 0
        for r in range(o[10], o[11]):
            penalties += s[r] != 0
        parts[g, 0] = identical
        parts[g, 1] = consecutive
        parts[g, 2] = ints[I_BONUS] * bonus
        parts[g, 3] = ints[I_FULL_COL] * ((ticked_identical == len(box)) + (ticked_consecutive == len(box)))
        parts[g, 4] = ints[I_LINE_PTS] * lines
        parts[g, 5] = -ints[I_PEN_PTS] * penalties
        parts[g, 6] = parts[g, 0] + parts[g, 1] + parts[g, 2] + parts[g, 3] + parts[g, 4] + parts[g, 5]
        boxes[g] = ticked_identical + ticked_consecutive + bonus
