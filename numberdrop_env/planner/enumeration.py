"""The compiled turn engine: a sheet and a roll in, the ranked distinct candidates out (``TurnArrays``).

It computes exactly what ``.turns_python`` computes, over flat arrays: the slides and block drops
(``.slides``), one memoised tetromino search per distinct sheet (``.tetromino``), the leaves'
tails merged by value (ties as ``heapq.merge``) and deduplicated by afterstate. Floating-point
sums follow the specification operation by operation, so values are bitwise equal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .geometry import PAIRWISE, geometry, legal_placements
from .kernels import sheet_work
from .packing import (
    ARRANGE,
    F_HURT,
    F_LETTER,
    F_LETTER_HALF,
    F_THREAT,
    I_BONUS,
    I_COLS,
    I_LAST,
    I_MAXN,
    I_WILD_DEFAULT,
    MAX_ACTIONS,
    Boxes,
    Position,
    TurnArrays,
    same_rows,
    state_offsets,
)
from .slides import Leaves, leaves
from .tetromino import dice_writings, tetromino_tails


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
def enumerate_packed(state, rivals, rules):
    """``enumerate_turn`` of a packed game; ``rivals`` is (2, letters), or (0, 0) at a solo game."""
    o = state_offsets(rules.ints)
    identical, consecutive = state[o[6] : o[7]] != 0, state[o[7] : o[8]] != 0
    position = Position(
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
    )
    boxes = _boxes(identical, consecutive, state[o[11]] != 0, rules)
    return enumerate_turn(position, rivals, boxes, state[o[18]], rules)


@njit(cache=True)
def _boxes(identical, consecutive, bonus, rules):
    """The ``Boxes`` of a sheet with these boxes ticked."""
    box, bonus_size = rules.box, rules.ints[I_BONUS]
    ident_targets = _targets(identical, box, bonus, bonus_size)
    cons_targets = _targets(consecutive, box, bonus, bonus_size)
    ident_done, cons_done = 0, 0
    for b in range(len(box)):
        ident_done += identical[b]
        cons_done += consecutive[b]
    return Boxes(
        ident_targets, cons_targets, _distinct(ident_targets), ident_done, cons_done, identical == 0, consecutive == 0
    )


@njit(cache=True)
def _distinct(a):
    """``np.unique`` of a few integers (ascending, each once), without compiling NumPy's sort."""
    out = np.empty(len(a), np.int64)
    k = 0
    for v in a:
        j = 0
        while j < k and out[j] < v:
            j += 1
        if j < k and out[j] == v:
            continue
        for m in range(k, j, -1):
            out[m] = out[m - 1]
        out[j] = v
        k += 1
    return out[:k]


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


@njit(cache=True, inline="always")
def enumerate_turn(position, rivals, boxes, limit, rules):
    """The distinct candidates of the rest of a turn, best first, up to ``limit`` (all when
    negative); at ARRANGE the pending cells are ``position.fixed``."""
    vals0, heights0, notches0, phase0 = position.values, position.heights, position.notches, position.phase
    circled, identical, consecutive = position.circled, position.identical, position.consecutive
    ints, floats = rules.ints, rules.floats
    n, cols, last = vals0.shape[0], ints[I_COLS], ints[I_LAST]
    n_t = notches0.shape[0]
    if phase0 == ARRANGE:
        l_notch, l_vals = notches0.reshape(1, n_t).copy(), vals0.reshape(1, n).copy()
        l_h = heights0.reshape(1, cols).copy()
        l_acts, l_phs = np.zeros((1, 6), np.int64), np.zeros((1, 6), np.int64)
        l_nact, l_lost = np.zeros(1, np.int64), np.zeros(1, np.bool_)
    else:
        l_notch, l_vals, l_h, l_acts, l_phs, l_nact, l_lost = leaves(position, boxes, rules)
    n_leaves = l_notch.shape[0]
    writings = dice_writings(position.dice, ints[I_MAXN], ints[I_WILD_DEFAULT])
    allowed = np.zeros(rules.owner.max() + 1, np.bool_)
    if position.face < 0:
        allowed[:] = True
    else:
        allowed[position.face] = True
    has_rivals = rivals.shape[0] > 0
    work = sheet_work(n, ints[I_MAXN], len(boxes.ident_targets), len(boxes.cons_targets))
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
            if t_rems[o] == t_rem and same_rows(l_vals, o, l_vals, li) and _same_last(l_notch, o, li, last):
                search_of[li] = s
                break
        if search_of[li] >= 0:
            continue
        live = _letter_values(l_notch[li], circled, rivals, has_rivals, floats, last)
        placed = np.empty((rules.dr.shape[0], 2), np.int64)
        if phase0 == ARRANGE:
            n_placed = 0
        else:
            n_placed = legal_placements(l_h[li], allowed, rules, placed)
        tails = tetromino_tails(
            l_vals[li], l_h[li], placed[:n_placed], t_rem, live, position, boxes, writings, rules, work
        )
        searches.append(tails)
        owners[n_search] = li
        search_of[li] = n_search
        n_search += 1
    found = Leaves(l_notch, l_vals, l_h, l_acts, l_phs, l_nact, l_lost)
    return _merge(found, search_of, offset, searches, position, limit, rules)


