"""The hand-written value of a solo Number Drop sheet, by which the turn planner ranks its candidates.

Points of the turn plus geometry (holes, rows, heights), the potential of the unused numbers
for the open boxes, expected remaining turns and letter terms: the terms, their weights and why
in ``docs/envs/numberdrop-turn.md``. Flood fills, paths and box credits run in ``.kernels``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..engine.rules import EMPTY, Rules
from . import kernels
from .packing import I_BLOCK_WIDTH, I_WIDTH, I_WILD_DEFAULT, Boxes, RuleArrays, rule_arrays, rule_ints


@dataclass(frozen=True)
class Weights:
    """Weights of the heuristic (``docs/envs/numberdrop-turn.md`` says why each term matters)."""

    turn: float = 3.0  # value of one expected remaining turn (a turn scores a box or builds one)
    ready: float = 0.55  # share of a box's value credited for a combination already on the sheet
    progress: float = 0.45  # share credited for a growable structure, times (size/box)^2
    buried: float = 0.25  # multiplier of a structure's credit when it cannot grow (no open neighbour)
    hole_row: float = 1.6  # a regular row with a covered hole can never score its +2
    hole: float = 0.3  # each covered hole cell (wasted capacity)
    row_fill: float = 1.4  # partial credit (filled/7)^2 for rows that can still be completed
    bump: float = 0.08  # sum of |height difference| of neighbouring columns
    high: float = 0.35  # (height - 8)^2 for each column above row 8: risk of the Game Over line
    letter: float = 3.0  # circling a letter whose tile has not dropped its block yet
    letter_half: float = 0.35  # per notch still ahead, for a letter with one of its two boxes scored
    hurt: float = 2.0  # multiplayer: circling a letter, per share of opponents it will hit
    threat: float = 3.0  # multiplayer: circling a letter opponents have circled (or half-circled)
    wild_default: int = 5  # value of a wild die that no neighbour suggests
    power: float = 2.0  # exponent of (size/box) in the progress credit
    column: float = 0.5  # share of the +10 column bonus added to the value of a kind's last open box


DEFAULT_WEIGHTS = Weights()


def kernel_weights(w: Weights, full_column: int) -> np.ndarray:
    """What ``kernels.potential_into`` reads: ready, progress, power, buried, and the share of the
    column bonus a kind's last open box, and each of its last two, adds."""
    return np.array([w.ready, w.progress, w.power, w.buried, w.column * full_column, 0.5 * w.column * full_column])


def planner_arrays(rules: Rules, w: Weights, width: int = 0, block_width: int = 0) -> RuleArrays:
    """What the compiled planner reads of the rules, the weights and its widths (which the sheet
    evaluation does not read)."""
    ints = rule_ints(rules).copy()
    ints[I_WILD_DEFAULT], ints[I_WIDTH], ints[I_BLOCK_WIDTH] = w.wild_default, width, block_width
    floats = np.array(
        [w.turn, w.letter, w.letter_half, w.hurt, w.threat, w.hole_row, w.hole, w.row_fill, w.bump, w.high]
    )
    return rule_arrays(rules, ints, kernel_weights(w, rules.full_column_points), floats)


class Structures(NamedTuple):
    """Same-valued regions and increasing paths of a sheet's unused numbers (``kernels.structures_into``)."""

    free: np.ndarray
    region: np.ndarray
    start: np.ndarray
    members: np.ndarray
    up: np.ndarray
    down: np.ndarray
    up_next: np.ndarray

    def region_sizes(self) -> np.ndarray:
        """Size of each cell's region (0 off the free cells)."""
        sizes = np.append(np.diff(self.start), 0)  # region -1 reads the 0 at the end
        return sizes[self.region]


