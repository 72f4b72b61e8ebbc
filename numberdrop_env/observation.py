"""The observation of a solo game, as documented on :class:`numberdrop_env.env.NumberDropEnv`.

``NumberDrop-v0`` observes at every decision. As NumPy expressions an observation took
dozens of small array operations; here compiled (numba) kernels fill zeroed arrays in a
few loops over the grid and the placements. The arrays are allocated for each
observation, so no observation aliases another one or the game.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np
from numba import njit

from .actions import PHASES, Phase, tetromino_table
from .placements import landing_row
from .rules import EMPTY, WILD, X, Rules
from .solo import SoloGame

GRID_PLANES = 19
_NONE = np.zeros(0, np.int64)  # no pending cells, selection or dice
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
    """Writes the observations of games under one set of rules (its constants looked up once).

    One zeroed buffer per observation, cut into the documented arrays: one argument for
    the kernel instead of nine, and each observation owns its memory.
    """

    def __init__(self, rules: Rules) -> None:
        shapes = observation_shapes(rules)
        sizes = [int(np.prod(shape)) for shape in shapes.values()]
        ends = np.cumsum(sizes)
        self.rules = rules
        self.size = int(ends[-1])
        self.parts = tuple(zip(shapes, ends - sizes, ends))
        self.grid_shape = shapes["grid"]
        # offsets of the arrays in the buffer (in ``observation_shapes`` order), then the constants
        self.layout = np.array([*(ends - sizes), len(rules.shape_names), rules.max_number, rules.bonus_size,
                                rules.max_score], np.int64)
        table = tetromino_table(rules)
        self.drop_cells = np.stack([table.cc, table.bottom])  # each placement's cells: column, lowest offset there
        self.drop_reach = np.stack([table.top, table.fits_columns])  # its top offset, whether it fits the columns
        self.cols = rules.cols
        self.faces = {face: i for i, face in enumerate(rules.shape_die)}
        self.phases = {phase: i for i, phase in enumerate(PHASES)}  # a waiting multiplayer seat has none
        self.tile_shapes: dict[tuple[str, ...], np.ndarray] = {}
        self.rolls: dict[tuple[int, ...], np.ndarray] = {}

    def __call__(self, game: SoloGame, score: int) -> dict[str, np.ndarray]:
        """Fresh arrays; ``score`` is ``game.score()``, which the caller usually knows already."""
        buf = np.zeros(self.size, np.float32)
        sheet, combos = game.sheet, game.combo_index
        write_observation(
            buf, self.layout, sheet.values, sheet.used, sheet.heights, sheet.identical, sheet.consecutive,
            sheet.bonus, sheet.circled, sheet.lines, sheet.penalties, *self._pending(game),
            _flat(game.selection, self.cols), _NO_COMBOS if combos is None else combos.structures,
            _NONE if game.dice is None else self._dice(game.dice), self.faces.get(game.shape_face, -1),
            self._tile_shapes(game.tiles), game.notches, -1 if game.block_tile is None else game.block_tile,
            game.star_pending, self.phases.get(game.phase, -1), game.turn, score, self.drop_cells, self.drop_reach)
        obs = {name: buf[start:end] for name, start, end in self.parts}
        obs["grid"] = obs["grid"].reshape(self.grid_shape)
        return obs

    def _pending(self, game: SoloGame) -> tuple[np.ndarray, np.ndarray, int]:
        """The landed tetromino's cells, the values chosen so far and the next wild cell (or -1)."""
        if not game.pending_cells:
            return _NONE, _NONE, -1
        wild = -1
        if game.phase is Phase.WILD:
            row, col = game.pending_cells[game.pending_values.index(WILD)]
            wild = row * self.cols + col
        values = np.array(game.pending_values, np.int64) if game.pending_values else _NONE
        return _flat(game.pending_cells, self.cols), values, wild

    def _tile_shapes(self, tiles: tuple[str, ...]) -> np.ndarray:
        """Shape index of each solo tile (a game's tiles never change); shared, so read-only."""
        if tiles not in self.tile_shapes:
            self.tile_shapes[tiles] = _read_only([self.rules.shape_names.index(t) for t in tiles])
        return self.tile_shapes[tiles]

    def _dice(self, dice: tuple[int, ...]) -> np.ndarray:
        """The roll as an array (a roll stays for a whole turn); shared, so read-only."""
        if dice not in self.rolls:
            self.rolls[dice] = _read_only(dice)
        return self.rolls[dice]


