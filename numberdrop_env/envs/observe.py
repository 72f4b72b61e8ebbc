"""The observation of a solo game (``docs/envs/numberdrop.md``), written by a compiled kernel into
a fresh buffer cut into its arrays, sharing memory with nothing."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit

from ..engine.actions import PHASES, Phase, tetromino_table
from ..engine.placements import landing_row
from ..engine.rules import EMPTY, WILD, Rules, X
from ..engine.sheet import Sheet
from ..engine.solo import SoloGame

GRID_PLANES = 19
_NO_CELLS = np.zeros(0, np.int64)  # no selection
_NO_PENDING = np.zeros((0, 2), np.int64)  # no tetromino landed and not yet written
_NO_COMBOS = np.zeros((0, 0), np.int64)  # no combination structures outside the combination phase


def observation_shapes(rules: Rules) -> dict[str, tuple[int, ...]]:
    """Shape of each array of the observation (all float32 in [0, 1])."""
    n_letters = len(rules.letters)
    return {
        "grid": (GRID_PLANES, rules.rows, rules.cols),
        "dice": (len(rules.number_dice) * (rules.max_number + 2),),
        "shape_die": (len(rules.shape_die),),
        "track": (3 * n_letters + 1 + rules.rows,),
        "solo_board": (n_letters * (len(rules.shape_names) + rules.last_notch + 1),),
        "phase": (len(PHASES),),
        "pending": (n_letters + 7,),
        "heights": (rules.cols,),
        "landing": (tetromino_table(rules).size,),
    }


class Observer:
    """Writes the observations of games under one set of rules; the kernel's array arguments are
    few (each costs numba about what the kernel spends on a small array)."""

    def __init__(self, rules: Rules) -> None:
        shapes = observation_shapes(rules)
        sizes = [int(np.prod(shape)) for shape in shapes.values()]
        ends = np.cumsum(sizes)
        table = tetromino_table(rules)
        self.rules = rules
        self.size = int(ends[-1])
        self.parts = tuple(zip(shapes, ends - sizes, ends))
        self.grid_shape = shapes["grid"]
        # offsets of the arrays in the buffer (``observation_shapes`` order), rule constants, the placements:
        # their cells' columns and lowest offsets, then their top offsets and fitting the columns
        self.constants = np.concatenate(
            [
                ends - sizes,
                [len(rules.shape_names), rules.max_number, rules.bonus_size, rules.max_score],
                table.cc.shape,
                table.cc.ravel(),
                table.bottom.ravel(),
                table.top,
                table.fits_columns,
            ]
        ).astype(np.int64)
        self.faces = {face: i for i, face in enumerate(rules.shape_die)}
        self.phases = {phase: i for i, phase in enumerate(PHASES)}  # a waiting multiplayer seat has none
        self.roll: tuple[Any, np.ndarray] = (None, _NO_CELLS)  # (tiles, dice) and their array, see ``_roll``
        self.boxes_memo: tuple[Any, dict[str, int], np.ndarray] = (None, {}, _NO_CELLS)  # see ``boxes``

    def __call__(self, game: SoloGame) -> tuple[dict[str, np.ndarray], dict[str, int]]:
        """Fresh observation arrays, and the score breakdown they were written from (shared: read only)."""
        buf = np.zeros(self.size, np.float32)
        sheet, combos = game.sheet, game.combo_index
        breakdown, track = self.boxes(sheet)
        write_observation(
            buf,
            self.constants,
            sheet.values,
            sheet.used,
            sheet.heights,
            track,
            *self._pending(game),
            np.array([r * self.rules.cols + c for r, c in game.selection], np.int64) if game.selection else _NO_CELLS,
            _NO_COMBOS if combos is None else combos.structures,
            self._roll(game),
            self.faces.get(game.shape_face, -1),
            game.notches,
            -1 if game.block_tile is None else game.block_tile,
            game.star_pending,
            self.phases.get(game.phase, -1),
            game.turn,
            breakdown["total"],
        )
        obs = {name: buf[start:end] for name, start, end in self.parts}
        obs["grid"] = obs["grid"].reshape(self.grid_shape)
        return obs, breakdown

    def boxes(self, sheet: Sheet) -> tuple[dict[str, int], np.ndarray]:
        """The score breakdown and the ``track`` (shared, read only), kept while no box changes."""
        track = np.concatenate(
            [sheet.identical, sheet.consecutive, [sheet.bonus], sheet.circled, sheet.lines, sheet.penalties]
        ).astype(np.float32)
        key = track.tobytes()  # every box the score counts, and the circled letters
        if key != self.boxes_memo[0]:
            self.boxes_memo = (key, sheet.score_breakdown(), track)
        return self.boxes_memo[1], self.boxes_memo[2]

    def _pending(self, game: SoloGame) -> tuple[np.ndarray, int]:
        """The landed tetromino's (cell, value so far or -1) pairs, and its next wild cell (or -1)."""
        if not game.pending_cells:
            return _NO_PENDING, -1
        cols, values = self.rules.cols, game.pending_values or [WILD] * len(game.pending_cells)
        wild = -1
        if game.phase is Phase.WILD:
            row, col = game.pending_cells[values.index(WILD)]
            wild = row * cols + col
        return np.array([(r * cols + c, v) for (r, c), v in zip(game.pending_cells, values)], np.int64), wild

    def _roll(self, game: SoloGame) -> np.ndarray:
        """The shape of each letter's tile, then the number dice, kept while they stay."""
        key, roll = self.roll
        if key != (game.tiles, game.dice):
            shapes = [self.rules.shape_names.index(t) for t in game.tiles]
            roll = np.array(shapes + list(game.dice or ()), np.int64)
            self.roll = (game.tiles, game.dice), roll
        return roll


