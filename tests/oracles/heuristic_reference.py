"""Pure-Python reference of the compiled sheet evaluation (numberdrop_env.planner.kernels).

Written cell by cell with Python lists and sets, the way the rules text reads, so the
kernels can be checked against it on many sheets. Slow; tests only.
"""

from __future__ import annotations

import numpy as np

from numberdrop_env.engine.rules import EMPTY


def neighbours(rows: int, cols: int) -> list[list[int]]:
    out = []
    for i in range(rows * cols):
        r, c = divmod(i, cols)
        out.append(
            [
                (r + dr) * cols + c + dc
                for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                if 0 <= r + dr < rows and 0 <= c + dc < cols
            ]
        )
    return out


def structures(vals: list[int], used: list[bool], nbrs, max_number: int = 9) -> dict:
    """Regions (flood fill from the lowest cell) and longest +1 / -1 paths of the unused numbers."""
    n = len(vals)
    free = [0 <= v <= max_number and not u for v, u in zip(vals, used)]
    region = [-1] * n
    regions: list[list[int]] = []
    for i in range(n):
        if not free[i] or region[i] >= 0:
            continue
        stack, members = [i], []
        region[i] = len(regions)
        while stack:
            j = stack.pop()
            members.append(j)
            for k in nbrs[j]:
                if region[k] < 0 and free[k] and vals[k] == vals[i]:
                    region[k] = len(regions)
                    stack.append(k)
        regions.append(members)
    up, down, up_next = [0] * n, [0] * n, [-1] * n
    order = sorted((i for i in range(n) if free[i]), key=vals.__getitem__)
    for i in reversed(order):
        best, nxt = 0, -1
        for k in nbrs[i]:
            if free[k] and vals[k] == vals[i] + 1 and up[k] > best:
                best, nxt = up[k], k
        up[i], up_next[i] = best + 1, nxt
    for i in order:
        down[i] = 1 + max((down[k] for k in nbrs[i] if free[k] and vals[k] == vals[i] - 1), default=0)
    return dict(free=free, region=region, regions=regions, up=up, down=down, up_next=up_next)


def _growable(i, vals, heights, nbrs, cols, reg_rows) -> bool:
    return any(vals[k] == EMPTY and heights[k % cols] <= k // cols < reg_rows for k in nbrs[i])


def _box_values(targets, bonus_size, full_column, column_share) -> dict[int, float]:
    out = {k: float(k) for k in targets}
    regular = [k for k in targets if k != bonus_size]
    if len(regular) == 1:
        out[regular[0]] += column_share * full_column
    elif len(regular) == 2:
        for k in regular:
            out[k] += 0.5 * column_share * full_column
    return out


def _assign(triples) -> list[float]:
    owners, boxes, out = set(), set(), []
    for v, owner, k in sorted(triples, reverse=True):
        if owner not in owners and k not in boxes:
            owners.add(owner)
            boxes.add(k)
            out.append(v)
    return out


def potential(ctx, vals, st, heights, ident, cons, limit) -> float:
    """The heuristic's potential, as its module docstring states it."""
    w, nbrs, cols, reg = ctx.w, ctx_neighbours(ctx), ctx.cols, ctx.reg_rows
    grows = lambda i: _growable(i, vals, heights, nbrs, cols, reg)  # noqa: E731
    credits: list[float] = []
    kv = _box_values(ident, ctx.bonus_size, ctx.full_column, w.column)
    triples = []
    for sid, members in enumerate(st["regions"]):
        m = len(members)
        if m < 2:
            continue
        for k in ident:
            grow = any(grows(i) for i in members)
            credit = w.ready if m >= k else w.progress * (m / k) ** w.power * (1.0 if grow else w.buried)
            triples.append((kv[k] * credit, sid, k))
    credits += _assign(triples)
    kv = _box_values(cons, ctx.bonus_size, ctx.full_column, w.column)
    triples = []
    up, free = st["up"], st["free"]
    for i in range(len(vals)):
        if not free[i] or st["down"][i] != 1 or up[i] < 2:
            continue
        length, lo = up[i], vals[i]
        hi = lo + length - 1
        end = i
        while st["up_next"][end] >= 0:
            end = st["up_next"][end]
        grow = (lo > 0 and grows(i)) or (hi < ctx.max_number and grows(end))
        for k in cons:
            if length >= k:
                credit = w.ready
            elif hi + (k - length) <= ctx.max_number or lo - (k - length) >= 0:
                credit = w.progress * (length / k) ** w.power * (1.0 if grow else w.buried)
            else:
                continue
            triples.append((kv[k] * credit, i, k))
    credits += _assign(triples)
    if limit is not None and len(credits) > limit:
        credits = sorted(credits, reverse=True)[:limit]
    total = 0.0
    for c in credits:
        total += c
    return total


def combinations(ctx, vals, st) -> list[tuple[str, int, list[int]]]:
    """One canonical combination per open box (see numberdrop_env.planner.kernels.combinations)."""
    nbrs = ctx_neighbours(ctx)
    out = []
    for k in sorted(set(ctx.ident_targets)):
        fits = [m for m in sorted(st["regions"], key=len) if len(m) >= k]
        if fits:
            members = set(fits[0])
            order = [min(members)]
            for j in order:
                order += [c for c in nbrs[j] if c in members and c not in order][: k - len(order)]
                if len(order) == k:
                    break
            out.append(("identical", k, order))
    starts = [i for i in range(len(vals)) if st["free"][i] and st["up"][i] >= 3]
    for k in ctx.cons_targets:
        fits = sorted((st["up"][i], i) for i in starts if st["up"][i] >= k)
        if fits:
            path = [fits[0][1]]
            while len(path) < k:
                path.append(st["up_next"][path[-1]])
            out.append(("consecutive", k, path))
    return out


def ctx_neighbours(ctx) -> list[list[int]]:
    return neighbours(ctx.rows, ctx.cols)


def local_scores(st, vals, flat, written, tie, max_number: int, nbrs) -> np.ndarray:
    """(P, Q) local score of each writing in each placement, one cell and one pair at a time."""
    size = {c: len(m) for m in st["regions"] for c in m}
    score = np.zeros((len(flat), len(written)))
    for p, cells in enumerate(flat.tolist()):
        for q, values in enumerate(written.tolist()):
            s = 0.0
            for i, (cell, v) in enumerate(zip(cells, values)):
                for nb in nbrs[cell]:
                    if nb in cells:
                        j = cells.index(nb)
                        s += 0.5 * (j > i and abs(v - values[j]) <= 1) * 2
                    elif st["free"][nb]:
                        nv = vals[nb]
                        s += {
                            nv: 0.5 + 0.5 * size.get(nb, 0),
                            nv - 1: 0.5 + 0.5 * st["up"][nb],
                            nv + 1: 0.5 + 0.5 * st["down"][nb],
                        }.get(v, 0.0)
            score[p, q] = s - tie[q]
    return score