def _read_only(values: Sequence[int]) -> np.ndarray:
    out = np.array(values, np.int64)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=8)
def _observer(rules: Rules) -> Observer:
    return Observer(rules)


def observe(game: SoloGame) -> dict[str, np.ndarray]:
    """The observation of a solo game (fresh arrays)."""
    return _observer(game.rules)(game, game.score())


def _flat(cells: list[tuple[int, int]], cols: int) -> np.ndarray:
    return np.array([r * cols + c for r, c in cells], np.int64) if cells else _NONE


# ------------------------------------------------------------------ kernels
# Cells are flat (row * cols + column); WILD dice faces and pending values are -1.
@njit(cache=True)
def write_observation(buf, layout, values, used, heights, identical, consecutive, bonus, circled, lines, penalties,
                      pending, pending_values, wild, selection, structures, dice, shape_face, tiles, notches,
                      block_tile, star_pending, phase, turn, score, drop_cells, drop_reach):
    """Every array of the observation into the zeroed ``buf``, at the offsets of ``layout``.

    ``structures`` is empty outside the combination phase; ``dice`` unsorted and empty before
    the first roll; ``tiles`` the shape index of each letter; -1 for no ``wild`` cell, shape
    face, ``block_tile`` or ``phase``.
    """
    grid_at, dice_at, face_at, track_at, board_at, phase_at, pending_at, heights_at = layout[:8]
    n_shapes, max_number, bonus_size, max_score = layout[9:]
    rows, cols = values.shape
    _write_grid(buf[grid_at:dice_at].reshape(-1, rows, cols), values, used, pending, pending_values, wild, selection,
                structures, bonus_size)
    _write_dice(buf[dice_at:face_at], dice, max_number)
    if shape_face >= 0:
        buf[face_at + shape_face] = 1
    _write_track(buf[track_at:board_at], identical, consecutive, bonus, circled, lines, penalties)
    width = (phase_at - board_at) // len(tiles)
    for t in range(len(tiles)):
        buf[board_at + t * width + tiles[t]] = 1
        buf[board_at + t * width + n_shapes + notches[t]] = 1
    if phase >= 0:
        buf[phase_at + phase] = 1
    _write_pending(buf[pending_at:heights_at], len(tiles), block_tile, star_pending, values, selection, bonus_size,
                   turn, score, max_score)
    # the heights, then the landing vector right after them
    _write_heights(buf[heights_at:], heights, drop_cells[0], drop_cells[1], drop_reach[0], drop_reach[1], rows)


@njit(cache=True)
def _write_grid(grid, values, used, pending, pending_values, wild, selection, structures, bonus_size):
    rows, cols = values.shape
    for r in range(rows):
        for c in range(cols):
            v = values[r, c]
            grid[0, r, c] = v != EMPTY
            grid[2, r, c] = used[r, c]
            if v == X:
                grid[1, r, c] = 1
            elif v >= 0:
                grid[3 + v, r, c] = 1
            for k in range(len(structures)):  # region size, ascending and descending path
                grid[16 + k, r, c] = structures[k, r * cols + c] / bonus_size
    for j in range(min(len(pending), len(pending_values))):  # values shown before they are written
        if pending_values[j] >= 0:
            grid[3 + pending_values[j], pending[j] // cols, pending[j] % cols] = 1
    for i in pending:
        grid[13, i // cols, i % cols] = 1
    if wild >= 0:
        grid[14, wild // cols, wild % cols] = 1
    for i in selection:
        grid[15, i // cols, i % cols] = 1


@njit(cache=True)
def _write_dice(out, dice, max_number):
    """One-hot values, stars in the last column, of the dice sorted as ``SoloGame.sorted_dice``."""
    faces = dice.copy()
    for a in range(1, len(faces)):  # insertion sort by value, stars last
        j = a
        while j > 0 and faces[j] != WILD and (faces[j - 1] == WILD or faces[j - 1] > faces[j]):
            faces[j - 1], faces[j] = faces[j], faces[j - 1]
            j -= 1
    for i in range(len(faces)):
        out[i * (max_number + 2) + (max_number + 1 if faces[i] == WILD else faces[i])] = 1


@njit(cache=True)
def _write_track(out, identical, consecutive, bonus, circled, lines, penalties):
    k = 0
    for part in (identical, consecutive):
        for done in part:
            out[k] = done
            k += 1
    out[k] = bonus
    k += 1
    for part in (circled, lines, penalties):
        for done in part:
            out[k] = done
            k += 1


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
