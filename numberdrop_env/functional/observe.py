"""The observation: ``NumberDrop-v0``'s arrays, each flattened and joined in one float32 vector in
this order (``observation_parts``), value for value the same as the decision environment's:

- ``grid`` (19, rows, cols): filled, X, used, the number 0..9 one-hot (pending values included),
  the pending tetromino, the next wild cell, the selection, then in *combo* the region size and
  the ascending and descending path of each number cell over the bonus size;
- ``dice`` (number dice x 11): the sorted dice one-hot, a star last; ``shape_die`` (faces);
- ``track``: identical, consecutive, bonus, circled letters, +2 boxes, -5 boxes;
- ``solo_board``: per letter its tile's tetromino and its notch, one-hot;
- ``phase`` (9) one-hot; ``pending``: dropping block letter, star slide owed, selection size over
  the bonus size, its kind (identical, ascending, descending), turn / 20, score / max score;
- ``heights`` (cols) over rows; ``landing`` (P): landing row + 1 over rows of legal placements.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ..engine.rules import WILD, X
from .play import landing_rows, legal_placements, score_parts, sorted_dice
from .state import State, heights
from .tables import COMBO, OVER, WILD_PHASE, Tables

GRID_PLANES = 19


def observation_parts(t: Tables) -> dict[str, tuple[int, ...]]:
    """Name and shape of each part of the observation vector, in order."""
    r, n = t.rules, t.letters
    return {
        "grid": (GRID_PLANES, t.rows, t.cols),
        "dice": (len(r.number_dice) * (r.max_number + 2),),
        "shape_die": (len(r.shape_die),),
        "track": (3 * n + 1 + t.rows,),
        "solo_board": (n * (t.shapes + r.last_notch + 1),),
        "phase": (OVER + 1,),
        "pending": (n + 7,),
        "heights": (t.cols,),
        "landing": (t.placements,),
    }


def observation_size(t: Tables) -> int:
    return sum(math.prod(shape) for shape in observation_parts(t).values())


def observe(t: Tables, s: State) -> jax.Array:
    """(observation_size,) float32 in [0, 1]."""
    r = t.rules
    rolled = s.shape_face >= 0
    dice = jax.nn.one_hot(
        jnp.where(sorted_dice(t, s.dice) == WILD, r.max_number + 1, sorted_dice(t, s.dice)), r.max_number + 2
    )
    land = landing_rows(t, s.grid)
    parts = [
        _grid(t, s).reshape(-1),
        (dice * rolled).reshape(-1),
        jax.nn.one_hot(t.face_slot[jnp.maximum(s.shape_face, 0)], len(r.shape_die)) * rolled,
        jnp.concatenate([s.identical, s.consecutive, s.bonus[None], s.letters, s.lines, s.penalties]),
        jnp.concatenate(
            [jax.nn.one_hot(s.tiles, t.shapes), jax.nn.one_hot(s.notches, r.last_notch + 1)], axis=1
        ).reshape(-1),
        jax.nn.one_hot(s.phase, OVER + 1),
        _pending(t, s),
        heights(s.grid) / t.rows,
        jnp.where(legal_placements(t, s.grid), (land + 1) / t.rows, 0),
    ]
    return jnp.concatenate([jnp.asarray(x, jnp.float32).reshape(-1) for x in parts])


def _grid(t: Tables, s: State) -> jax.Array:
    """The 19 planes, each from comparisons of the cell indices (no scatter: cheaper under ``vmap``)."""
    r = t.rules
    flat = s.grid.reshape(-1)
    cell = jnp.arange(t.cells, dtype=jnp.int32)
    number = (flat >= 0) & (flat != X)
    digits = jnp.arange(r.max_number + 1, dtype=jnp.int32)[:, None]
    at_pending = cell[:, None] == s.pending_cells[None, :]  # (cells, 4); -1 pads match no cell
    pending_values = jnp.where(s.phase == WILD_PHASE, s.pending_values, WILD)  # shown before written
    shown = jnp.any(at_pending[None] & (pending_values[None, None, :] == digits[:, :, None]), axis=2)
    wild_cell = jnp.where(s.phase == WILD_PHASE, s.pending_cells[jnp.argmax(s.pending_values == WILD)], -1)
    planes = [
        flat >= 0,
        flat == X,
        s.used.reshape(-1) & number,
        *((number & (flat[None] == digits)) | shown),
        jnp.any(at_pending, axis=1),
        cell == wild_cell,
        jnp.any(cell[:, None] == s.selection[None, :], axis=1),
        *(jnp.where(number & (s.phase == COMBO), s.structures / r.bonus_size, 0)),
    ]
    return jnp.stack([jnp.asarray(p, jnp.float32) for p in planes]).reshape(GRID_PLANES, t.rows, t.cols)


def _pending(t: Tables, s: State) -> jax.Array:
    r = t.rules
    flat = jnp.append(s.grid.reshape(-1), -1)
    sel = jnp.where(s.selection >= 0, s.selection, t.cells)
    step = flat[sel[1]] - flat[sel[0]]
    kind = jax.nn.one_hot(jnp.where(step == 0, 0, jnp.where(step > 0, 1, 2)), 3) * (s.selection_size >= 2)
    score = score_parts(t, s)["total"]
    return jnp.concatenate(
        [
            jax.nn.one_hot(s.block_tile, t.letters),  # -1: zeros
            s.star_pending[None],
            (s.selection_size / r.bonus_size)[None],
            kind,
            jnp.minimum(s.turn / 20, 1.0)[None],
            (jnp.maximum(score, 0) / r.max_score)[None],
        ]
    )
