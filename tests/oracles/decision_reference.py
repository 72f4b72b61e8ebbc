"""The decision-level environment's masks and observations as they were first written.

Pure Python/NumPy, kept verbatim as the reference the compiled fast path
(``numberdrop_env.envs.observe``, ``numberdrop_env.engine.placements`` and the kernels
in ``numberdrop_env.engine.combos``) must
match bit for bit: ``legal_mask`` is ``SoloGame._compute_mask``, ``observe`` is
``numberdrop_env.envs.decision.observe`` and ``combo_structures`` / ``combo_options`` are
``ComboIndex.build`` / ``ComboIndex.options``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from numberdrop_env.engine.actions import PERMUTATIONS, PHASES, Phase
from numberdrop_env.engine.combos import ComboIndex, neighbour_table
from numberdrop_env.engine.rules import DEFAULT_RULES, EMPTY, WILD, X
from numberdrop_env.engine.sheet import IDENTICAL, Sheet
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.observe import GRID_PLANES

Cell = tuple[int, int]


# ------------------------------------------------------------------ combinations
def combo_structures(sheet: Sheet) -> dict[str, np.ndarray]:
    """``values``, ``free``, ``region``, ``up``, ``down`` of ``ComboIndex.build``."""
    r = sheet.rules
    nbr = neighbour_table(r.rows, r.cols)
    n = r.rows * r.cols
    flat = sheet.values.reshape(-1).astype(np.int64)
    free = np.zeros(n + 1, bool)
    free[:n] = (flat >= 0) & (flat <= r.max_number) & ~sheet.used.reshape(-1)
    values = np.full(n + 1, -100, np.int64)
    values[:n] = np.where(free[:n], flat, -100)
    return {
        "values": values,
        "free": free,
        "region": _region_sizes(values, free, nbr),
        "up": _path_lengths(values, free, nbr, +1),
        "down": _path_lengths(values, free, nbr, -1),
    }


def _region_sizes(values: np.ndarray, free: np.ndarray, nbr: np.ndarray) -> np.ndarray:
    n = len(nbr)
    same = free[:n, None] & free[nbr] & (values[nbr] == values[:n, None])
    label = np.append(np.where(free[:n], np.arange(n), n), n)
    while True:
        spread = np.where(same, label[nbr], n).min(axis=1)
        new = np.minimum(label[:n], spread)
        if np.array_equal(new, label[:n]):
            break
        label[:n] = new
    sizes = np.bincount(label[:n], minlength=n + 1)
    return np.where(free[:n], sizes[label[:n]], 0)


def _path_lengths(values: np.ndarray, free: np.ndarray, nbr: np.ndarray, step: int) -> np.ndarray:
    n = len(nbr)
    follows = free[nbr] & (values[nbr] == values[:n, None] + step)
    length = free.astype(np.int64)
    while True:
        grown = np.where(free[:n], 1 + np.where(follows, length[nbr], 0).max(axis=1), 0)
        if np.array_equal(grown, length[:n]):
            return length
        length[:n] = grown


def _any_open(counts: np.ndarray, lo: np.ndarray | int, hi: np.ndarray | int) -> np.ndarray:
    top = len(counts) - 1
    lo = np.clip(np.maximum(lo, 3), 0, top + 1)
    hi = np.clip(hi, 0, top)
    return (hi >= lo) & (counts[hi] > counts[np.minimum(lo, top + 1) - 1])


def combo_options(c: ComboIndex, selection: Sequence[Cell]) -> tuple[np.ndarray, bool]:
    """``ComboIndex.options``: flat mask of the cells that may join, and whether confirm is legal."""
    n = len(c.region)
    idx = [r * c.cols + col for r, col in selection]
    size = len(idx)
    cand = np.zeros(n, bool)
    if size == 0:
        cand = c.free[:n] & (
            _any_open(c.identical_ok, 3, c.region) | _any_open(c.consecutive_ok, 3, np.maximum(c.up, c.down)[:n])
        )
        return cand, False
    kind = c.kind(idx)
    tail = idx[-1]
    if kind == IDENTICAL:
        nb = np.unique(c.nbr[idx].reshape(-1))
        nb = nb[(nb < n) & (c.values[nb] == c.values[tail]) & c.free[nb]]
        nb = nb[~np.isin(nb, idx)]
        if _any_open(c.identical_ok, size + 1, c.region[tail]):
            cand[nb] = True
        return cand, bool(size >= 3 and _any_open(c.identical_ok, size, size))
    nb = c.nbr[tail]
    nb = nb[(nb < n) & c.free[nb]]
    for step, longest in ((+1, c.up), (-1, c.down)):
        if kind is not None and kind != (step > 0):
            continue
        ok = nb[c.values[nb] == c.values[tail] + step]
        cand[ok] = _any_open(c.consecutive_ok, size + 1, size + longest[ok])
    if size == 1:
        same = nb[c.values[nb] == c.values[tail]]
        cand[same] = _any_open(c.identical_ok, 2, c.region[tail])
        return cand, False
    return cand, bool(size >= 3 and _any_open(c.consecutive_ok, size, size))


# ------------------------------------------------------------------ masks
def legal_mask(game: SoloGame) -> np.ndarray:
    """``SoloGame._compute_mask``: exactly the legal decisions now."""
    L, p = game.layout, game.phase
    mask = np.zeros(L.size, bool)
    if p is Phase.START:
        mask[L.start : L.slide] = game.sheet.values[0] == EMPTY
    elif p in (Phase.SLIDE, Phase.STAR_SLIDE):
        mask[L.slide : L.block] = game.notches < game.rules.last_notch
    elif p is Phase.BLOCK:
        legal = game.block_placements()
        mask[L.block : L.block + len(legal)] = legal
    elif p is Phase.PLACE:
        table = game.table  # SoloGame._placements(allowed_shapes())
        mask[L.place : L.arrange] = table.legal(game.sheet.heights) & table.shape_placements(game.allowed_shapes())
    elif p is Phase.ARRANGE:
        assignments = np.array(game.sorted_dice())[PERMUTATIONS]
        _, first = np.unique(assignments, axis=0, return_index=True)
        mask[L.arrange + first] = True
    elif p is Phase.WILD:
        mask[L.wild : L.select] = True
    elif p is Phase.COMBO:
        cells, confirm = combo_options(game.combo_index, game.selection)
        mask[L.select : L.confirm] = cells
        mask[L.confirm] = confirm
        mask[L.pass_] = True
    return mask


# ------------------------------------------------------------------ observations
def _value_planes(max_number: int) -> np.ndarray:
    codes = np.arange(-1, X + 1)
    return np.stack([codes != EMPTY, codes == X] + [codes == v for v in range(max_number + 1)], axis=1).astype(
        np.float32
    )


_PLANES = _value_planes(DEFAULT_RULES.max_number)


def observe(game: SoloGame) -> dict[str, np.ndarray]:
    """``numberdrop_env.envs.decision.observe``: the documented observation of a solo game."""
    r, sheet = game.rules, game.sheet
    planes = _PLANES if r.max_number == DEFAULT_RULES.max_number else _value_planes(r.max_number)
    values = sheet.values
    if game.pending_values:
        values = values.copy()
        for (row, col), v in zip(game.pending_cells, game.pending_values):
            values[row, col] = v
    grid = np.zeros((GRID_PLANES, r.rows, r.cols), np.float32)
    grid[[0, 1, *range(3, 4 + r.max_number)]] = planes[values + 1].transpose(2, 0, 1)
    grid[0] = sheet.values != EMPTY
    grid[2] = sheet.used
    for row, col in game.pending_cells:
        grid[13, row, col] = 1
    if game.phase is Phase.WILD:
        grid[(14, *game.pending_cells[game.pending_values.index(WILD)])] = 1
    for row, col in game.selection:
        grid[15, row, col] = 1
    combos = game.combo_index
    if combos is not None:
        n = r.rows * r.cols
        grid[16:19] = (
            np.stack([combos.region, combos.up[:n], combos.down[:n]]).reshape(3, r.rows, r.cols) / r.bonus_size
        )

    dice = np.zeros((len(r.number_dice), r.max_number + 2), np.float32)
    if game.dice is not None:
        faces = np.array(game.sorted_dice())
        dice[np.arange(len(faces)), np.where(faces == WILD, r.max_number + 1, faces)] = 1
    shape_die = np.zeros(len(r.shape_die), np.float32)
    if game.shape_face is not None:
        shape_die[r.shape_die.index(game.shape_face)] = 1
    track = np.concatenate(
        [sheet.identical, sheet.consecutive, [sheet.bonus], sheet.circled, sheet.lines, sheet.penalties]
    ).astype(np.float32)
    n = len(r.letters)
    board = np.zeros((n, len(r.shape_names) + r.last_notch + 1), np.float32)
    board[np.arange(n), [r.shape_names.index(t) for t in game.tiles]] = 1
    board[np.arange(n), len(r.shape_names) + game.notches] = 1
    phase = np.zeros(len(PHASES), np.float32)
    if game.phase in PHASES:
        phase[PHASES.index(game.phase)] = 1
    extra = np.zeros(n + 7, np.float32)
    if game.block_tile is not None:
        extra[game.block_tile] = 1
    extra[n] = game.star_pending
    extra[n + 1] = len(game.selection) / r.bonus_size
    if len(game.selection) >= 2:
        step = int(sheet.values[game.selection[1]]) - int(sheet.values[game.selection[0]])
        extra[n + 2 + (0 if step == 0 else 1 if step > 0 else 2)] = 1
    extra[n + 5] = min(game.turn / 20, 1.0)
    extra[n + 6] = max(game.score(), 0) / r.max_score
    table = game.table
    rows = table.landing_rows(sheet.heights)
    landing = np.where(table.lands_inside(rows), (rows + 1) / r.rows, 0).astype(np.float32)
    return {
        "grid": grid,
        "dice": dice.reshape(-1),
        "shape_die": shape_die,
        "track": track,
        "solo_board": board.reshape(-1),
        "phase": phase,
        "pending": extra,
        "heights": (sheet.heights / r.rows).astype(np.float32),
        "landing": landing,
    }
