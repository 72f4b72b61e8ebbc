"""The state of one solo game as a pytree of fixed-shape arrays: everything ``SoloGame.to_dict``
holds but the dice generator (the randomness comes from the key given to ``step``), plus what
pgx's ``State`` carries (mask, rewards, the end) and the combination structures of the turn."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import jax
import jax.numpy as jnp


@dataclass(frozen=True)
class State:
    """One solo game. Cells are flat ``row * cols + column`` where a list of cells is kept (-1 pads);
    numbers are 0..9, ``-1`` an empty cell or a star, ``10`` an X."""

    grid: jax.Array  # (rows, cols) int32: -1 empty, 0..9, 10 for X
    used: jax.Array  # (rows, cols) bool: number cells of a scored combination
    identical: jax.Array  # (boxes,) bool: identical boxes 3..7 ticked
    consecutive: jax.Array  # (boxes,) bool
    bonus: jax.Array  # () bool
    letters: jax.Array  # (boxes,) bool: letters A..E circled
    lines: jax.Array  # (regular rows,) bool: +2 boxes ticked
    penalties: jax.Array  # (penalty rows,) bool: -5 boxes ticked
    tiles: jax.Array  # (letters,) int32: tetromino of each letter's tile
    notches: jax.Array  # (letters,) int32
    dice: jax.Array  # (number dice,) int32 in die order, -1 a star (zeros before the first roll)
    shape_face: jax.Array  # () int32: face index of the shape die, -1 before the first roll
    phase: jax.Array  # () int32: the engine's Phase order (0 start .. 8 game_over)
    turn: jax.Array  # () int32
    star_pending: jax.Array  # () bool: a star slide is still owed this turn
    block_tile: jax.Array  # () int32: letter whose block drops (phase block), else -1
    pending_cells: jax.Array  # (4,) int32: the landed tetromino's cells (phases arrange, wild), else -1
    pending_values: jax.Array  # (4,) int32: values chosen so far, -1 a wild still owed (phase wild)
    selection: jax.Array  # (bonus,) int32: the combination's cells in order, -1 pads
    selection_size: jax.Array  # () int32
    structures: jax.Array  # (3, cells) int32: region, ascending, descending path of free numbers (combo)
    roll_due: jax.Array  # () bool: a roll is owed before the next decision (``NumberDrop.decide``)
    legal_action_mask: jax.Array  # (actions,) bool
    rewards: jax.Array  # (1,) float32: this step's change of the official score
    terminated: jax.Array  # () bool
    truncated: jax.Array  # () bool

    def replace(self, **changes: jax.Array) -> State:
        return dataclasses.replace(self, **changes)

    @property
    def flat_grid(self) -> jax.Array:
        return self.grid.reshape(*self.grid.shape[:-2], -1)


jax.tree_util.register_dataclass(State, data_fields=[f.name for f in dataclasses.fields(State)], meta_fields=[])


def heights(grid: jax.Array) -> jax.Array:
    """(cols,) one above each column's highest filled cell."""
    rows = jnp.arange(1, grid.shape[0] + 1, dtype=jnp.int32)[:, None]
    return jnp.max(jnp.where(grid >= 0, rows, 0), axis=0)
