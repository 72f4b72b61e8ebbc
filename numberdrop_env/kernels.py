"""Compiled (numba) kernels of the sheet evaluation in :mod:`numberdrop_env.heuristic`.

The planner values every (placement, writing, combination) it keeps: a dozen flood fills,
path searches and box credits per written tetromino, ~30 per turn. Those are short loops
over a 7 x 14 grid with data-dependent branches (a flood fill, a matching), which NumPy
cannot vectorise; in pure Python they were most of a turn's time.

Conventions: a sheet is flat (cell ``row * cols + column``); ``nbrs`` is the (cells, 4)
neighbour table of :func:`numberdrop_env.combos.neighbour_table` (padded with the
number of cells), in the order down, up, right, left (the order the flood
fills and ties follow); box targets are int arrays of box sizes in the order the
heuristic lists them (open regular boxes ascending, then the bonus box).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .rules import EMPTY


@njit(cache=True)
def structures(vals, used, nbrs, max_number):
    """Same-valued regions and increasing paths of the unused numbers.

    Returns ``free`` (unused number), ``region`` (region id or -1), ``start`` and
    ``members`` (region r is ``members[start[r]:start[r + 1]]`` in flood-fill order; ids in
    order of their lowest cell), ``n_regions``, ``up`` / ``down`` (longest path of values
    +1 / -1 from each cell, itself included) and ``up_next`` (next cell of the up path).
    """
    n = vals.shape[0]
    free = np.zeros(n, np.bool_)
    for i in range(n):
        free[i] = vals[i] >= 0 and vals[i] <= max_number and not used[i]
    region = np.full(n, -1, np.int64)
    members = np.empty(n, np.int64)
    start = np.zeros(n + 1, np.int64)
    stack = np.empty(n, np.int64)
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
    # free cells by value (counting sort): a path steps from value v to v + 1, so the paths
    # up are known value by value from the top, the paths down from the bottom
    first = np.zeros(max_number + 2, np.int64)
    for i in range(n):
        if free[i]:
            first[vals[i] + 1] += 1
    for v in range(max_number + 1):
        first[v + 1] += first[v]
    by_value = np.empty(first[max_number + 1], np.int64)
    fill = first[: max_number + 1].copy()
    for i in range(n):
        if free[i]:
            by_value[fill[vals[i]]] = i
            fill[vals[i]] += 1
    up = np.zeros(n, np.int64)
    down = np.zeros(n, np.int64)
    up_next = np.full(n, -1, np.int64)
    for a in range(len(by_value) - 1, -1, -1):
        i = by_value[a]
        v = vals[i]
        best, nxt = 0, -1
        for q in range(4):
            k = nbrs[i, q]
            if k < n and free[k] and vals[k] == v + 1 and up[k] > best:
                best, nxt = up[k], k
        up[i] = best + 1
        up_next[i] = nxt
    for a in range(len(by_value)):
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
def _growable(i, vals, heights, nbrs, cols, reg_rows):
    """A cell next to an empty cell that a later piece can still fill (on top, in a regular row)."""
    for q in range(4):
        k = nbrs[i, q]
        if k < vals.shape[0] and vals[k] == EMPTY:
            r = k // cols
            if r >= heights[k % cols] and r < reg_rows:
                return True
    return False


@njit(cache=True)
def _box_values(targets, bonus_size, one_column, two_columns):
    """Value of each target box: its size, plus a share of the +10 column bonus when one or
    two regular boxes of the kind are left."""
    regular = 0
    for k in targets:
        if k != bonus_size:
            regular += 1
    out = np.empty(len(targets))
    for j in range(len(targets)):
        out[j] = float(targets[j])
        if targets[j] != bonus_size:
            if regular == 1:
                out[j] += one_column
            elif regular == 2:
                out[j] += two_columns
    return out


@njit(cache=True)
def _assign(values, owners, boxes, count, n_owners, out, n_out):
    """Greedy matching, best credit first (ties: higher owner, then higher box): each
    structure credits one box and each box is credited once. Appends to ``out``.

    At most one credit per box is taken, so the best eligible credit is picked again and
    again (the order a sort of all of them would give, at a fraction of its cost).
    """
    owner_used = np.zeros(n_owners, np.bool_)
    box_used = np.zeros(boxes[:count].max() + 1 if count else 1, np.bool_)
    while True:
        best = -1
        for t in range(count):
            if owner_used[owners[t]] or box_used[boxes[t]]:
                continue
            if best < 0 or (values[t] > values[best] or (values[t] == values[best] and (
                    owners[t] > owners[best] or (owners[t] == owners[best] and boxes[t] > boxes[best])))):
                best = t
        if best < 0:
            return n_out
        owner_used[owners[best]] = True
        box_used[boxes[best]] = True
        out[n_out] = values[best]
        n_out += 1


@njit(cache=True)
def potential(vals, heights, free, start, members, up, down, up_next, nbrs, ident_targets, cons_targets,
              weights, bonus_size, cols, reg_rows, max_number, limit):
    """The promise of the unused numbers for the open boxes (see the heuristic's docstring).

    ``weights`` = (ready, progress, power, buried, one column share, two columns share);
    ``limit`` < 0 counts every credit, else only the ``limit`` largest.
    """
    ready, progress, power, buried = weights[0], weights[1], weights[2], weights[3]
    n = vals.shape[0]
    n_regions = len(start) - 1
    credits = np.empty(n_regions + n + 2)
    n_credits = 0
    if len(ident_targets) > 0:
        box_value = _box_values(ident_targets, bonus_size, weights[4], weights[5])
        size = n_regions * len(ident_targets)
        tv, ts, tk = np.empty(size), np.empty(size, np.int64), np.empty(size, np.int64)
        count = 0
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
                            if _growable(members[a], vals, heights, nbrs, cols, reg_rows):
                                grow = 1
                                break
                    credit = progress * (m / k) ** power * (1.0 if grow == 1 else buried)
                tv[count], ts[count], tk[count] = box_value[j] * credit, sid, k
                count += 1
        n_credits = _assign(tv, ts, tk, count, max(n_regions, 1), credits, n_credits)
    if len(cons_targets) > 0:
        box_value = _box_values(cons_targets, bonus_size, weights[4], weights[5])
        size = n * len(cons_targets)
        tv, ts, tk = np.empty(size), np.empty(size, np.int64), np.empty(size, np.int64)
        count = 0
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
                        grow = 1 if ((lo > 0 and _growable(i, vals, heights, nbrs, cols, reg_rows)) or
                                     (hi < max_number and _growable(end, vals, heights, nbrs, cols, reg_rows))) else 0
                    credit = progress * (length / k) ** power * (1.0 if grow == 1 else buried)
                tv[count], ts[count], tk[count] = box_value[j] * credit, i, k
                count += 1
        n_credits = _assign(tv, ts, tk, count, n, credits, n_credits)
    kept = credits[:n_credits]
    if limit >= 0 and n_credits > limit:
        kept = np.sort(kept)[::-1][:limit]
    total = 0.0
    for c in kept:
        total += c
    return total


@njit(cache=True)
def combinations(vals, free, region, start, members, up, up_next, nbrs, ident_sizes, cons_targets):
    """One canonical combination per open box: ``kinds`` (0 identical, 1 consecutive),
    ``sizes`` and ``cells`` (one row per combination, in selection order, padded with -1).

    Identical: the smallest region big enough (ties: lowest id), cut to k cells grown
    breadth-first from its lowest cell. Consecutive: the shortest up path long enough
    (ties: lowest start cell), its first k cells.
    """
    m = len(ident_sizes) + len(cons_targets)
    kinds = np.zeros(m, np.int64)
    sizes = np.zeros(m, np.int64)
    cells = np.full((m, 8), -1, np.int64)
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
    return kinds[:count], sizes[:count], cells[:count]


@njit(cache=True)
def local_scores(table, flat, written, tie, nbrs):
    """(P, Q) local score of writing ``written[q]`` into the landed cells ``flat[p]``.

    ``table[c, v]`` is the score of value v written next to cell c (row ``cells`` is the
    padding, zeros). A neighbour that is itself a new cell counts instead as 1 when the
    two new values differ by at most 1. Scores are sums of halves, exact in any order.
    """
    n_p, n_q, width = flat.shape[0], written.shape[0], flat.shape[1]
    contrib = np.zeros((n_p, width, table.shape[1]))
    adjacent = np.zeros((n_p, width, width), np.bool_)
    for p in range(n_p):
        for i in range(width):
            for q in range(4):
                c = nbrs[flat[p, i], q]
                own = -1
                for j in range(width):
                    if flat[p, j] == c:
                        own = j
                if own >= 0:
                    adjacent[p, i, own] = True
                else:
                    contrib[p, i, :] += table[c, :]
    score = np.empty((n_p, n_q))
    for p in range(n_p):
        for q in range(n_q):
            s = 0.0
            for i in range(width):
                s += contrib[p, i, written[q, i]]
                for j in range(i + 1, width):
                    if adjacent[p, i, j] and abs(written[q, i] - written[q, j]) <= 1:
                        s += 1.0
            score[p, q] = s - tie[q]
    return score


@njit(cache=True)
def _without(targets, k):
    count = 0
    out = np.empty(len(targets), np.int64)
    for t in targets:
        if t != k:
            out[count] = t
            count += 1
    return out[:count]


@njit(cache=True)
def written_sheet(vals, used, heights, nbrs, ident_targets, cons_targets, ident_sizes, weights, bonus_size, cols,
                  reg_rows, max_number, limit, with_potential):
    """Everything the planner asks of a sheet just written: the potential if the turn passes,
    and each canonical combination (kinds, sizes, cells) with the potential left after it
    (its box closed, its cells used). Without ``with_potential`` the potentials are 0."""
    free, region, start, members, up, down, up_next = structures(vals, used, nbrs, max_number)
    kinds, sizes, cells = combinations(vals, free, region, start, members, up, up_next, nbrs, ident_sizes,
                                       cons_targets)
    after = np.zeros(len(kinds))
    if not with_potential:
        return 0.0, kinds, sizes, cells, after
    now = potential(vals, heights, free, start, members, up, down, up_next, nbrs, ident_targets, cons_targets,
                    weights, bonus_size, cols, reg_rows, max_number, limit)
    for c in range(len(kinds)):
        k = sizes[c]
        used2 = used.copy()
        for a in range(k):
            used2[cells[c, a]] = True
        free2, _, start2, members2, up2, down2, next2 = structures(vals, used2, nbrs, max_number)
        ident2 = _without(ident_targets, k) if kinds[c] == 0 or k == bonus_size else ident_targets
        cons2 = _without(cons_targets, k) if kinds[c] != 0 or k == bonus_size else cons_targets
        after[c] = potential(vals, heights, free2, start2, members2, up2, down2, next2, nbrs, ident2, cons2,
                             weights, bonus_size, cols, reg_rows, max_number, limit)
    return now, kinds, sizes, cells, after
