"""An afterstate value of Number Drop as a sum of table lookups (n-tuple style), compiled.

The value of the sheet a turn leaves is the sum of one weight per *lookup*: each table is
indexed by a few small facts of the sheet, and a sheet reads one entry of each table (or
several, for tables shared by positions and by the mirror image of the grid). There are no
multiplications: valuing a sheet costs its flood fills and a few dozen memory reads, so every
candidate of a turn is valued in one compiled call and the tables learn from very many games.

The tables come in *families* (``FAMILIES``), each switched on or off by ``NTupleSpec``:

- ``track``: which identical and consecutive boxes and the bonus box are ticked, with the
  notches left (the clock: every turn slides one or two notches, the game ends at none);
- ``letters``: each letter's notch and whether it is circled (a circled letter's block never
  drops; a tile one notch from its last drops its block soon);
- ``identical``: the same-valued regions of the unused numbers, the four largest, each as its
  size (up to 8) and whether it can still grow (an empty cell next to it that a later piece can
  fill); three tables join them with the open identical boxes and the stage;
- ``consecutive``: the increasing paths of the unused numbers (from every cell that no value
  one lower touches), the three longest, each as its length (up to 8) and whether each end can
  still grow (an open empty neighbour and room in 0..9); three tables join them with the open
  consecutive boxes and the stage;
- ``rows``: each regular row as the pattern of its cells (filled, empty and open, or a covered
  hole), one table per row, read for the grid and its mirror image;
- ``heights``: the heights of each three neighbouring columns (up to 11), one table per place,
  read for the grid and its mirror image;
- ``planner``: the planner's own measurements of the sheet, its potential (the box credits of
  its regions and paths) and its geometry term (holes, rows, heights), each in bins, by
  stage, and the two jointly in coarser bins: a learned calibration of the hand-written value;
- ``regions``: the same-valued regions again, the three largest, each as its size, how many
  open empty cells touch it (up to 3: where the next pieces can extend it) and whether its
  value is on a number die's face (else only a star can extend it); tables join the largest
  with the open identical boxes and the stage, the two largest with the stage, and the
  second with the open boxes;
- ``surface``: each two neighbouring columns' top cells (blocked, a number 0..9 not used yet,
  or the floor) and their height difference (-2..2), one table per place, read for the grid
  and its mirror image: which values lie where the next pieces land.

The *stage* is the notches left on the board in ``stages`` equal bands. A sheet that ends the
game is worth 0 (no table is read): the final score is then known. ``.reference`` computes
the same lookups in plain Python, the specification the tests hold this code to.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from numberdrop_env.engine.combos import neighbour_table
from numberdrop_env.engine.rules import DEFAULT_RULES, EMPTY, Rules
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.kernels import structures_into
from numberdrop_env.planner.packing import (
    I_BONUS,
    I_COLS,
    I_LAST,
    I_LETTERS,
    I_MAXN,
    I_REG,
    I_ROWS,
    N_INTS,
    TurnArrays,
    state_offsets,
)
from numberdrop_env.planner.turns import TurnPlanner, rule_ints

FAMILIES = ("track", "letters", "identical", "consecutive", "rows", "heights", "surface", "planner", "regions")
"""The table families, in the order their tables lie in the weights."""
REGIONS = 4
"""Same-valued regions read, largest first."""
EXPOSED_REGIONS = 3
"""Regions read by the ``regions`` family, largest first."""
PATHS = 3
"""Increasing paths read, longest first."""
MAX_SIZE = 8
"""Region sizes and path lengths are read up to this (the bonus box's size)."""
REGION_CODES = 2 * (MAX_SIZE + 1)
"""A region as ``2 * size + grows`` (0: no region)."""
OPEN_CELLS = 4
"""Open empty cells beside a region are counted up to OPEN_CELLS - 1."""
EXPOSED_CODES = (MAX_SIZE + 1) * OPEN_CELLS * 2
"""A region as ``(size * OPEN_CELLS + open cells beside it) * 2 + its value is on a die``."""
PATH_CODES = 4 * (MAX_SIZE + 1)
"""A path as ``4 * length + 2 * low end grows + high end grows`` (0: no path of 2 or more)."""
MAX_HEIGHT = 11
"""Column heights are read up to this (a column above it has crossed the Game Over line)."""
CELL_CODES = 12
"""A surface cell: 0 blocked (X or used), 1 + v a number v not used yet, 11 the floor."""
STEP_CODES = 5
"""A height difference of neighbouring columns, clipped to -2..2."""
POTENTIAL_BINS, POTENTIAL_STEP = 64, 0.5
"""The planner's potential in bins of half a point from 0 (the last bin takes the rest)."""
GEOMETRY_BINS, GEOMETRY_STEP, GEOMETRY_LOW = 48, 1.0, -36.0
"""The planner's geometry term in bins of a point from -36."""
COARSE = 4
"""The joint table of the two reads each in bins COARSE times wider."""


@dataclass(frozen=True)
class NTupleSpec:
    """Which table families the value reads and in how many stages the clock is cut."""

    families: tuple[str, ...] = ("track", "letters", "identical", "consecutive", "rows", "heights")
    stages: int = 5

    def __post_init__(self) -> None:
        unknown = [f for f in self.families if f not in FAMILIES]
        if unknown or not self.families or len(set(self.families)) != len(self.families):
            raise ValueError(f"families must be distinct names among {FAMILIES}, got {self.families!r}")
        if isinstance(self.stages, bool) or not isinstance(self.stages, int) or self.stages < 1:
            raise ValueError(f"stages must be a positive int, got {self.stages!r}")


class Layout:
    """Where each table lies in the flat weights, for one rule set and spec."""

    def __init__(self, spec: NTupleSpec = NTupleSpec(), rules: Rules = DEFAULT_RULES) -> None:
        if rules.cols < 3:
            raise ValueError(f"the value reads three neighbouring columns; these rules have {rules.cols}")
        self.spec, self.rules = spec, rules
        self.ints = np.array(rule_ints(rules))
        self.nbrs = neighbour_table(rules.rows, rules.cols)
        faces = {v for die in rules.number_dice for v in die}
        self.on_dice = np.array([v in faces for v in range(rules.max_number + 1)], np.bool_)
        self.tables = self._tables()
        sizes = [size for _, size in self.tables]
        self.size = int(sum(sizes))
        self.starts = dict(zip((name for name, _ in self.tables), np.cumsum([0, *sizes[:-1]]).tolist()))
        # the compiled code reads one start per (family, table) slot, -1 where a family is off
        self.offsets = np.full((len(FAMILIES), 3), -1, np.int64)
        for name, start in self.starts.items():
            family, k = name.rsplit("/", 1)
            self.offsets[FAMILIES.index(family), int(k)] = start

    def _tables(self) -> list[tuple[str, int]]:
        r, s = self.rules, self.spec.stages
        boxes, letters, last = len(r.box_sizes), len(r.letters), r.last_notch
        kind_masks = 2 ** (boxes + 1)  # the boxes of one kind ticked, and the bonus box
        sizes = {
            "track": [2 ** (2 * boxes + 1) * (letters * last + 1)],
            "letters": [(2 * (last + 1)) ** letters],
            "identical": [kind_masks * REGION_CODES**2] * 2 + [s * kind_masks * REGION_CODES],
            "consecutive": [kind_masks * PATH_CODES**2] * 2 + [s * kind_masks * PATH_CODES],
            "rows": [r.regular_rows * 3**r.cols],
            "heights": [(r.cols - 2) * (MAX_HEIGHT + 1) ** 3],
            "surface": [(r.cols - 1) * STEP_CODES * CELL_CODES**2],
            "regions": [s * kind_masks * EXPOSED_CODES, s * EXPOSED_CODES**2, kind_masks * EXPOSED_CODES],
            "planner": [s * POTENTIAL_BINS, s * GEOMETRY_BINS, s * _coarse(POTENTIAL_BINS) * _coarse(GEOMETRY_BINS)],
        }
        return [(f"{f}/{k}", n) for f in self.spec.families for k, n in enumerate(sizes[f])]

    @cached_property
    def max_lookups(self) -> int:
        """Lookups of one sheet at most (the width of the lookup rows)."""
        r = self.rules
        per = {
            "track": 1,
            "letters": 1,
            "identical": 3,
            "consecutive": 3,
            "rows": 2 * r.regular_rows,
            "heights": 2 * (r.cols - 2),
            "surface": 2 * (r.cols - 1),
            "planner": 3,
            "regions": 3,
        }
        return sum(per[f] for f in self.spec.families)


@njit(cache=True)
def _coarse(bins):
    return (bins + COARSE - 1) // COARSE


@njit(cache=True)
def _bin(x, low, step, bins):
    """The bin of x: ``bins`` of width ``step`` from ``low``, the end ones taking the rest."""
    return min(max(int(np.floor((x - low) / step)), 0), bins - 1)


@njit(cache=True)
def _growable(i, vals, heights, nbrs, cols, reg):
    """Whether cell i touches an empty cell that a later piece can fill (on top of its column,
    in a regular row)."""
    n = vals.shape[0]
    for q in range(4):
        k = nbrs[i, q]
        if k < n and vals[k] == EMPTY:
            row = k // cols
            if row >= heights[k % cols] and row < reg:
                return True
    return False


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
            if _growable(members[a], vals, heights, nbrs, cols, reg):
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
        if _growable(layer[a], vals, heights, nbrs, cols, reg):
            return True
    return False


@njit(cache=True)
def _path_codes(vals, heights, free, up, down, nbrs, cols, reg, maxn, mark, layer, nxt, out):
    """The PATHS largest path codes, descending, 0 padded: one path per cell that starts one
    (no value one lower beside it), of length ``up`` (2 or more)."""
    out[:] = 0
    mark[:] = -1
    for i in range(vals.shape[0]):
        if not free[i] or down[i] != 1 or up[i] < 2:
            continue
        low = 1 if vals[i] > 0 and _growable(i, vals, heights, nbrs, cols, reg) else 0
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
    """The lookups (indices into the weights) of one afterstate, written into ``out``; returns
    how many. ``ident`` / ``cons`` say which boxes are ticked after the turn, ``circled`` which
    letters, ``terms`` the planner's terms of the sheet (``TurnArrays.terms``); ``on_dice[v]``
    whether a number die shows v; ``work`` is scratch space (``lookup_work``)."""
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
        out[m + 2] = offsets[7, 2] + (stage * _coarse(POTENTIAL_BINS) + pot // COARSE) * _coarse(GEOMETRY_BINS)
        out[m + 2] += geo // COARSE
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
    """The table value of every candidate of the games ``rows[lo:hi]`` (rows of the packed
    ``states`` and of the candidate ``arrays``, a ``TurnArrays`` with a leading game axis; ``count``
    candidates each), written into ``values``, and each one's lookups into ``lookups`` /
    ``n_lookups``. A candidate that ends the game is worth 0 and reads nothing. Holds no GIL."""
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


@njit(cache=True)
def lambda_targets(rewards, played, best, drawn, lam):
    """Each afterstate's lambda-return: the points of the next turn, plus ``1 - lam`` times the
    value the next afterstate had when played and ``lam`` times its own return. Where the next
    afterstate was drawn at random (``drawn``), the target is the best the next turn offered
    (``best``: its highest points plus value), so exploring lowers no target. The last
    afterstate of the game ends it: its value and return are 0."""
    t_end = len(rewards)
    out = np.zeros(t_end)
    after = 0.0
    for t in range(t_end - 2, -1, -1):
        if drawn[t + 1]:
            after = best[t + 1]
        else:
            nxt = 0.0 if t + 1 == t_end - 1 else (1.0 - lam) * played[t + 1] + lam * after
            after = rewards[t + 1] + nxt
        out[t] = after
    return out


@njit(cache=True)
def td_update(weights, lookups, n_lookups, base, targets, alpha, errors, sizes):
    """Move each afterstate's value (its ``base`` plus its lookups, as the weights stand when it
    is its turn) ``alpha`` of the way to its target, the step shared evenly by its lookups; the
    last afterstate (the game's end, worth 0) learns nothing. Returns the sum of squared errors.

    With ``errors`` and ``sizes`` as long as the weights (temporal coherence), each weight's
    step is also scaled by the size of the sum of its errors over the sum of their sizes (1
    before its first): a weight whose errors keep their sign learns at full speed, one whose
    errors cancel out slows down. Empty arrays: plain TD."""
    coherent = len(errors) > 0
    sse = 0.0
    for t in range(len(targets) - 1):
        m = n_lookups[t]
        if m == 0:
            continue
        v = base[t]
        for a in range(m):
            v += weights[lookups[t, a]]
        err = targets[t] - v
        sse += err * err
        step = alpha * err / m
        for a in range(m):
            i = lookups[t, a]
            if coherent:
                rate = abs(errors[i]) / sizes[i] if sizes[i] > 0 else 1.0
                errors[i] += step
                sizes[i] += abs(step)
                weights[i] += step * rate
            else:
                weights[i] += step
    return sse


class NTupleValue:
    """The tables' weights with their layout: the value of every candidate of many games at once.

    ``planner_share`` adds that share of the planner's own value of each sheet (its candidate
    value less the points: geometry, potential, turns, letters) to the tables', so tables
    started at zero with a share of 1 play as the greedy planner does, and learn a correction.
    """

    def __init__(
        self,
        spec: NTupleSpec = NTupleSpec(),
        rules: Rules = DEFAULT_RULES,
        weights: np.ndarray | None = None,
        planner_share: float = 0.0,
        threads: int = 1,
    ) -> None:
        self.layout = Layout(spec, rules)
        if weights is None:
            weights = np.zeros(self.layout.size)
        elif not isinstance(weights, np.ndarray) or weights.shape != (self.layout.size,):
            raise ValueError(f"weights must be an array of shape ({self.layout.size},) for this spec")
        self.weights = np.ascontiguousarray(weights, np.float64)
        self.planner_share = float(planner_share)
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive int, got {threads!r}")
        self.threads = threads
        self._pool = ThreadPoolExecutor(threads) if threads > 1 else None

    @property
    def spec(self) -> NTupleSpec:
        return self.layout.spec

    def candidate_values(
        self, states: np.ndarray, rows: np.ndarray, count: np.ndarray, arrays: TurnArrays
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(value, base, lookups, lookup counts) of every candidate of the games ``rows`` (rows of
        ``states`` and ``arrays``, as ``TurnPlanner.candidate_arrays`` gives them): the value
        is the base (the planner's share) plus the tables', 0 for a candidate that ends the game;
        rows of the other games and padding are 0."""
        lay = self.layout
        games, slots = arrays.value.shape
        values = np.zeros((games, slots))
        lookups = np.zeros((games, slots, lay.max_lookups), np.int64)
        n_lookups = np.zeros((games, slots), np.int64)
        rows = np.ascontiguousarray(rows, np.int64)
        args = (
            states,
            rows,
            count,
            arrays,
            self.weights,
            lay.offsets,
            lay.spec.stages,
            lay.ints,
            lay.nbrs,
            lay.on_dice,
        )
        outs = (values, lookups, n_lookups)
        if self._pool is None or len(rows) < 2 * self.threads:
            candidate_values(*args, 0, len(rows), *outs)
        else:
            bounds = np.linspace(0, len(rows), self.threads + 1).astype(int).tolist()
            jobs = [self._pool.submit(candidate_values, *args, lo, hi, *outs) for lo, hi in zip(bounds, bounds[1:])]
            for job in jobs:
                job.result()
        base = np.zeros((games, slots))
        if self.planner_share:
            live = np.arange(slots)[None, :] < count[:, None]
            base = np.where(live & ~arrays.ends_game, self.planner_share * (arrays.value - arrays.points), 0.0)
        return values + base, base, lookups, n_lookups

    def save(self, path: str | Path, **extra: np.ndarray) -> None:
        """Write the weights and what they mean (``.npz``), with any ``extra`` arrays beside them."""
        np.savez_compressed(
            path,
            weights=self.weights,
            families=np.array(self.spec.families),
            stages=self.spec.stages,
            planner_share=self.planner_share,
            **extra,
        )

    @classmethod
    def load(cls, path: str | Path, rules: Rules = DEFAULT_RULES, threads: int = 1) -> NTupleValue:
        with np.load(path) as f:
            spec = NTupleSpec(tuple(str(x) for x in f["families"]), int(f["stages"]))
            return cls(spec, rules, f["weights"].copy(), float(f["planner_share"]), threads)


def warm_up() -> None:
    """Compile the value's kernels (or load them from numba's cache) on the first turn of a game,
    valued and learnt with and without temporal coherence: a test run's warm-up calls it, so that
    its workers load the kernels instead of each compiling them."""
    planner, game = TurnPlanner(), SoloGame(DEFAULT_RULES, seed=0)
    game.step(game.layout.start)
    states = planner.pack_batch([game], 16)
    count, arrays, _ = planner.candidate_arrays(states, DEFAULT_RULES, 16)
    value = NTupleValue(NTupleSpec(FAMILIES), planner_share=1.0)
    _, base, lookups, n_lookups = value.candidate_values(states, np.arange(1), count, arrays)
    targets = lambda_targets(np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2, np.bool_), 0.5)
    size = value.layout.size
    for errors, sizes in ((np.zeros(size), np.zeros(size)), (np.zeros(0), np.zeros(0))):
        td_update(value.weights, lookups[0, :2], n_lookups[0, :2], base[0, :2], targets, 1.0, errors, sizes)
