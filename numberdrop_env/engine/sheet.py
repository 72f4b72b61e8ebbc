"""One player's sheet: the grid, the score track, the letters and the line boxes (no dice, no turns)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from gamekit.checks import as_bool, bool_grid, expect_keys, int_grid

from .rules import EMPTY, Rules, X
from .shapes import Cell

IDENTICAL = "identical"
CONSECUTIVE = "consecutive"
SCORE_PARTS = (IDENTICAL, CONSECUTIVE, "bonus", "column_bonuses", "lines", "penalties", "total")
"""The parts of a score, in the order of ``Sheet.score_breakdown``; the total comes last."""


class Sheet:
    """Grid values (``EMPTY``, 0..9 or ``X``), used number cells and every box on the sheet;
    ``heights[c]`` is one above column ``c``'s highest filled cell (shapes fall from above)."""

    def __init__(self, rules: Rules) -> None:
        n = len(rules.box_sizes)
        self.rules = rules
        self.values = np.full((rules.rows, rules.cols), EMPTY, np.int8)
        self.used = np.zeros((rules.rows, rules.cols), bool)
        self.heights = np.zeros(rules.cols, np.int64)
        self.identical = np.zeros(n, bool)
        self.consecutive = np.zeros(n, bool)
        self.bonus = False
        self.circled = np.zeros(n, bool)
        self.crossed = np.zeros(n, bool)
        self.lines = np.zeros(rules.regular_rows, bool)
        self.penalties = np.zeros(rules.rows - rules.regular_rows, bool)

    def write(self, cells: Sequence[Cell], values: Sequence[int]) -> None:
        """Fill empty cells with numbers or ``X``; raises if one is taken or outside."""
        for (r, c), v in zip(cells, values, strict=True):
            if not (0 <= r < self.rules.rows and 0 <= c < self.rules.cols):
                raise ValueError(f"cell {(r, c)} is outside the grid")
            if self.values[r, c] != EMPTY:
                raise ValueError(f"cell {(r, c)} is already filled")
            if not (0 <= v <= self.rules.max_number or v == X):
                raise ValueError(f"value {v} cannot be written in the grid")
        for (r, c), v in zip(cells, values):
            self.values[r, c] = v
            self.heights[c] = max(self.heights[c], r + 1)

    def score_combination(self, cells: Sequence[Cell], kind: str) -> None:
        """Circle the cells, tick the box of their size and circle a letter it completes."""
        for r, c in cells:
            self.used[r, c] = True
        self.tick_box(kind, len(cells))

    def tick_box(self, kind: str, size: int) -> None:
        """Tick the box of a combination of ``size`` cells and circle a letter it completes."""
        if size == self.rules.bonus_size:
            self.bonus = True
            return
        i = self.rules.box_sizes.index(size)
        (self.identical if kind == IDENTICAL else self.consecutive)[i] = True
        if self.identical[i] and self.consecutive[i] and not self.crossed[i]:
            self.circled[i] = True

    def end_of_turn(self) -> bool:
        """Tick completed lines and occupied penalty rows; True when Game Over was crossed."""
        return tick_lines_and_penalties(self.values, self.rules.regular_rows, self.lines, self.penalties)

    def open_sizes(self, kind: str) -> list[int]:
        """Sizes a combination of this kind may still score, the bonus size included."""
        boxes = self.identical if kind == IDENTICAL else self.consecutive
        sizes = [s for s, done in zip(self.rules.box_sizes, boxes) if not done]
        return sizes + ([] if self.bonus else [self.rules.bonus_size])

    def score_breakdown(self) -> dict[str, int]:
        """The score by its parts (keys in ``SCORE_PARTS`` order, the last one the total)."""
        r = self.rules
        identical, consecutive = self.identical.tolist(), self.consecutive.tolist()
        parts = {
            "identical": sum(k for k, done in zip(r.box_sizes, identical) if done),
            "consecutive": sum(k for k, done in zip(r.box_sizes, consecutive) if done),
            "bonus": r.bonus_size if self.bonus else 0,
            "column_bonuses": r.full_column_points * (all(identical) + all(consecutive)),
            "lines": r.line_points * self.lines.tolist().count(True),
            "penalties": -r.penalty_points * self.penalties.tolist().count(True),
        }
        parts["total"] = sum(parts.values())
        return parts

    def score(self) -> int:
        return self.score_breakdown()["total"]

    def copy(self) -> Sheet:
        other = Sheet.__new__(Sheet)
        other.rules = self.rules
        for name in (*_SAVED, "heights"):
            setattr(other, name, getattr(self, name).copy())
        other.bonus = self.bonus
        return other

    def to_dict(self) -> dict[str, Any]:
        return {**{name: getattr(self, name).tolist() for name in _SAVED}, "bonus": self.bonus}

    @classmethod
    def from_dict(cls, data: dict[str, Any], rules: Rules, where: str = "sheet") -> Sheet:
        """Rebuild a sheet, refusing anything the rules could not have produced (cells are checked
        as Python ints before they are stored as ``int8``)."""
        expect_keys(data, {*_SAVED, "bonus"}, where)
        sheet = cls(rules)
        cell_values = {EMPTY, X, *range(rules.max_number + 1)}
        described = f"{EMPTY} (empty), 0..{rules.max_number} or {X} (X)"
        for name in _SAVED:
            template = getattr(sheet, name)
            if template.dtype == bool:
                arr = bool_grid(data[name], template.shape, f"{where}.{name}")
            else:
                arr = int_grid(data[name], template.shape, cell_values, f"{where}.{name}", described, template.dtype)
            setattr(sheet, name, arr)
        sheet.bonus = as_bool(data["bonus"], f"{where}.bonus")
        sheet._validate(where)
        filled = sheet.values != EMPTY
        sheet.heights = np.where(filled.any(axis=0), rules.rows - np.argmax(filled[::-1], axis=0), 0)
        return sheet

    def _validate(self, where: str) -> None:
        r = self.rules
        v = self.values
        if (self.used & ~((v >= 0) & (v <= r.max_number))).any():
            raise ValueError(f"{where}.used: only number cells can be used")
        boxed = self.score_breakdown()
        if int(self.used.sum()) != boxed["identical"] + boxed["consecutive"] + boxed["bonus"]:
            raise ValueError(f"{where}.used: the number of used cells does not match the scored boxes")
        filled = v != EMPTY
        if (self.lines & ~filled[: r.regular_rows].all(axis=1)).any():
            raise ValueError(f"{where}.lines: a ticked line is not complete")
        if (self.penalties & ~filled[r.regular_rows :].any(axis=1)).any():
            raise ValueError(f"{where}.penalties: a ticked penalty row is empty")
        if (self.identical & self.consecutive & ~self.crossed & ~self.circled).any():
            raise ValueError(f"{where}.circled: a letter whose two boxes are scored must be circled")
        if (self.circled & ~(self.identical & self.consecutive)).any():
            raise ValueError(f"{where}.circled: a circled letter needs both boxes of its size")


_SAVED = ("values", "used", "identical", "consecutive", "circled", "crossed", "lines", "penalties")
"""The arrays of a saved sheet (``heights`` follow from ``values``)."""


@njit(cache=True)
def tick_lines_and_penalties(values: np.ndarray, regular_rows: int, lines: np.ndarray, penalties: np.ndarray) -> bool:
    """``Sheet.end_of_turn`` on the arrays (compiled: NumPy's reductions over a 7 x 14 grid
    cost more than the loop, and every turn of every game ends here)."""
    rows, cols = values.shape
    for r in range(rows):
        filled = 0
        for c in range(cols):
            filled += values[r, c] != EMPTY
        if r < regular_rows:
            if filled == cols:
                lines[r] = True
        elif filled > 0:
            penalties[r - regular_rows] = True
    for p in penalties:
        if p:
            return True
    return False
