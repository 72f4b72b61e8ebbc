"""The lookups of the n-tuple value (``agents.values.lookups``) in plain Python: their
specification (tests only).

Written from the family descriptions of ``agents.values.spec``, without its compiled
shortcuts (regions by a flood fill of sets, paths by walking every increasing path), so the
tests can hold the compiled code to it on real sheets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from agents.values.lookups import Layout
from agents.values.spec import (
    CELL_CODES,
    COARSE,
    EXPOSED_CODES,
    EXPOSED_REGIONS,
    GEOMETRY_BINS,
    GEOMETRY_LOW,
    GEOMETRY_STEP,
    MAX_HEIGHT,
    MAX_SIZE,
    OPEN_CELLS,
    PATH_CODES,
    PATHS,
    POTENTIAL_BINS,
    POTENTIAL_STEP,
    REGION_CODES,
    REGIONS,
    STEP_CODES,
)
from numberdrop_env.engine.rules import EMPTY


class Sheet:
    """An afterstate as plain lists: the flat grid (``row * cols + column``), used cells, column
    heights, notches, ticked boxes (identical, consecutive, bonus), circled letters and the
    planner's terms of the sheet (geometry, potential, ...)."""

    def __init__(
        self,
        values: Sequence[int],
        used: Sequence[bool],
        heights: Sequence[int],
        notches: Sequence[int],
        identical: Sequence[bool],
        consecutive: Sequence[bool],
        bonus: bool,
        circled: Sequence[bool],
        terms: Sequence[float] = (0.0, 0.0),
    ) -> None:
        self.values, self.used, self.heights = list(values), list(used), list(heights)
        self.notches, self.circled = list(notches), list(circled)
        self.identical, self.consecutive, self.bonus = list(identical), list(consecutive), bool(bonus)
        self.terms = list(terms)


