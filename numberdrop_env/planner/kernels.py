"""Compiled (numba) kernels of the sheet evaluation in ``numberdrop_env.planner.heuristic``.

Flood fills, path searches and box credits, a dozen per written tetromino: short loops with
data-dependent branches that NumPy cannot vectorise. Sheets are flat (``row * cols + column``);
``nbrs`` is ``engine.combos.neighbour_table`` (padded with the number of cells; down, up, right,
left: the order the flood fills and ties follow); box targets list the open boxes ascending, then the bonus.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..engine.rules import EMPTY
from .packing import I_BONUS, I_COLS, I_MAXN, I_REG


@njit(cache=True)
def structures(vals, used, nbrs, max_number):
    """Same-valued regions and increasing paths of the unused numbers (``structures_into``)."""
    n = vals.shape[0]
    return structures_into(
        vals, used, nbrs, max_number, np.empty(n, np.bool_), np.empty(8 * n + max_number + 3, np.int64)
    )


@njit(cache=True)
def structures_into(vals, used, nbrs, max_number, free, buffer):
    """Same-valued regions and increasing paths of the unused numbers, written into ``free`` and
    ``buffer`` (8 x cells + max_number + 3): ``free``, ``region`` (id or -1), ``start`` and ``members``
    (region r is ``members[start[r]:start[r + 1]]`` in flood-fill order, ids by lowest cell), ``up`` /
    ``down`` (longest path of values +1 / -1 from each cell, itself included) and ``up_next``."""
    n = vals.shape[0]
    for i in range(n):
        free[i] = vals[i] >= 0 and vals[i] <= max_number and not used[i]
    rows = buffer[: 7 * n].reshape(7, n)
    region, members, stack, up, down, up_next, by_value = rows[0], rows[1], rows[2], rows[3], rows[4], rows[5], rows[6]
    start = buffer[7 * n : 8 * n + 1]
    first = buffer[8 * n + 1 :]  # max_number + 2 entries
    region[:] = -1
    start[0] = 0
    n_regions = 0
    pos = 0
    for i in range(n):
        if not free[i] or region[i] >= 0:
            continue
        v = vals[i]
        region[i] = n_regions
        stack[0] = i
        top = 1
        while top > 0:
            top -= 1
            j = stack[top]
            members[pos] = j
            pos += 1
            for q in range(4):
                k = nbrs[j, q]
                if k < n and region[k] < 0 and free[k] and vals[k] == v:
                    region[k] = n_regions
                    stack[top] = k
                    top += 1
        n_regions += 1
        start[n_regions] = pos
    # free cells by value: the paths up are known value by value from the top, down from the bottom
    first[:] = 0
    for i in range(n):
        if free[i]:
            first[vals[i] + 1] += 1
    for v in range(max_number + 1):
        first[v + 1] += first[v]
    n_free = first[max_number + 1]
    for i in range(n):  # counting sort: ``first`` moves on to each value's end
        if free[i]:
            by_value[first[vals[i]]] = i
            first[vals[i]] += 1
    by_value = by_value[:n_free]
    up[:] = 0
    down[:] = 0
    up_next[:] = -1
    for a in range(n_free - 1, -1, -1):
        i = by_value[a]
        v = vals[i]
        best, nxt = 0, -1
        for q in range(4):
            k = nbrs[i, q]
            if k < n and free[k] and vals[k] == v + 1 and up[k] > best:
                best, nxt = up[k], k
        up[i] = best + 1
        up_next[i] = nxt
    for a in range(n_free):
        i = by_value[a]
        v = vals[i]
        best = 0
        for q in range(4):
            k = nbrs[i, q]
            if k < n and free[k] and vals[k] == v - 1 and down[k] > best:
                best = down[k]
        down[i] = best + 1
    return free, region, start[: n_regions + 1], members, up, down, up_next


@njit(cache=True)
def growable(i, vals, heights, nbrs, cols, reg_rows):
    """Whether cell i touches an empty cell that a later piece can still fill (on top of its
    column, in a regular row)."""
    for q in range(4):
        k = nbrs[i, q]
        if k < vals.shape[0] and vals[k] == EMPTY:
            r = k // cols
            if r >= heights[k % cols] and r < reg_rows:
                return True
    return False


@njit(cache=True)
def _power(x, power):
    """``x ** power``; a square is a product (the same double here, as the tests check), cheaper than ``pow``."""
    return x * x if power == 2.0 else x**power


@njit(cache=True)
def _box_value(targets, j, bonus_size, one_column, two_columns):
    """Target box j's size, plus a share of the column bonus when one or two regular boxes are left."""
    k = targets[j]
    if k == bonus_size:
        return float(k)
    regular = 0
    for t in targets:
        if t != bonus_size:
            regular += 1
    if regular == 1:
        return float(k) + one_column
    if regular == 2:
        return float(k) + two_columns
    return float(k)


