"""What the unused numbers of a sheet can still become: counts of the structures the boxes score.

The planner's potential folds the regions and paths of a sheet into one number with fixed
weights; a learned re-ranker (``agents.networks.reranker``) reads them one by one instead:

- ``regions_{s}_open`` / ``regions_{s}_buried``: regions of one value with at least ``s``
  cells (s = 2 .. bonus size), with or without a cell next to one a later piece can fill;
- ``paths_{s}_open`` / ``paths_{s}_buried``: the same for the increasing paths (each
  counted from its lowest value), open when an end can still be extended by a value in
  range on a fillable cell;
- ``identical_ready_{k}`` / ``consecutive_ready_{k}``: the box of size k is open and a
  structure big enough to score it is on the sheet; ``..._short_{k}``: the box is open and
  the largest open structure is one cell short of it; ``bonus_ready`` / ``bonus_short``
  the same for the bonus box with either kind;
- ``surface_{v}``: unused cells of value v next to a fillable cell (what the next numbers
  can join).

``structure_features`` is compiled; ``structure_features_reference`` is the same in
plain Python, which the tests hold it to.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.combos import neighbour_table
from ..engine.rules import EMPTY, Rules
from . import kernels


def structure_names(rules: Rules) -> tuple[str, ...]:
    """The columns of ``structure_features`` for ``rules``."""
    sizes = range(2, rules.bonus_size + 1)
    names = [f"regions_{s}_{x}" for s in sizes for x in ("open", "buried")]
    names += [f"paths_{s}_{x}" for s in sizes for x in ("open", "buried")]
    for k in rules.box_sizes:
        names += [f"identical_ready_{k}", f"identical_short_{k}", f"consecutive_ready_{k}", f"consecutive_short_{k}"]
    names += ["bonus_ready", "bonus_short"]
    names += [f"surface_{v}" for v in range(rules.max_number + 1)]
    return tuple(names)


def structure_features(
    values: np.ndarray,
    used: np.ndarray,
    heights: np.ndarray,
    identical: np.ndarray,
    consecutive: np.ndarray,
    bonus: bool,
    rules: Rules,
) -> np.ndarray:
    """(len(structure_names(rules)),) float64 for one sheet: its flat grid ``values``, ``used``
    flags and column ``heights``, and which identical / consecutive boxes (``rules.box_sizes``
    order) and the bonus box are already scored."""
    return _features(
        np.asarray(values, np.int64),
        np.asarray(used, np.bool_),
        np.asarray(heights, np.int64),
        np.asarray(identical, np.bool_),
        np.asarray(consecutive, np.bool_),
        bool(bonus),
        np.asarray(rules.box_sizes, np.int64),
        neighbour_table(rules.rows, rules.cols),
        rules.cols,
        rules.regular_rows,
        rules.max_number,
        rules.bonus_size,
    )


@njit(cache=True)
def _features(
    values, used, heights, identical, consecutive, bonus, boxes, nbrs, cols, reg_rows, max_number, bonus_size
):
    free, _, start, members, up, down, up_next = kernels.structures(values, used, nbrs, max_number)
    n_sizes = bonus_size - 1
    out = np.zeros(4 * n_sizes + 4 * len(boxes) + 2 + max_number + 1)
    big_region = big_open_region = big_path = big_open_path = 0
    for r in range(len(start) - 1):
        m = start[r + 1] - start[r]
        grow = False
        for a in range(start[r], start[r + 1]):
            if kernels._growable(members[a], values, heights, nbrs, cols, reg_rows):
                grow = True
                break
        _count(out, np.int64(0), m, grow, bonus_size)  # numpy, not literal, ints: see slides.BLOCK_DROP
        big_region = max(big_region, m)
        if grow:
            big_open_region = max(big_open_region, m)
    for i in range(values.shape[0]):
        if not free[i] or down[i] != 1 or up[i] < 2:
            continue
        length, lo = up[i], values[i]
        end = i
        while up_next[end] >= 0:
            end = up_next[end]
        grow = (lo > 0 and kernels._growable(i, values, heights, nbrs, cols, reg_rows)) or (
            lo + length - 1 < max_number and kernels._growable(end, values, heights, nbrs, cols, reg_rows)
        )
        _count(out, 2 * n_sizes, length, grow, bonus_size)
        big_path = max(big_path, length)
        if grow:
            big_open_path = max(big_open_path, length)
    j = 4 * n_sizes
    for b in range(len(boxes)):
        k = boxes[b]
        out[j] = not identical[b] and big_region >= k
        out[j + 1] = not identical[b] and big_open_region == k - 1
        out[j + 2] = not consecutive[b] and big_path >= k
        out[j + 3] = not consecutive[b] and big_open_path == k - 1
        j += 4
    out[j] = not bonus and (big_region >= bonus_size or big_path >= bonus_size)
    out[j + 1] = not bonus and (big_open_region == bonus_size - 1 or big_open_path == bonus_size - 1)
    j += 2
    for i in range(values.shape[0]):
        if free[i] and kernels._growable(i, values, heights, nbrs, cols, reg_rows):
            out[j + values[i]] += 1
    return out


@njit(cache=True)
def _count(out, j, size, grow, bonus_size):
    """Count a structure of ``size`` cells in the open or buried column of every size it reaches."""
    for s in range(2, min(size, bonus_size) + 1):
        out[j + 2 * (s - 2) + (0 if grow else 1)] += 1


def structure_features_reference(
    values: np.ndarray,
    used: np.ndarray,
    heights: np.ndarray,
    identical: np.ndarray,
    consecutive: np.ndarray,
    bonus: bool,
    rules: Rules,
) -> np.ndarray:
    """``structure_features`` by flood fills and walks in plain Python (the tests' reference)."""
    rows, cols, n = rules.rows, rules.cols, rules.rows * rules.cols
    values, used, heights = list(map(int, values)), list(map(bool, used)), list(map(int, heights))

    def free(i: int) -> bool:
        return 0 <= values[i] <= rules.max_number and not used[i]

    def around(i: int) -> list[int]:
        r, c = divmod(i, cols)
        return [
            (r + dr) * cols + c + dc
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if 0 <= r + dr < rows and 0 <= c + dc < cols
        ]

    def fillable_next(i: int) -> bool:
        return any(values[k] == EMPTY and heights[k % cols] <= k // cols < rules.regular_rows for k in around(i))

    out = dict.fromkeys(structure_names(rules), 0.0)
    seen: set[int] = set()
    big = {"region": 0, "open_region": 0, "path": 0, "open_path": 0}
    for i in range(n):
        if not free(i) or i in seen:
            continue
        region, todo = {i}, [i]
        while todo:
            for k in around(todo.pop()):
                if k not in region and free(k) and values[k] == values[i]:
                    region.add(k)
                    todo.append(k)
        seen |= region
        grow = any(fillable_next(k) for k in region)
        for s in range(2, min(len(region), rules.bonus_size) + 1):
            out[f"regions_{s}_{'open' if grow else 'buried'}"] += 1
        big["region"] = max(big["region"], len(region))
        if grow:
            big["open_region"] = max(big["open_region"], len(region))

    def step(i: int, delta: int) -> list[int]:
        return [k for k in around(i) if free(k) and values[k] == values[i] + delta]

    def longest_up(i: int) -> int:
        return 1 + max((longest_up(k) for k in step(i, 1)), default=0)

    for i in range(n):
        if not free(i) or step(i, -1) or not step(i, 1):
            continue
        length, end = longest_up(i), i
        while step(end, 1):  # the kernel's walk: the first neighbour with the longest path on
            nxt = [k for k in step(end, 1) if longest_up(k) == longest_up(end) - 1]
            end = nxt[0]
        lo = values[i]
        grow = (lo > 0 and fillable_next(i)) or (lo + length - 1 < rules.max_number and fillable_next(end))
        for s in range(2, min(length, rules.bonus_size) + 1):
            out[f"paths_{s}_{'open' if grow else 'buried'}"] += 1
        big["path"] = max(big["path"], length)
        if grow:
            big["open_path"] = max(big["open_path"], length)
    for b, k in enumerate(rules.box_sizes):
        out[f"identical_ready_{k}"] = not identical[b] and big["region"] >= k
        out[f"identical_short_{k}"] = not identical[b] and big["open_region"] == k - 1
        out[f"consecutive_ready_{k}"] = not consecutive[b] and big["path"] >= k
        out[f"consecutive_short_{k}"] = not consecutive[b] and big["open_path"] == k - 1
    top = rules.bonus_size
    out["bonus_ready"] = not bonus and (big["region"] >= top or big["path"] >= top)
    out["bonus_short"] = not bonus and (big["open_region"] == top - 1 or big["open_path"] == top - 1)
    for i in range(n):
        if free(i) and fillable_next(i):
            out[f"surface_{values[i]}"] += 1
    return np.array(list(out.values()), float)