class Context:
    """What the evaluation needs besides the grid: boxes, letters, tiles, weights."""

    def __init__(self, game, weights: Weights = DEFAULT_WEIGHTS) -> None:
        r = game.rules
        s = game.sheet
        self.rows, self.cols = r.rows, r.cols
        self.reg_rows = r.regular_rows
        self.w = weights
        self.box_sizes = tuple(r.box_sizes)
        self.bonus_size = r.bonus_size
        self.ident_open = {k: not d for k, d in zip(r.box_sizes, s.identical.tolist())}
        self.cons_open = {k: not d for k, d in zip(r.box_sizes, s.consecutive.tolist())}
        self.ident_done = sum(s.identical.tolist())
        self.cons_done = sum(s.consecutive.tolist())
        self.lines = s.lines.tolist()
        self.penalties = s.penalties.tolist()
        self.max_number = r.max_number
        self.full_column = r.full_column_points
        self.line_points = r.line_points
        self.penalty_points = r.penalty_points
        bonus = [] if s.bonus else [self.bonus_size]
        self.ident_targets = [k for k in self.box_sizes if self.ident_open[k]] + bonus
        self.cons_targets = [k for k in self.box_sizes if self.cons_open[k]] + bonus
        self.arrays = planner_arrays(r, weights)
        self.boxes = Boxes(
            np.array(self.ident_targets, np.int64),
            np.array(self.cons_targets, np.int64),
            np.array(sorted(set(self.ident_targets)), np.int64),
            self.ident_done,
            self.cons_done,
            ~s.identical,
            ~s.consecutive,
        )

    def structures(self, vals: list[int] | np.ndarray, used: list[bool] | np.ndarray) -> Structures:
        """The regions and paths of the unused numbers of a sheet."""
        return Structures(
            *kernels.structures(
                np.asarray(vals, np.int64), np.asarray(used, np.bool_), self.arrays.nbrs, self.max_number
            )
        )

    def geometry(self, vals: list[int], heights: list[int]) -> tuple[float, int, int]:
        """(heuristic geometry value, line points this turn, penalty points this turn)."""
        w = self.w
        cols, reg = self.cols, self.reg_rows
        value = 0.0
        line_pts = 0
        for r in range(reg):
            base = r * cols
            filled = 0
            hole = 0
            for c in range(cols):
                if vals[base + c] != EMPTY:
                    filled += 1
                elif r < heights[c]:
                    hole += 1
            if filled == cols:
                if not self.lines[r]:
                    line_pts += self.line_points
                continue
            if hole:
                value -= w.hole_row + w.hole * hole
            else:
                f = filled / cols
                value += w.row_fill * f * f
        pen_pts = 0
        for i, r in enumerate(range(reg, self.rows)):
            if not self.penalties[i]:
                base = r * cols
                if any(vals[base + c] != EMPTY for c in range(cols)):
                    pen_pts -= self.penalty_points
        bump = 0
        high = 0.0
        for c in range(cols):
            h = heights[c]
            if c:
                bump += abs(h - heights[c - 1])
            if h > 8:
                high += (h - 8) ** 2
        value -= w.bump * bump + w.high * high
        return value, line_pts, pen_pts

    def geometry_batch(self, filled: np.ndarray, heights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``geometry`` of many sheets at once: ``filled`` (P, rows, cols) bool, ``heights``
        (P, cols); returns (value, line points, penalty points), each (P,)."""
        w, reg, cols = self.w, self.reg_rows, self.cols
        regular = filled[:, :reg]
        count = regular.sum(axis=2)
        full = count == cols
        below = np.arange(reg)[None, :, None] < heights[:, None, :]
        holes = (~regular & below).sum(axis=2)
        open_line = ~np.array(self.lines, bool)[None, :]
        line_pts = self.line_points * (full & open_line).sum(axis=1)
        row_value = np.where(holes > 0, -(w.hole_row + w.hole * holes), w.row_fill * (count / cols) ** 2)
        value = np.where(full, 0.0, row_value).sum(axis=1)
        open_penalty = ~np.array(self.penalties, bool)[None, :]
        pen_pts = -self.penalty_points * (filled[:, reg:].any(axis=2) & open_penalty).sum(axis=1)
        bump = np.abs(np.diff(heights, axis=1)).sum(axis=1)
        high = (np.clip(heights - 8, 0, None) ** 2).sum(axis=1)
        return value - (w.bump * bump + w.high * high), line_pts, pen_pts

    def potential(
        self,
        vals: list[int] | np.ndarray,
        st: Structures,
        heights: list[int] | np.ndarray,
        ident_open: list[int] | None = None,
        cons_open: list[int] | None = None,
        limit: int | None = None,
    ) -> float:
        """Promise of the unused numbers for the open boxes (the sheet's, or ``ident_open`` /
        ``cons_open``); with ``limit``, only the ``limit`` best credits count."""
        ident = self.boxes.ident_targets if ident_open is None else np.array(ident_open, np.int64)
        cons = self.boxes.cons_targets if cons_open is None else np.array(cons_open, np.int64)
        work = kernels.potential_work(len(st.free), max(len(ident), len(cons)))
        vals, heights = np.asarray(vals, np.int64), np.asarray(heights, np.int64)
        limit = -1 if limit is None else int(limit)
        return kernels.potential_into(vals, heights, tuple(st), ident, cons, limit, self.arrays, work)

    def written_sheet(
        self, vals: list[int], used: list[bool], heights: list[int], limit: int, with_potential: bool = True
    ) -> tuple[float, list[tuple[str, int, list[int], float]]]:
        """(potential if the turn passes, [(kind, size, cells, potential after it)] for each
        canonical combination) of a sheet just written, in one compiled call (its scratch space
        new for each: calls may nest)."""
        b = self.boxes
        work = kernels.sheet_work(self.rows * self.cols, self.max_number, len(b.ident_targets), len(b.cons_targets))
        vals, used, heights = np.asarray(vals, np.int64), np.asarray(used, np.bool_), np.asarray(heights, np.int64)
        now, count = kernels.written_sheet_into(vals, used, heights, b, int(limit), with_potential, self.arrays, work)
        kinds, sizes, cells, after = (a[:count].tolist() for a in (work.kinds, work.sizes, work.cells, work.after))
        return now, [
            ("identical" if kind == 0 else "consecutive", k, row[:k], pot)
            for kind, k, row, pot in zip(kinds, sizes, cells, after)
        ]

    def combo_points(self, kind: str, k: int) -> tuple[int, float]:
        """(official points, heuristic letter value) of scoring box (kind, k) now."""
        if k == self.bonus_size:
            return k, 0.0
        pts = k
        if kind == "identical":
            if self.ident_done == len(self.box_sizes) - 1:
                pts += self.full_column
            other = not self.cons_open[k]
        else:
            if self.cons_done == len(self.box_sizes) - 1:
                pts += self.full_column
            other = not self.ident_open[k]
        return pts, (1.0 if other else 0.0)


def apply_used(used: list[bool], cells: list[int]) -> list[bool]:
    out = used[:]
    for i in cells:
        out[i] = True
    return out