def lookups(sheet: Sheet, layout: Layout) -> list[int]:
    """The indices into the weights that the sheet reads, in the compiled code's order."""
    r, spec = layout.rules, layout.spec
    cols, boxes, letters, last = r.cols, len(r.box_sizes), len(r.letters), r.last_notch
    left = sum(max(last - n, 0) for n in sheet.notches)
    stage = left * spec.stages // (letters * last + 1)
    imask = sum(1 << b for b, t in enumerate(sheet.identical) if t) + (sheet.bonus << boxes)
    cmask = sum(1 << b for b, t in enumerate(sheet.consecutive) if t) + (sheet.bonus << boxes)
    kind_masks = 2 ** (boxes + 1)
    start = layout.starts
    out = []
    if "track" in spec.families:
        ticked = imask % 2**boxes + cmask * 2**boxes
        out.append(start["track/0"] + ticked * (letters * last + 1) + left)
    if "letters" in spec.families:
        code = sum(
            (min(n, last) + (last + 1) * c) * (2 * (last + 1)) ** t
            for t, (n, c) in enumerate(zip(sheet.notches, sheet.circled))
        )
        out.append(start["letters/0"] + code)
    if "identical" in spec.families:
        g = region_codes(sheet, r.regular_rows, cols, r.max_number)
        out += [
            start["identical/0"] + (imask * REGION_CODES + g[0]) * REGION_CODES + g[1],
            start["identical/1"] + (imask * REGION_CODES + g[2]) * REGION_CODES + g[3],
            start["identical/2"] + (stage * kind_masks + imask) * REGION_CODES + g[0],
        ]
    if "regions" in spec.families:
        faces = {v for die in r.number_dice for v in die}
        e = exposed_codes(sheet, r.regular_rows, cols, r.max_number, faces)
        out += [
            start["regions/0"] + (stage * kind_masks + imask) * EXPOSED_CODES + e[0],
            start["regions/1"] + (stage * EXPOSED_CODES + e[0]) * EXPOSED_CODES + e[1],
            start["regions/2"] + imask * EXPOSED_CODES + e[1],
        ]
    if "consecutive" in spec.families:
        p = path_codes(sheet, r.regular_rows, cols, r.max_number)
        out += [
            start["consecutive/0"] + (cmask * PATH_CODES + p[0]) * PATH_CODES + p[1],
            start["consecutive/1"] + (cmask * PATH_CODES + p[1]) * PATH_CODES + p[2],
            start["consecutive/2"] + (stage * kind_masks + cmask) * PATH_CODES + p[0],
        ]
    for mirrored in (False, True):
        cells, heights = _view(sheet, cols, mirrored)
        if "rows" in spec.families:
            for row in range(r.regular_rows):
                code = 0
                for c in range(cols):
                    v = cells[row * cols + c]
                    code += (1 if v != EMPTY else 2 if row < heights[c] else 0) * 3**c
                out.append(start["rows/0"] + row * 3**cols + code)
        if "heights" in spec.families:
            side = MAX_HEIGHT + 1
            for pos in range(cols - 2):
                h = [min(x, MAX_HEIGHT) for x in heights[pos : pos + 3]]
                out.append(start["heights/0"] + pos * side**3 + (h[0] * side + h[1]) * side + h[2])
        if "surface" in spec.families:
            tops = [_top(cells, heights, c, cols, r.max_number) for c in range(cols)]
            for pos in range(cols - 1):
                step = min(max(heights[pos + 1] - heights[pos], -2), 2) + 2
                code = (step * CELL_CODES + tops[pos]) * CELL_CODES + tops[pos + 1]
                out.append(start["surface/0"] + pos * STEP_CODES * CELL_CODES**2 + code)
    if "planner" in spec.families:
        pot = _bin(sheet.terms[1], 0.0, POTENTIAL_STEP, POTENTIAL_BINS)
        geo = _bin(sheet.terms[0], GEOMETRY_LOW, GEOMETRY_STEP, GEOMETRY_BINS)
        wide = -(-GEOMETRY_BINS // COARSE)
        out += [
            start["planner/0"] + stage * POTENTIAL_BINS + pot,
            start["planner/1"] + stage * GEOMETRY_BINS + geo,
            start["planner/2"] + (stage * -(-POTENTIAL_BINS // COARSE) + pot // COARSE) * wide + geo // COARSE,
        ]
    return out


def _bin(x: float, low: float, step: float, bins: int) -> int:
    return min(max(math.floor((x - low) / step), 0), bins - 1)


def value(sheet: Sheet, layout: Layout, weights: Sequence[float]) -> float:
    """The tables' value of a sheet that does not end the game."""
    return sum(weights[i] for i in lookups(sheet, layout))


def _view(sheet: Sheet, cols: int, mirrored: bool) -> tuple[list[int], list[int]]:
    """The grid and heights as they are, or seen in a mirror (column c as column cols - 1 - c)."""
    if not mirrored:
        return sheet.values, sheet.heights
    rows = len(sheet.values) // cols
    cells = [sheet.values[r * cols + cols - 1 - c] for r in range(rows) for c in range(cols)]
    return cells, sheet.heights[::-1]


def _top(cells: list[int], heights: list[int], c: int, cols: int, max_number: int) -> int:
    if heights[c] == 0:
        return CELL_CODES - 1
    v = cells[(heights[c] - 1) * cols + c]
    return 1 + v if 0 <= v <= max_number else 0


def _free(sheet: Sheet, max_number: int) -> list[bool]:
    return [0 <= v <= max_number and not u for v, u in zip(sheet.values, sheet.used)]


def _neighbours(i: int, n: int, cols: int) -> list[int]:
    c = i % cols
    out = [j for j in (i - cols, i + cols) if 0 <= j < n]
    if c > 0:
        out.append(i - 1)
    if c < cols - 1:
        out.append(i + 1)
    return out


def _can_grow(i: int, sheet: Sheet, reg_rows: int, cols: int) -> bool:
    """Whether cell i touches an empty cell on top of its column in a regular row."""
    n = len(sheet.values)
    return any(
        sheet.values[k] == EMPTY and sheet.heights[k % cols] <= k // cols < reg_rows for k in _neighbours(i, n, cols)
    )


def _regions(sheet: Sheet, cols: int, max_number: int) -> list[set[int]]:
    """The same-valued regions of the unused numbers, as sets of cells."""
    n, free = len(sheet.values), _free(sheet, max_number)
    seen: set[int] = set()
    out = []
    for i in range(n):
        if not free[i] or i in seen:
            continue
        region, todo = {i}, [i]
        while todo:
            j = todo.pop()
            for k in _neighbours(j, n, cols):
                if free[k] and k not in region and sheet.values[k] == sheet.values[i]:
                    region.add(k)
                    todo.append(k)
        seen |= region
        out.append(region)
    return out


def exposed_codes(sheet: Sheet, reg_rows: int, cols: int, max_number: int, faces: set[int]) -> list[int]:
    """The EXPOSED_REGIONS largest ``(min(size, 8) * 4 + open cells beside it, up to 3) * 2 +
    its value is on a die``, 0 padded."""
    n, codes = len(sheet.values), []
    for region in _regions(sheet, cols, max_number):
        beside = {
            k
            for j in region
            for k in _neighbours(j, n, cols)
            if sheet.values[k] == EMPTY and sheet.heights[k % cols] <= k // cols < reg_rows
        }
        v = sheet.values[next(iter(region))]
        size = min(len(region), MAX_SIZE)
        codes.append((size * OPEN_CELLS + min(len(beside), OPEN_CELLS - 1)) * 2 + (v in faces))
    return (sorted(codes, reverse=True) + [0] * EXPOSED_REGIONS)[:EXPOSED_REGIONS]


def region_codes(sheet: Sheet, reg_rows: int, cols: int, max_number: int) -> list[int]:
    """The REGIONS largest ``2 * min(size, 8) + grows`` of the same-valued regions, 0 padded."""
    n, free = len(sheet.values), _free(sheet, max_number)
    seen: set[int] = set()
    codes = []
    for i in range(n):
        if not free[i] or i in seen:
            continue
        region, todo = {i}, [i]
        while todo:
            j = todo.pop()
            for k in _neighbours(j, n, cols):
                if free[k] and k not in region and sheet.values[k] == sheet.values[i]:
                    region.add(k)
                    todo.append(k)
        seen |= region
        grows = any(_can_grow(j, sheet, reg_rows, cols) for j in region)
        codes.append(2 * min(len(region), MAX_SIZE) + grows)
    return (sorted(codes, reverse=True) + [0] * REGIONS)[:REGIONS]


def path_codes(sheet: Sheet, reg_rows: int, cols: int, max_number: int) -> list[int]:
    """The PATHS largest ``4 * min(length, 8) + 2 * low end grows + high end grows``, one per
    cell that no value one lower touches, over its longest increasing paths (2 cells or more):
    the low end grows if its value is above 0 and it can grow, the high end if the path's top
    value is below the highest number and some longest path ends on a cell that can grow."""
    n, free, vals = len(sheet.values), _free(sheet, max_number), sheet.values

    def steps(j: int) -> list[int]:
        return [k for k in _neighbours(j, n, cols) if free[k] and vals[k] == vals[j] + 1]

    def paths(j: int) -> list[list[int]]:
        longer = [[j, *p] for k in steps(j) for p in paths(k)]
        return longer or [[j]]

    codes = []
    for i in range(n):
        if not free[i] or any(free[k] and vals[k] == vals[i] - 1 for k in _neighbours(i, n, cols)):
            continue
        every = paths(i)
        length = max(len(p) for p in every)
        if length < 2:
            continue
        low = vals[i] > 0 and _can_grow(i, sheet, reg_rows, cols)
        high = vals[i] + length - 1 < max_number and any(
            _can_grow(p[-1], sheet, reg_rows, cols) for p in every if len(p) == length
        )
        codes.append(4 * min(length, MAX_SIZE) + 2 * low + high)
    return (sorted(codes, reverse=True) + [0] * PATHS)[:PATHS]