@njit(cache=True, inline="always")
def _merge(leaves, search_of, offset, searches, position, limit, rules):
    """Merge the leaves' sorted tails by value (ties: leaf order, then tail order), keeping the
    first candidate of each afterstate, up to ``limit``."""
    used0, lines0, penalties0 = position.used, position.lines, position.penalties
    ints, floats = rules.ints, rules.floats
    l_notch, l_vals, l_h, l_lost = leaves.notches, leaves.values, leaves.heights, leaves.lost
    n_leaves, n_t = l_notch.shape
    n, cols = l_vals.shape[1], l_h.shape[1]
    length = np.ones(n_leaves, np.int64)
    lost_points = np.zeros(n_leaves, np.int64)
    n_search = len(searches)
    search_start = np.zeros(n_search + 1, np.int64)
    for si in range(n_search):
        search_start[si + 1] = search_start[si] + searches[si].value.shape[0]
    tail_value = np.empty(search_start[n_search])  # every search's sorted values, one after the other
    for si in range(n_search):
        tail_value[search_start[si] : search_start[si + 1]] = searches[si].value
    head = np.empty(n_leaves)  # the value of each leaf's next tail
    for li in range(n_leaves):
        if l_lost[li]:
            _, lp, pp = geometry(l_vals[li], l_h[li], lines0, penalties0, ints, floats, PAIRWISE)
            lost_points[li] = lp + pp
            head[li] = float(lp + pp)
        else:
            si = search_of[li]
            length[li] = search_start[si + 1] - search_start[si]
            head[li] = offset[li] + tail_value[search_start[si]]
    total = length.sum()
    cap = total if limit < 0 else min(total, limit)
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
    count = np.int64(0)  # numpy, not literal, ints: see slides.BLOCK_DROP
    while count < cap:
        li, best = np.int64(-1), 0.0
        for j in range(n_leaves):
            if ptr[j] < length[j] and (li < 0 or head[j] > best):
                li, best = j, head[j]
        if li < 0:
            break
        ti = ptr[li]
        ptr[li] += 1
        if ptr[li] < length[li]:
            head[li] = offset[li] + tail_value[search_start[search_of[li]] + ptr[li]]
        na = _fill_leaf(out, count, best, leaves, li)
        if l_lost[li]:
            _fill_lost(out, count, leaves, li, lost_points[li], used0)
        else:
            _fill_tail(out, count, na, searches[search_of[li]], ti, offset[li], used0)
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
                and same_rows(o_values, other, o_values, count)
                and same_rows(o_used, other, o_used, count)
                and same_rows(o_notches, other, o_notches, count)
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
def _same_last(notches, i, j, last):
    """Whether the same tiles are at the last notch in rows i and j."""
    for t in range(notches.shape[1]):
        if (notches[i, t] >= last) != (notches[j, t] >= last):
            return False
    return True


@njit(cache=True, inline="always")
def _fill_leaf(out, i, value, leaves, li):
    """Write candidate ``i``'s value, notches and its leaf's actions (over a duplicate written there
    before); returns how many actions."""
    out.actions[i] = -1
    out.phases[i] = -1
    na = leaves.n_actions[li]
    out.actions[i, :na] = leaves.actions[li, :na]
    out.phases[i, :na] = leaves.phases[li, :na]
    out.value[i] = value
    out.notches[i] = leaves.notches[li]
    return na


@njit(cache=True, inline="always")
def _fill_lost(out, i, leaves, li, points, used0):
    """The rest of candidate ``i`` whose leaf ``li`` loses the tetromino: the game ends there."""
    out.n_actions[i] = leaves.n_actions[li]
    out.points[i] = points
    out.values[i] = leaves.values[li]
    out.used[i] = used0
    out.heights[i] = leaves.heights[li]
    out.ends_game[i] = True
    out.combo_kind[i], out.combo_size[i] = -1, 0
    out.terms[i] = 0.0
    out.has_terms[i] = False


@njit(cache=True, inline="always")
def _fill_tail(out, i, na, tails, ti, letter_half, used0):
    """The rest of candidate ``i``: tail ``ti`` (in value order), after the leaf's ``na`` actions."""
    ti = tails.rank[ti]
    k = tails.n_actions[ti]
    out.actions[i, na : na + k] = tails.actions[ti, :k]
    out.phases[i, na : na + k] = tails.phases[ti, :k]
    out.n_actions[i] = na + k
    out.points[i] = tails.points[ti]
    out.values[i] = tails.sheet_values[tails.row[ti]]
    out.used[i] = used0
    for a in range(tails.size[ti]):
        out.used[i, tails.cells[ti, a]] = True
    out.heights[i] = tails.sheet_heights[tails.row[ti]]
    out.combo_kind[i], out.combo_size[i] = tails.kind[ti], tails.size[ti]
    out.ends_game[i] = tails.ends[ti]
    out.terms[i, :4] = tails.terms[ti]
    out.terms[i, 4] = letter_half
    out.has_terms[i] = True