@njit(cache=True)
def _assign(values, owners, boxes, count, out, n_out):
    """Greedy matching, best credit first (ties: higher owner, then higher box), appended to
    ``out``: each structure credits one box, each box once. Picking the best eligible credit again
    and again gives a sort's order at a fraction of its cost; taken owners and boxes become -1."""
    while True:
        best = -1
        for t in range(count):
            if owners[t] < 0 or boxes[t] < 0:
                continue
            if best < 0 or (
                values[t] > values[best]
                or (
                    values[t] == values[best]
                    and (owners[t] > owners[best] or (owners[t] == owners[best] and boxes[t] > boxes[best]))
                )
            ):
                best = t
        if best < 0:
            return n_out
        out[n_out] = values[best]
        n_out += 1
        owner, box = owners[best], boxes[best]
        for t in range(count):
            if owners[t] == owner:
                owners[t] = -1
            if boxes[t] == box:
                boxes[t] = -1


@njit(cache=True)
def potential_work(cells, targets):
    """Scratch space of ``potential_into`` for a sheet of ``cells`` and up to ``targets`` open boxes."""
    size = cells * max(targets, 1)
    return np.empty(2 * cells + 2 + size), np.empty(2 * size, np.int64)


@njit(cache=True)
def potential_into(vals, heights, st, ident_targets, cons_targets, limit, rules, work):
    """The promise of the unused numbers (``st``: ``structures``) for the open boxes, weighed by
    ``rules.kweights`` (``heuristic.kernel_weights``): ``limit`` < 0 counts every credit, else only
    the ``limit`` largest; ``work``: ``potential_work``."""
    free, _, start, members, up, down, up_next = st
    nbrs, weights, ints = rules.nbrs, rules.kweights, rules.ints
    cols, reg_rows, max_number, bonus_size = ints[I_COLS], ints[I_REG], ints[I_MAXN], ints[I_BONUS]
    work_floats, work_ints = work
    ready, progress, power, buried = weights[0], weights[1], weights[2], weights[3]
    n = vals.shape[0]
    n_regions = len(start) - 1
    size = work_ints.shape[0] // 2
    credits = work_floats[: 2 * n + 2]
    tv = work_floats[2 * n + 2 :]
    ts, tk = work_ints[:size], work_ints[size:]
    n_credits = np.int64(0)  # numpy, not literal, ints: see slides.BLOCK_DROP
    if len(ident_targets) > 0:
        count = np.int64(0)
        for sid in range(n_regions):
            m = start[sid + 1] - start[sid]
            if m < 2:
                continue
            grow = -1
            for j in range(len(ident_targets)):
                k = ident_targets[j]
                if m >= k:
                    credit = ready
                else:
                    if grow < 0:
                        grow = 0
                        for a in range(start[sid], start[sid + 1]):
                            if growable(members[a], vals, heights, nbrs, cols, reg_rows):
                                grow = 1
                                break
                    credit = progress * _power(m / k, power) * (1.0 if grow == 1 else buried)
                tv[count] = _box_value(ident_targets, j, bonus_size, weights[4], weights[5]) * credit
                ts[count], tk[count] = sid, k
                count += 1
        n_credits = _assign(tv, ts, tk, count, credits, n_credits)
    if len(cons_targets) > 0:
        count = np.int64(0)
        for i in range(n):
            if not free[i] or down[i] != 1 or up[i] < 2:
                continue
            length = up[i]
            lo = vals[i]
            hi = lo + length - 1
            grow = -1
            for j in range(len(cons_targets)):
                k = cons_targets[j]
                if length >= k:
                    credit = ready
                else:
                    if not (hi + (k - length) <= max_number or lo - (k - length) >= 0):
                        continue
                    if grow < 0:
                        end = i
                        while up_next[end] >= 0:
                            end = up_next[end]
                        grow = (
                            1
                            if (
                                (lo > 0 and growable(i, vals, heights, nbrs, cols, reg_rows))
                                or (hi < max_number and growable(end, vals, heights, nbrs, cols, reg_rows))
                            )
                            else 0
                        )
                    credit = progress * _power(length / k, power) * (1.0 if grow == 1 else buried)
                tv[count] = _box_value(cons_targets, j, bonus_size, weights[4], weights[5]) * credit
                ts[count], tk[count] = i, k
                count += 1
        n_credits = _assign(tv, ts, tk, count, credits, n_credits)
    if limit < 0 or n_credits <= limit:
        total = 0.0
        for a in range(n_credits):
            total += credits[a]
        return total
    for a in range(1, n_credits):  # the ``limit`` largest, largest first (insertion sort: a dozen credits)
        c = credits[a]
        b = a
        while b > 0 and credits[b - 1] < c:
            credits[b] = credits[b - 1]
            b -= 1
        credits[b] = c
    total = 0.0
    for a in range(limit):
        total += credits[a]
    return total


