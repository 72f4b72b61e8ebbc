"""The static data of one ``Rules``, read once from the engine's own builders (placements, action
offsets, permutations, neighbours, dice faces, the merged rolls): the JAX engine holds no rule of
its own, only these tables, as constant JAX arrays that ``jit`` folds into the step."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import jax.numpy as jnp
import numpy as np

from ..engine.actions import PERMUTATIONS, PHASES, ActionLayout, layout_for, tetromino_table
from ..engine.dice import roll_distribution
from ..engine.rules import Rules
from ..engine.shapes import neighbour_table

START, SLIDE, STAR_SLIDE, BLOCK, PLACE, ARRANGE, WILD_PHASE, COMBO, OVER = (PHASES.index(p) for p in PHASES)
"""Phase codes: the engine's ``Phase`` order (``PHASE_CODES``)."""

MIN_COMBINATION = 3
"""The engine's smallest combination (``combos._any_open``)."""


@dataclass(frozen=True, eq=False)
class Tables:
    """Every rule-dependent array the step reads; cells are flat ``row * cols + column``."""

    rules: Rules
    layout: ActionLayout
    rows: int
    cols: int
    cells: int
    letters: int
    shapes: int
    placements: int
    dr: jnp.ndarray  # (P, 4) row offsets of each placement's cells, sorted by (row, column)
    dc: jnp.ndarray  # (P, 4) their columns, in the same order
    cc: jnp.ndarray  # (P, 4) the columns in the table's order (for the landing row)
    bottom: jnp.ndarray  # (P, 4) lowest offset in that cell's column
    top: jnp.ndarray  # (P,)
    fits: jnp.ndarray  # (P,) inside the columns
    owners: jnp.ndarray  # (shapes, P) placements of each tetromino
    nbr: jnp.ndarray  # (cells + 1, 4) neighbours, the padding cell ``cells`` pointing at itself
    permutations: jnp.ndarray  # (24, 4)
    arrangements: jnp.ndarray  # (8, 24) distinct arrangements of sorted dice, by which neighbours are equal
    column_onehot: jnp.ndarray  # (cols, P * 4) float32: column of each placement's cells, one-hot
    die_faces: jnp.ndarray  # (number dice, most faces) values, WILD for a star, padded
    die_sizes: jnp.ndarray  # (number dice + 1,) faces of each die, the shape die last
    face_shape: jnp.ndarray  # (shape die faces,) tetromino index of each face, -1 for the star
    face_slot: jnp.ndarray  # (shape die faces,) the one-hot slot of each face in the observation
    box_sizes: jnp.ndarray  # (boxes,)
    box_of_size: jnp.ndarray  # (bonus + 1,) box index of a combination size, -1 if none (bonus: its own)
    roll_faces: jnp.ndarray  # (K, number dice + 1) the merged rolls (``engine.dice.roll_distribution``)
    roll_probabilities: jnp.ndarray  # (K,)

    @property
    def num_actions(self) -> int:
        return self.layout.size


@lru_cache(maxsize=8)
def tables_for(rules: Rules) -> Tables:
    """The tables of one set of rules (built once per ``Rules``)."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
    table = tetromino_table(rules)
    order = np.lexsort((table.cc, table.dr), axis=1)  # cells sorted by row, then column
    n = rules.rows * rules.cols
    nbr = np.vstack([neighbour_table(rules.rows, rules.cols), np.full((1, 4), n)])
    widest = max(len(d) for d in rules.number_dice)
    faces = np.array([list(d) + [d[0]] * (widest - len(d)) for d in rules.number_dice])
    box_of_size = np.full(rules.bonus_size + 1, -1)
    box_of_size[list(rules.box_sizes)] = np.arange(len(rules.box_sizes))
    slots = {face: i for i, face in enumerate(rules.shape_die)}  # as the decision env's observer
    rolls = roll_distribution(rules)
    return Tables(
        rules=rules,
        layout=layout_for(rules),
        rows=rules.rows,
        cols=rules.cols,
        cells=n,
        letters=len(rules.letters),
        shapes=len(rules.shape_names),
        placements=table.size,
        dr=_i32(np.take_along_axis(table.dr, order, axis=1)),
        dc=_i32(np.take_along_axis(table.cc, order, axis=1)),
        cc=_i32(table.cc),
        bottom=_i32(table.bottom),
        top=_i32(table.top),
        fits=jnp.asarray(table.fits_columns),
        owners=jnp.asarray(table.owners),
        nbr=_i32(nbr),
        permutations=_i32(PERMUTATIONS),
        arrangements=jnp.asarray(_distinct_arrangements()),
        column_onehot=jnp.asarray(table.cc.reshape(-1)[None, :] == np.arange(rules.cols)[:, None], jnp.float32),
        die_faces=_i32(faces),
        die_sizes=_i32([len(d) for d in rules.number_dice] + [len(rules.shape_die)]),
        face_shape=_i32([-1 if f == "*" else rules.shape_names.index(f) for f in rules.shape_die]),
        face_slot=_i32([slots[f] for f in rules.shape_die]),
        box_sizes=_i32(rules.box_sizes),
        box_of_size=_i32(box_of_size),
        roll_faces=_i32(rolls.faces),
        roll_probabilities=jnp.asarray(rolls.probabilities, jnp.float32),
    )


def _distinct_arrangements() -> np.ndarray:
    """(8, 24): for each pattern of equal neighbours among four sorted dice (bit i: die i equals die
    i + 1), the first arrangement of each distinct assignment of the dice to the cells (what
    ``SoloGame``'s arrange mask allows: sorted dice repeat only side by side)."""
    out = np.zeros((8, len(PERMUTATIONS)), bool)
    for pattern in range(8):
        dice = np.cumsum([0] + [0 if pattern >> i & 1 else 1 for i in range(3)])
        _, first = np.unique(dice[PERMUTATIONS], axis=0, return_index=True)
        out[pattern, first] = True
    return out


def _i32(values) -> jnp.ndarray:
    """A constant of the tables: a JAX array, so traced indices may index it."""
    return jnp.asarray(np.asarray(values), jnp.int32)
