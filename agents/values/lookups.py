"""The n-tuple value's lookups, compiled: where each table lies in the flat weights (``Layout``)
and which entries a sheet reads (``sheet_lookups``, ``candidate_values``); the families are
``agents.values.spec``'s, and ``tests/oracles/ntuple_reference.py`` is their specification.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from numberdrop_env import numba_cache
from numberdrop_env.engine.combos import neighbour_table
from numberdrop_env.engine.rules import DEFAULT_RULES, EMPTY, Rules
from numberdrop_env.planner.kernels import growable, structures_into
from numberdrop_env.planner.packing import (
    I_BONUS,
    I_COLS,
    I_LAST,
    I_LETTERS,
    I_MAXN,
    I_REG,
    I_ROWS,
    N_INTS,
    rule_ints,
    state_offsets,
)

from .spec import (
    CELL_CODES,
    COARSE,
    DEFAULT_SPEC,
    EXPOSED_CODES,
    EXPOSED_REGIONS,
    FAMILIES,
    GEOMETRY_BINS,
    GEOMETRY_COARSE,
    GEOMETRY_LOW,
    GEOMETRY_STEP,
    MAX_HEIGHT,
    MAX_SIZE,
    OPEN_CELLS,
    PATH_CODES,
    PATHS,
    POTENTIAL_BINS,
    POTENTIAL_COARSE,
    POTENTIAL_STEP,
    REGION_CODES,
    REGIONS,
    STEP_CODES,
    NTupleSpec,
)

if "agents" not in numba_cache.PACKAGES:  # the quick start interprets these kernels too (NTuplePolicy.begin)
    numba_cache.PACKAGES.append("agents")


class Layout:
    """Where each table lies in the flat weights, for one rule set and spec."""

    def __init__(self, spec: NTupleSpec = DEFAULT_SPEC, rules: Rules = DEFAULT_RULES) -> None:
        if rules.cols < 3:
            raise ValueError(f"the value reads three neighbouring columns; these rules have {rules.cols}")
        self.spec, self.rules = spec, rules
        self.ints = np.array(rule_ints(rules))
        self.nbrs = neighbour_table(rules.rows, rules.cols)
        faces = {v for die in rules.number_dice for v in die}
        self.on_dice = np.array([v in faces for v in range(rules.max_number + 1)], np.bool_)
        families = self._families()
        self.max_lookups = sum(families[f][1] for f in spec.families)
        """Lookups of one sheet at most (the width of the lookup rows)."""
        self.tables: list[tuple[str, int]] = []  # (family/k, size) in weight order
        self.starts: dict[str, int] = {}
        self.offsets = np.full((len(FAMILIES), 3), -1, np.int64)  # the kernels' starts, -1: not read
        self.size = 0
        for f in spec.families:
            for k, n in enumerate(families[f][0]):
                self.tables.append((f"{f}/{k}", n))
                self.starts[f"{f}/{k}"] = self.offsets[FAMILIES.index(f), k] = self.size
                self.size += n

    def _families(self) -> dict[str, tuple[list[int], int]]:
        """Per family: the sizes of its tables, and how many lookups a sheet makes in them."""
        r, s = self.rules, self.spec.stages
        boxes, letters, last = len(r.box_sizes), len(r.letters), r.last_notch
        kind_masks = 2 ** (boxes + 1)  # the boxes of one kind ticked, and the bonus box
        joint = POTENTIAL_COARSE * GEOMETRY_COARSE
        return {
            "track": ([2 ** (2 * boxes + 1) * (letters * last + 1)], 1),
            "letters": ([(2 * (last + 1)) ** letters], 1),
            "identical": ([kind_masks * REGION_CODES**2] * 2 + [s * kind_masks * REGION_CODES], 3),
            "consecutive": ([kind_masks * PATH_CODES**2] * 2 + [s * kind_masks * PATH_CODES], 3),
            "rows": ([r.regular_rows * 3**r.cols], 2 * r.regular_rows),
            "heights": ([(r.cols - 2) * (MAX_HEIGHT + 1) ** 3], 2 * (r.cols - 2)),
            "surface": ([(r.cols - 1) * STEP_CODES * CELL_CODES**2], 2 * (r.cols - 1)),
            "regions": ([s * kind_masks * EXPOSED_CODES, s * EXPOSED_CODES**2, kind_masks * EXPOSED_CODES], 3),
            "planner": ([s * POTENTIAL_BINS, s * GEOMETRY_BINS, s * joint], 3),
        }


@njit(cache=True)
def _bin(x, low, step, bins):
    """The bin of x: ``bins`` of width ``step`` from ``low``, the end ones taking the rest."""
    return min(max(int(np.floor((x - low) / step)), 0), bins - 1)


@njit(cache=True)
def _keep_largest(codes, code):
    """Insert ``code`` into ``codes`` (descending, fixed length), dropping the smallest."""
    j = len(codes) - 1
    if code <= codes[j]:
        return
    while j > 0 and codes[j - 1] < code:
        codes[j] = codes[j - 1]
        j -= 1
    codes[j] = code


@njit(cache=True)
def _region_codes(vals, heights, start, members, nbrs, cols, reg, out):
    """The REGIONS largest region codes (``2 * min(size, 8) + grows``), descending, 0 padded."""
    out[:] = 0
    for r in range(len(start) - 1):
        grows = 0
        for a in range(start[r], start[r + 1]):
            if growable(members[a], vals, heights, nbrs, cols, reg):
                grows = 1
                break
        _keep_largest(out, 2 * min(start[r + 1] - start[r], MAX_SIZE) + grows)


@njit(cache=True)
def _exposed_codes(vals, heights, start, members, nbrs, cols, reg, on_dice, seen, out):
    """The largest exposed region codes (``EXPOSED_CODES``), descending, 0 padded."""
    out[:] = 0
    seen[:] = -1
    n = vals.shape[0]
    for r in range(len(start) - 1):
        count = 0
        for a in range(start[r], start[r + 1]):
            for q in range(4):
                k = nbrs[members[a], q]
                if k < n and vals[k] == EMPTY and seen[k] != r and heights[k % cols] <= k // cols < reg:
                    seen[k] = r
                    count += 1
        size = min(start[r + 1] - start[r], MAX_SIZE)
        common = 1 if on_dice[vals[members[start[r]]]] else 0
        _keep_largest(out, (size * OPEN_CELLS + min(count, OPEN_CELLS - 1)) * 2 + common)


@njit(cache=True)
def _high_end_grows(i, vals, heights, free, up, nbrs, cols, reg, mark, layer, nxt):
    """Whether some longest increasing path from cell i ends on a cell that can grow."""
    n = vals.shape[0]
    layer[0] = i
    size = 1
    for _ in range(up[i] - 1):  # step along the cells of the longest paths, one value at a time
        count = 0
        for a in range(size):
            j = layer[a]
            for q in range(4):
                k = nbrs[j, q]
                if k < n and free[k] and vals[k] == vals[j] + 1 and up[k] == up[j] - 1 and mark[k] != i:
                    mark[k] = i
                    nxt[count] = k
                    count += 1
        layer[:count] = nxt[:count]
        size = count
    for a in range(size):
        if growable(layer[a], vals, heights, nbrs, cols, reg):
            return True
    return False


@njit(cache=True)
def _path_codes(vals, heights, free, up, down, nbrs, cols, reg, maxn, mark, layer, nxt, out):
    """The PATHS largest path codes, descending, 0 padded: one per cell that starts a path of 2 or more."""
    out[:] = 0
    mark[:] = -1
    for i in range(vals.shape[0]):
        if not free[i] or down[i] != 1 or up[i] < 2:
            continue
        low = 1 if vals[i] > 0 and growable(i, vals, heights, nbrs, cols, reg) else 0
        high = 0
        room = vals[i] + up[i] - 1 < maxn
        if room and _high_end_grows(i, vals, heights, free, up, nbrs, cols, reg, mark, layer, nxt):
            high = 1
        _keep_largest(out, 4 * min(up[i], MAX_SIZE) + 2 * low + high)


@njit(cache=True)
def _mirror(c, cols, mirrored):
    return cols - 1 - c if mirrored else c


@njit(cache=True)
def _top_code(vals, heights, c, cols, maxn):
    """The surface code of column c's top cell."""
    h = heights[c]
    if h == 0:
        return CELL_CODES - 1
    v = vals[(h - 1) * cols + c]
    return 0 if v < 0 or v > maxn else 1 + v