@njit(cache=True)
def combinations_into(vals, st, nbrs, ident_sizes, cons_targets, work):
    """One canonical combination per open box into ``work.kinds`` (0 identical, 1 consecutive),
    ``sizes`` and ``cells`` (selection order, padded with -1); returns how many. Identical: the
    smallest region big enough (ties: lowest id), k cells breadth-first from its lowest.
    Consecutive: the shortest up path long enough (ties: lowest start), its first k cells."""
    free, region, start, members, up, _, up_next = st
    kinds, sizes, cells = work.kinds, work.sizes, work.cells
    cells[:] = -1
    n = vals.shape[0]
    n_regions = len(start) - 1
    count = 0
    for k in ident_sizes:
        best, rid = 1 << 30, -1
        for r in range(n_regions):
            size = start[r + 1] - start[r]
            if k <= size < best:
                best, rid = size, r
        if rid < 0:
            continue
        first = members[start[rid]]
        for a in range(start[rid], start[rid + 1]):
            first = min(first, members[a])
        kinds[count], sizes[count] = 0, k
        cells[count, 0] = first
        got = 1
        head = 0
        while head < got and got < k:
            j = cells[count, head]
            head += 1
            for q in range(4):
                c = nbrs[j, q]
                if c < n and region[c] == rid and got < k:
                    seen = False
                    for b in range(got):
                        if cells[count, b] == c:
                            seen = True
                    if not seen:
                        cells[count, got] = c
                        got += 1
        count += 1
    for k in cons_targets:
        best, bi = 99, -1
        for i in range(vals.shape[0]):
            if free[i] and up[i] >= 3 and k <= up[i] < best:
                best, bi = up[i], i
        if bi < 0:
            continue
        kinds[count], sizes[count] = 1, k
        cells[count, 0] = bi
        for a in range(1, k):
            cells[count, a] = up_next[cells[count, a - 1]]
        count += 1
    return count


@njit(cache=True)
def _open_after(targets, k, closed, out):
    """The targets still open once box k is scored (``closed``: box k of this kind is), written
    into ``out``; returns how many."""
    count = 0
    for t in targets:
        if not (closed and t == k):
            out[count] = t
            count += 1
    return count


class SheetWork(NamedTuple):
    """Scratch space of ``written_sheet_into``, reused sheet after sheet."""

    free: np.ndarray
    buffer: np.ndarray
    used2: np.ndarray
    free2: np.ndarray
    buffer2: np.ndarray
    potential: tuple  # ``potential_work``
    ident2: np.ndarray
    cons2: np.ndarray
    kinds: np.ndarray
    sizes: np.ndarray
    cells: np.ndarray
    after: np.ndarray


@njit(cache=True)
def sheet_work(cells, max_number, n_ident, n_cons):
    """A ``SheetWork`` for sheets of ``cells`` with up to ``n_ident`` / ``n_cons`` open targets."""
    m = n_ident + n_cons
    return SheetWork(
        np.empty(cells, np.bool_),
        np.empty(8 * cells + max_number + 3, np.int64),
        np.empty(cells, np.bool_),
        np.empty(cells, np.bool_),
        np.empty(8 * cells + max_number + 3, np.int64),
        potential_work(cells, max(n_ident, n_cons)),
        np.empty(n_ident, np.int64),
        np.empty(n_cons, np.int64),
        np.empty(m, np.int64),
        np.empty(m, np.int64),
        np.empty((m, 8), np.int64),
        np.empty(m),
    )


@njit(cache=True)
def written_sheet_into(vals, used, heights, boxes, limit, with_potential, rules, work):
    """What the planner asks of a sheet just written: the potential if the turn passes, and each
    canonical combination (``work.kinds``, ``sizes``, ``cells``) with the potential after it
    (``work.after``), 0 without ``with_potential``. Returns (potential now, combinations)."""
    nbrs, max_number, bonus_size = rules.nbrs, rules.ints[I_MAXN], rules.ints[I_BONUS]
    ident_targets, cons_targets = boxes.ident_targets, boxes.cons_targets
    st = structures_into(vals, used, nbrs, max_number, work.free, work.buffer)
    count = combinations_into(vals, st, nbrs, boxes.ident_sizes, cons_targets, work)
    work.after[:count] = 0.0
    if not with_potential:
        return 0.0, count
    now = potential_into(vals, heights, st, ident_targets, cons_targets, limit, rules, work.potential)
    used2, ident2, cons2 = work.used2, work.ident2, work.cons2
    for c in range(count):
        k = work.sizes[c]
        used2[:] = used
        for a in range(k):
            used2[work.cells[c, a]] = True
        st2 = structures_into(vals, used2, nbrs, max_number, work.free2, work.buffer2)
        n_ident = _open_after(ident_targets, k, work.kinds[c] == 0 or k == bonus_size, ident2)
        n_cons = _open_after(cons_targets, k, work.kinds[c] != 0 or k == bonus_size, cons2)
        work.after[c] = potential_into(
            vals, heights, st2, ident2[:n_ident], cons2[:n_cons], limit, rules, work.potential
        )
    return now, count
