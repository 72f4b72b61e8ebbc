"""The solo game: dice, the solo block board and the turn as a sequence of decisions in the flat
action encoding; a masked action raises ``ValueError`` and changes nothing.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from gamekit.checks import as_action, make_rng

from .actions import PERMUTATIONS, Phase, layout_for, tetromino_table
from .combos import ComboIndex
from .persist import STATE_VERSION, restore_solo
from .placements import write_placements
from .rules import DEFAULT_RULES, EMPTY, WILD, Rules, X
from .shapes import Cell, ShapeTable
from .sheet import CONSECUTIVE, IDENTICAL, Sheet


def roll_dice(rng: np.random.Generator, rules: Rules) -> tuple[tuple[int, ...], str]:
    """One roll: the number dice (in die order) and the shape die's face. Every roll of a game
    is this one draw from its generator, so a simulator that rolls for a game keeps its stream."""
    return roll_of(rng.integers(0, _die_sizes(rules)).tolist(), rules)


def roll_faces(rng: np.random.Generator, rules: Rules, rolls: int) -> np.ndarray:
    """The faces of the next ``rolls`` rolls, one row each (each number die's face, then the
    shape die's, as indices): the same draws as ``rolls`` calls of ``roll_dice``, at once."""
    return rng.integers(0, _die_sizes(rules), size=(rolls, len(rules.number_dice) + 1))


def roll_of(faces: list[int], rules: Rules) -> tuple[tuple[int, ...], str]:
    """The roll that a row of ``roll_faces`` stands for, as ``roll_dice`` gives it."""
    *numbers, shape = faces
    return tuple(int(d[f]) for d, f in zip(rules.number_dice, numbers)), rules.shape_die[shape]


class SoloGame:
    """One solo game of Number Drop, from writing the starting number to the end."""

    def __init__(self, rules: Rules = DEFAULT_RULES, seed: np.random.Generator | int | None = None) -> None:
        self.rules = rules
        self.table = tetromino_table(rules)
        self.layout = layout_for(rules)
        self.rng = make_rng(seed)
        self.sheet = Sheet(rules)
        self.tiles: tuple[str, ...] = tuple(rules.shape_names[i] for i in self.rng.permutation(len(rules.letters)))
        self.notches = np.zeros(len(rules.letters), np.int64)
        self.dice: tuple[int, ...] | None = None
        self.shape_face: str | None = None
        self.phase = Phase.START
        self.turn = 0
        self.star_pending = False
        self.block_tile: int | None = None
        self.pending_cells: list[Cell] = []
        self.pending_values: list[int] = []
        self.selection: list[Cell] = []
        self._combos: ComboIndex | None = None
        self._mask: np.ndarray | None = None

    # ------------------------------------------------------------------ queries
    @property
    def start_number(self) -> int:
        """The number written in row 0 before the first roll."""
        return self.rules.start_number

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def score(self) -> int:
        return self.sheet.score()

    @property
    def combo_index(self) -> ComboIndex | None:
        """Region sizes and path lengths of the sheet while a combination is chosen."""
        return self._combos

    def sorted_dice(self) -> list[int]:
        """Number dice ordered by value, stars last: the order arrangements refer to."""
        return [] if self.dice is None else sorted(self.dice, key=lambda v: (v == WILD, v))

    def allowed_shapes(self) -> tuple[str, ...]:
        """Tetrominoes the shape die lets the player drop this turn."""
        if self.shape_face is None:
            return ()
        return self.rules.shape_names if self.shape_face == "*" else (self.shape_face,)

    def legal_mask(self) -> np.ndarray:
        """Bool mask over the flat action space: exactly the legal decisions now."""
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask

    def _compute_mask(self) -> np.ndarray:
        L, p = self.layout, self.phase
        mask = np.zeros(L.size, bool)
        if p is Phase.START:
            mask[L.start : L.slide] = self.sheet.values[0] == EMPTY
        elif p in (Phase.SLIDE, Phase.STAR_SLIDE):
            mask[L.slide : L.block] = self.notches < self.rules.last_notch
        elif p is Phase.BLOCK:
            legal = self.block_placements()
            mask[L.block : L.block + len(legal)] = legal
        elif p is Phase.PLACE:
            shape = -1 if self.shape_face == "*" else self.table.names.index(self.shape_face)
            self._write_placements(mask[L.place : L.arrange], shape)
        elif p is Phase.ARRANGE:
            mask[self._distinct_arrangements(tuple(self.sorted_dice()), L.arrange)] = True
        elif p is Phase.WILD:
            mask[L.wild : L.select] = True
        elif p is Phase.COMBO:
            self._combos.write_options(self.selection, mask[L.select : L.pass_])
            mask[L.pass_] = True
        return mask

    def _write_placements(self, out: np.ndarray, shape: int) -> None:
        """The legal placements of tetromino ``shape`` (-1: any) written into ``out`` by a compiled kernel."""
        t = self.table
        write_placements(
            self.sheet.heights, t.cc, t.bottom, t.top, t.fits_columns, t.orientation_shape, shape, t.rows, out
        )

    @staticmethod
    @lru_cache(maxsize=4096)
    def _distinct_arrangements(dice: tuple[int, ...], arrange: int) -> np.ndarray:
        """The *arrange* actions (from offset ``arrange``) of the first arrangement of each distinct
        assignment of the sorted dice to the landed cells."""
        _, first = np.unique(np.array(dice)[PERMUTATIONS], axis=0, return_index=True)
        actions = arrange + first
        actions.flags.writeable = False  # shared by every game that rolls these dice
        return actions

    def _placements(self, shapes: tuple[str, ...]) -> np.ndarray:
        """Legal placements of one tetromino, or of any (the shape die's star allows them all)."""
        out = np.zeros(self.table.size, bool)
        self._write_placements(out, self.table.names.index(shapes[0]) if len(shapes) == 1 else -1)
        return out

    def block_placements(self) -> np.ndarray:
        """Bool mask of the legal placements of the dropping block (phase *block*)."""
        return self._placements((self.tiles[self.block_tile],))

    def block_cells(self, placement: int) -> list[Cell]:
        """Where the dropping block lands for a placement index."""
        return self._block_table().cells(placement, self.sheet.heights)

    def _block_table(self) -> ShapeTable:
        """The placements of the dropping block: a tetromino tile's in solo."""
        return self.table

    # ------------------------------------------------------------------ acting
    def step(self, action: int) -> int:
        """Apply one legal decision; returns the change of the official score."""
        action = as_action(action, self.layout.size)
        if not self.legal_mask()[action]:
            raise ValueError(f"action {action} is not legal in phase {self.phase.value!r}: {self.describe(action)}")
        scoring = self._may_score(action)
        before = self._score() if scoring else 0
        self._mask = None
        self._apply(action)
        return self._score() - before if scoring else 0

    def _apply(self, action: int) -> None:
        L, p = self.layout, self.phase
        if p is Phase.START:
            self.sheet.write([(0, action - L.start)], [self.start_number])
            self._start_turn()
        elif p in (Phase.SLIDE, Phase.STAR_SLIDE):
            self._slide(action - L.slide)
        elif p is Phase.BLOCK:
            cells = self.block_cells(action - L.block)
            self.sheet.write(cells, [X] * len(cells))
            self._after_slides()
        elif p is Phase.PLACE:
            self.pending_cells = self.table.cells(action - L.place, self.sheet.heights)
            self.phase = Phase.ARRANGE
        elif p is Phase.ARRANGE:
            dice = self.sorted_dice()
            self.pending_values = [dice[i] for i in PERMUTATIONS[action - L.arrange]]
            self._after_value()
        elif p is Phase.WILD:
            self.pending_values[self.pending_values.index(WILD)] = action - L.wild
            self._after_value()
        elif action == L.confirm:
            kind = self._combos.kind([r * self.rules.cols + c for r, c in self.selection])
            self.sheet.score_combination(self.selection, IDENTICAL if kind == IDENTICAL else CONSECUTIVE)
            self._end_turn()
        elif action == L.pass_:
            self._end_turn()
        else:
            self.selection.append(divmod(action - L.select, self.rules.cols))

    def _may_score(self, action: int) -> bool:
        """Whether an action can change the score: only the end of a turn (a confirmed
        combination ends it too) can, never placing, writing or selecting, most decisions."""
        if self.phase is Phase.COMBO:
            return action >= self.layout.confirm
        return self.phase not in (Phase.PLACE, Phase.ARRANGE, Phase.WILD)

    _score_memo: tuple[tuple[Any, ...], int] | None = None

    def _score(self) -> int:
        """``score()``, recomputed only when a box it counts has changed: most turns end scoring nothing."""
        s = self.sheet
        key = (s.identical.tobytes(), s.consecutive.tobytes(), s.bonus, s.lines.tobytes(), s.penalties.tobytes())
        if self._score_memo is None or self._score_memo[0] != key:
            self._score_memo = (key, s.score())
        return self._score_memo[1]

    def _start_turn(self) -> None:
        self._enter_turn(*roll_dice(self.rng, self.rules), self.turn + 1)

    def _enter_turn(self, dice: tuple[int, ...], shape_face: str, turn: int) -> None:
        self.dice, self.shape_face, self.turn = dice, shape_face, turn
        self.star_pending = WILD in dice or shape_face == "*"
        self.phase = Phase.SLIDE

    def _slide(self, tile: int) -> None:
        self.notches[tile] += 1
        if self.notches[tile] == self.rules.last_notch and not self.sheet.circled[tile]:
            if self._placements((self.tiles[tile],)).any():
                self.block_tile = tile
                self.phase = Phase.BLOCK
                return
        self._after_slides()

    def _after_slides(self) -> None:
        """Resolve the star slide if one is owed, then move on to the tetromino (a block dropped too)."""
        self.block_tile = None
        if self.star_pending:
            self.star_pending = False
            if self.shape_face == "*":
                if (self.notches < self.rules.last_notch).any():
                    self.phase = Phase.STAR_SLIDE
                    return
            else:
                tile = self.tiles.index(self.shape_face)
                if self.notches[tile] < self.rules.last_notch:
                    self._slide(tile)
                    return
        if self._placements(self.allowed_shapes()).any():
            self.phase = Phase.PLACE
        else:
            self._end_turn(piece_lost=True)

    def _after_value(self) -> None:
        if WILD in self.pending_values:
            self.phase = Phase.WILD
            return
        self.sheet.write(self.pending_cells, self.pending_values)
        self.pending_cells, self.pending_values = [], []
        self._combos = ComboIndex.build(self.sheet)
        self.selection = []
        self.phase = Phase.COMBO

    def _end_turn(self, piece_lost: bool = False) -> None:
        self.selection = []
        self._combos = None
        crossed = self.sheet.end_of_turn()
        if crossed or piece_lost or min(self.notches.tolist()) >= self.rules.last_notch:
            self.phase = Phase.OVER
        else:
            self._start_turn()

    # ------------------------------------------------------------ description
    def describe(self, action: int) -> dict[str, Any]:
        """The decision an action stands for now, in the game's words (JSON-safe)."""
        action = as_action(action, self.layout.size)
        L, p = self.layout, self.phase
        if action not in L.phase_range(p):
            return {"phase": p.value, "action": action, "valid": False}
        out: dict[str, Any] = {"phase": p.value, "action": action}
        if p is Phase.START:
            out.update(cells=[[0, action - L.start]], number=self.start_number)
        elif p in (Phase.SLIDE, Phase.STAR_SLIDE):
            t = action - L.slide
            out.update(letter=self.rules.letters[t], tile=self.tiles[t], notch=int(self.notches[t]))
        elif p is Phase.BLOCK:
            out.update(self._describe_placement(self._block_table(), action - L.block))
            out["letter"] = self.rules.letters[self.block_tile]
        elif p is Phase.PLACE:
            out.update(self._describe_placement(self.table, action - L.place))
            out["dice"] = [v if v != WILD else "*" for v in self.sorted_dice()]
        elif p is Phase.ARRANGE:
            dice = self.sorted_dice()
            values = [dice[i] for i in PERMUTATIONS[action - L.arrange]]
            out.update(cells=[list(c) for c in self.pending_cells], values=[v if v != WILD else "*" for v in values])
        elif p is Phase.WILD:
            out.update(cell=list(self.pending_cells[self.pending_values.index(WILD)]), value=action - L.wild)
        elif action == L.confirm:
            out.update(choice="confirm", cells=[list(c) for c in self.selection])
        elif action == L.pass_:
            out.update(choice="pass")
        else:
            out.update(choice="select", cell=list(divmod(action - L.select, self.rules.cols)))
        return out

    def _describe_placement(self, table: ShapeTable, placement: int) -> dict[str, Any]:
        if placement >= table.size:
            return {"shape": table.names[0], "orientation": None, "column": None, "cells": None}
        o, col = divmod(placement, self.rules.cols)
        cells = table.cells(placement, self.sheet.heights) if table.fits_columns[placement] else None
        return {
            "shape": table.names[table.orientation_shape[o]],
            "orientation": o,
            "column": col,
            "cells": None if cells is None else [list(c) for c in cells],
        }

    # ------------------------------------------------------------ persistence
    def clone(self) -> SoloGame:
        """An independent copy (its own generator in the same state) for search."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.sheet = self.sheet.copy()
        other.notches = self.notches.copy()
        other.rng = np.random.Generator(type(self.rng.bit_generator)())
        other.rng.bit_generator.state = self.rng.bit_generator.state
        other.pending_cells = list(self.pending_cells)
        other.pending_values = list(self.pending_values)
        other.selection = list(self.selection)
        return other

    def to_dict(self, include_rng: bool = True) -> dict[str, Any]:
        """The whole state as plain JSON-safe data."""
        return {
            "version": STATE_VERSION,
            "sheet": self.sheet.to_dict(),
            "tiles": list(self.tiles),
            "notches": self.notches.tolist(),
            "dice": None if self.dice is None else list(self.dice),
            "shape_face": self.shape_face,
            "phase": self.phase.value,
            "turn": self.turn,
            "star_pending": self.star_pending,
            "block_tile": self.block_tile,
            "pending_cells": [list(c) for c in self.pending_cells],
            "pending_values": list(self.pending_values),
            "selection": [list(c) for c in self.selection],
            "rng": self.rng.bit_generator.state if include_rng else None,
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1))

    @classmethod
    def load(
        cls, path: str | Path, rules: Rules = DEFAULT_RULES, seed: np.random.Generator | int | None = None
    ) -> SoloGame:
        try:
            data = json.loads(Path(path).read_text())
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}: not a JSON state file ({err})") from err
        return cls.from_dict(data, rules, seed)

    @classmethod
    def from_dict(
        cls, data: dict[str, Any], rules: Rules = DEFAULT_RULES, seed: np.random.Generator | int | None = None
    ) -> SoloGame:
        """Rebuild a game (``ValueError``/``TypeError`` if malformed); the dice continue from the
        saved ``rng`` state, else from ``seed``."""
        return restore_solo(cls, data, rules, seed)

    # ------------------------------------------------------------ whole turns
    def play_afterstate(
        self,
        values: np.ndarray,
        used: np.ndarray,
        heights: np.ndarray,
        notches: np.ndarray,
        combo: tuple[str, int] | None,
        piece_lost: bool,
    ) -> None:
        """Finish the turn by jumping to the sheet one of its candidates leaves: the same state as
        replaying its actions (the tests check it)."""
        if self.phase not in (Phase.SLIDE, Phase.STAR_SLIDE, Phase.BLOCK, Phase.PLACE, Phase.ARRANGE):
            raise ValueError(f"no turn to finish in phase {self.phase.value!r}")
        s = self.sheet
        s.values[:] = np.asarray(values).reshape(s.values.shape)
        s.used[:] = np.asarray(used).reshape(s.used.shape)
        s.heights[:] = heights
        self.notches[:] = notches
        if combo is not None:
            s.tick_box(*combo)
        self.star_pending, self.block_tile = False, None
        self.pending_cells, self.pending_values = [], []
        self._mask = None
        self._end_turn(piece_lost=piece_lost)

    def resume(self, dice: tuple[int, ...], shape_face: str, turn: int, over: bool) -> None:
        """Take up a game whose sheet and notches were advanced elsewhere (the native vector
        environment's packed games) at the roll of the turn reached."""
        self.selection, self.pending_cells, self.pending_values = [], [], []
        self._combos, self._mask, self.block_tile = None, None, None
        self._enter_turn(dice, shape_face, turn)
        if over:
            self.star_pending, self.phase = False, Phase.OVER


@lru_cache(maxsize=8)
def _die_sizes(rules: Rules) -> np.ndarray:
    """Faces of each number die, then of the shape die: the bounds of one roll."""
    sizes = np.array([len(d) for d in rules.number_dice] + [len(rules.shape_die)], np.int64)
    sizes.flags.writeable = False
    return sizes