@njit(cache=True)
def sheet_lookups(
    vals, used, heights, notches, ident, cons, bonus, circled, terms, offsets, stages, ints, nbrs, on_dice, work, out
):
    """The lookups (indices into the weights) of one afterstate into ``out``; returns how many.
    ``ident``, ``cons``, ``circled``: ticked after the turn; ``terms``: ``TurnArrays.terms``."""
    cols, reg, last, maxn = ints[I_COLS], ints[I_REG], ints[I_LAST], ints[I_MAXN]
    boxes, letters = len(ident), ints[I_LETTERS]
    left = 0
    for t in range(letters):
        left += max(last - notches[t], 0)
    stage = left * stages // (letters * last + 1)
    imask = cmask = (1 << boxes) if bonus else 0
    for b in range(boxes):
        imask |= (1 << b) if ident[b] else 0
        cmask |= (1 << b) if cons[b] else 0
    kind_masks = 1 << (boxes + 1)
    m = 0
    if offsets[0, 0] >= 0:  # track
        out[m] = offsets[0, 0] + ((imask & ((1 << boxes) - 1)) | (cmask << boxes)) * (letters * last + 1) + left
        m += 1
    if offsets[1, 0] >= 0:  # letters
        code, scale = 0, 1
        for t in range(letters):
            code += (min(notches[t], last) + ((last + 1) if circled[t] else 0)) * scale
            scale *= 2 * (last + 1)
        out[m] = offsets[1, 0] + code
        m += 1
    free, _, start, members, up, down, _ = structures_into(vals, used, nbrs, maxn, work.free, work.buffer)
    if offsets[2, 0] >= 0:  # identical
        r = work.regions
        _region_codes(vals, heights, start, members, nbrs, cols, reg, r)
        out[m] = offsets[2, 0] + (imask * REGION_CODES + r[0]) * REGION_CODES + r[1]
        out[m + 1] = offsets[2, 1] + (imask * REGION_CODES + r[2]) * REGION_CODES + r[3]
        out[m + 2] = offsets[2, 2] + (stage * kind_masks + imask) * REGION_CODES + r[0]
        m += 3
    if offsets[8, 0] >= 0:  # regions
        e = work.exposed
        _exposed_codes(vals, heights, start, members, nbrs, cols, reg, on_dice, work.seen, e)
        out[m] = offsets[8, 0] + (stage * kind_masks + imask) * EXPOSED_CODES + e[0]
        out[m + 1] = offsets[8, 1] + (stage * EXPOSED_CODES + e[0]) * EXPOSED_CODES + e[1]
        out[m + 2] = offsets[8, 2] + imask * EXPOSED_CODES + e[1]
        m += 3
    if offsets[3, 0] >= 0:  # consecutive
        p = work.paths
        _path_codes(vals, heights, free, up, down, nbrs, cols, reg, maxn, work.mark, work.layer, work.nxt, p)
        out[m] = offsets[3, 0] + (cmask * PATH_CODES + p[0]) * PATH_CODES + p[1]
        out[m + 1] = offsets[3, 1] + (cmask * PATH_CODES + p[1]) * PATH_CODES + p[2]
        out[m + 2] = offsets[3, 2] + (stage * kind_masks + cmask) * PATH_CODES + p[0]
        m += 3
    pattern = 3**cols
    for mirrored in (False, True):
        if offsets[4, 0] >= 0:  # rows
            for row in range(reg):
                code = 0
                for c in range(cols - 1, -1, -1):
                    col = _mirror(c, cols, mirrored)
                    cell = 1 if vals[row * cols + col] != EMPTY else (2 if row < heights[col] else 0)
                    code = 3 * code + cell
                out[m] = offsets[4, 0] + row * pattern + code
                m += 1
        if offsets[5, 0] >= 0:  # heights
            side = MAX_HEIGHT + 1
            for pos in range(cols - 2):
                code = 0
                for c in range(pos, pos + 3):
                    code = side * code + min(heights[_mirror(c, cols, mirrored)], MAX_HEIGHT)
                out[m] = offsets[5, 0] + pos * side**3 + code
                m += 1
        if offsets[6, 0] >= 0:  # surface
            for pos in range(cols - 1):
                a, b = _mirror(pos, cols, mirrored), _mirror(pos + 1, cols, mirrored)
                step = min(max(heights[b] - heights[a], -2), 2) + 2
                code = (step * CELL_CODES + _top_code(vals, heights, a, cols, maxn)) * CELL_CODES
                code += _top_code(vals, heights, b, cols, maxn)
                out[m] = offsets[6, 0] + pos * STEP_CODES * CELL_CODES**2 + code
                m += 1
    if offsets[7, 0] >= 0:  # planner
        pot = _bin(terms[1], 0.0, POTENTIAL_STEP, POTENTIAL_BINS)
        geo = _bin(terms[0], GEOMETRY_LOW, GEOMETRY_STEP, GEOMETRY_BINS)
        out[m] = offsets[7, 0] + stage * POTENTIAL_BINS + pot
        out[m + 1] = offsets[7, 1] + stage * GEOMETRY_BINS + geo
        out[m + 2] = offsets[7, 2] + (stage * POTENTIAL_COARSE + pot // COARSE) * GEOMETRY_COARSE + geo // COARSE
        m += 3
    return m


class LookupWork(NamedTuple):
    """Scratch space of ``sheet_lookups``, reused sheet after sheet."""

    free: np.ndarray
    buffer: np.ndarray
    regions: np.ndarray
    paths: np.ndarray
    mark: np.ndarray
    layer: np.ndarray
    nxt: np.ndarray
    exposed: np.ndarray
    seen: np.ndarray


@njit(cache=True)
def lookup_work(cells, maxn):
    """A ``LookupWork`` for sheets of ``cells``."""
    return LookupWork(
        np.empty(cells, np.bool_),
        np.empty(8 * cells + maxn + 3, np.int64),
        np.empty(REGIONS, np.int64),
        np.empty(PATHS, np.int64),
        np.empty(cells, np.int64),
        np.empty(cells, np.int64),
        np.empty(cells, np.int64),
        np.empty(EXPOSED_REGIONS, np.int64),
        np.empty(cells, np.int64),
    )


@njit(cache=True, nogil=True)
def candidate_values(
    states, rows, count, arrays, weights, offsets, stages, ints, nbrs, on_dice, lo, hi, values, lookups, n_lookups
):
    """The table value of every candidate of the packed games ``rows[lo:hi]`` into ``values``, and
    its lookups into ``lookups`` / ``n_lookups``; one that ends the game is worth 0. Holds no GIL."""
    o = state_offsets(ints)
    box, bonus_size = ints[N_INTS:], ints[I_BONUS]
    boxes, letters = len(box), ints[I_LETTERS]
    work = lookup_work(ints[I_ROWS] * ints[I_COLS], ints[I_MAXN])
    ident, cons, circled = np.empty(boxes, np.bool_), np.empty(boxes, np.bool_), np.empty(letters, np.bool_)
    for j in range(lo, hi):
        g = rows[j]
        s = states[g]
        for k in range(count[g]):
            if arrays.ends_game[g, k]:
                values[g, k], n_lookups[g, k] = 0.0, 0
                continue
            kind, size = arrays.combo_kind[g, k], arrays.combo_size[g, k]
            bonus = s[o[11]] != 0 or (kind >= 0 and size == bonus_size)
            for b in range(boxes):
                ident[b] = s[o[6] + b] != 0 or (kind == 0 and size == box[b])
                cons[b] = s[o[7] + b] != 0 or (kind == 1 and size == box[b])
                circled[b] = s[o[5] + b] != 0 or (ident[b] and cons[b] and s[o[8] + b] == 0)
            m = sheet_lookups(
                arrays.values[g, k],
                arrays.used[g, k],
                arrays.heights[g, k],
                arrays.notches[g, k],
                ident,
                cons,
                bonus,
                circled,
                arrays.terms[g, k],
                offsets,
                stages,
                ints,
                nbrs,
                on_dice,
                work,
                lookups[g, k],
            )
            total = 0.0
            for a in range(m):
                total += weights[lookups[g, k, a]]
            values[g, k], n_lookups[g, k] = total, m