@lru_cache(maxsize=8)
def _observer(rules: Rules) -> Observer:
    return Observer(rules)


def observe(game: SoloGame) -> dict[str, np.ndarray]:
    """The observation of a solo game (fresh arrays), as documented on ``NumberDropEnv``."""
    return _observer(game.rules)(game)[0]


# Cells are flat (row * cols + column); WILD dice faces and pending values are -1.
@njit(cache=True)
def write_observation(
    buf,
    constants,
    values,
    used,
    heights,
    track,
    pending,
    wild,
    selection,
    structures,
    roll,
    shape_face,
    notches,
    block_tile,
    star_pending,
    phase,
    turn,
    score,
):
    """Every array of the observation into the zeroed ``buf`` (-1: no ``wild`` cell, shape face,
    ``block_tile`` or ``phase``)."""
    grid_at, dice_at, face_at, track_at, board_at, phase_at, pending_at, heights_at = constants[:8]
    n_shapes, max_number, bonus_size, max_score, n_placements, n_cells = constants[9:15]
    drops = constants[15 : 15 + 2 * n_placements * n_cells].reshape(2, n_placements, n_cells)
    reach = constants[15 + 2 * n_placements * n_cells :].reshape(2, n_placements)
    rows, cols = values.shape
    n = len(notches)
    _write_grid(
        buf[grid_at:dice_at].reshape(-1, rows, cols), values, used, pending, wild, selection, structures, bonus_size
    )
    _write_dice(buf[dice_at:face_at], roll[n:], max_number)
    if shape_face >= 0:
        buf[face_at + shape_face] = 1
    buf[track_at:board_at] = track
    width = (phase_at - board_at) // n
    for t in range(n):
        buf[board_at + t * width + roll[t]] = 1
        buf[board_at + t * width + n_shapes + notches[t]] = 1
    if phase >= 0:
        buf[phase_at + phase] = 1
    _write_pending(
        buf[pending_at:heights_at], n, block_tile, star_pending, values, selection, bonus_size, turn, score, max_score
    )
    # the heights, then the landing vector right after them
    _write_heights(buf[heights_at:], heights, drops[0], drops[1], reach[0], reach[1], rows)


@njit(cache=True)
def _write_grid(grid, values, used, pending, wild, selection, structures, bonus_size):
    """Planes: filled, X, used, one per value (the tetromino's too), landed tetromino, next wild
    cell, selection, then region size and ascending / descending path over the bonus size."""
    rows, cols = values.shape
    for r in range(rows):
        for c in range(cols):
            v = values[r, c]
            if v == EMPTY:
                continue
            grid[0, r, c] = 1
            if v == X:
                grid[1, r, c] = 1
                continue
            grid[2, r, c] = used[r, c]
            grid[3 + v, r, c] = 1
            for k in range(len(structures)):  # region size, ascending and descending path
                grid[16 + k, r, c] = structures[k, r * cols + c] / bonus_size
    for j in range(len(pending)):
        r, c = divmod(pending[j, 0], cols)
        grid[13, r, c] = 1
        if pending[j, 1] >= 0:  # the tetromino's values are shown before they are written
            grid[3 + pending[j, 1], r, c] = 1
    if wild >= 0:
        grid[14, wild // cols, wild % cols] = 1
    for i in selection:
        grid[15, i // cols, i % cols] = 1


@njit(cache=True)
def _write_dice(out, dice, max_number):
    """One-hot values, stars in the last column, of the dice sorted as ``SoloGame.sorted_dice``."""
    i = 0
    for v in range(max_number + 1):  # by value, then the stars
        for face in dice:
            if face == v:
                out[i * (max_number + 2) + v] = 1
                i += 1
    for face in dice:
        if face == WILD:
            out[i * (max_number + 2) + max_number + 1] = 1
            i += 1


@njit(cache=True)
def _write_pending(out, n, block_tile, star_pending, values, selection, bonus_size, turn, score, max_score):
    if block_tile >= 0:
        out[block_tile] = 1
    out[n] = star_pending
    out[n + 1] = len(selection) / bonus_size
    if len(selection) >= 2:  # identical, ascending or descending
        cols = values.shape[1]
        step = values[selection[1] // cols, selection[1] % cols] - values[selection[0] // cols, selection[0] % cols]
        out[n + 2 + (0 if step == 0 else 1 if step > 0 else 2)] = 1
    out[n + 5] = min(turn / 20, 1.0)
    out[n + 6] = max(score, 0) / max_score


@njit(cache=True)
def _write_heights(out, heights, cc, bottom, top, fits, rows):
    """Column heights, then the landing row of every placement (the ``ShapeTable`` arrays)."""
    cols = len(heights)
    for c in range(cols):
        out[c] = heights[c] / rows
    for p in range(len(top)):
        if fits[p]:
            row = landing_row(p, heights, cc, bottom)
            if row + top[p] < rows:
                out[cols + p] = (row + 1) / rows
