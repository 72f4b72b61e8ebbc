"""What the compiled planner reads and writes: flat arrays, laid out once for every module.

A game is one int64 vector (``STATE_FIELDS``, ``turns.pack``), the rules and settings one
``RuleArrays``, a turn's candidates one ``TurnArrays``, read as a ``Position`` and its ``Boxes``:
numba passes NamedTuples of arrays as they are, so each function takes the groups it needs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit

from ..engine.actions import layout_for, tetromino_table
from ..engine.combos import neighbour_table
from ..engine.rules import Rules

MAX_ACTIONS = 20
"""Micro-actions of one candidate at most: 2 slides, 2 blocks, place, arrange, 4 wild, 8 selects, confirm."""
MAX_TAIL_ACTIONS = 15
"""Micro-actions of a tetromino's part of a turn at most: place, arrange, 4 wild, 8 selects, confirm."""

# phase codes of the micro-actions (the order of ``PHASE_CODES`` in turns.py)
SLIDE, STAR_SLIDE, BLOCK, PLACE, ARRANGE, WILD_PHASE, COMBO = 0, 1, 2, 3, 4, 5, 6
LOST = 7  # a leaf whose tetromino has no legal placement: the turn and the game end

# integer parameters, by index into ``RuleArrays.ints``
(
    I_ROWS,
    I_COLS,
    I_REG,
    I_LAST,
    I_MAXN,
    I_BONUS,
    I_LINE_PTS,
    I_PEN_PTS,
    I_FULL_COL,
    I_WILD_DEFAULT,
    I_WIDTH,
    I_BLOCK_WIDTH,
    I_A_SLIDE,
    I_A_BLOCK,
    I_A_PLACE,
    I_A_ARRANGE,
    I_A_WILD,
    I_A_SELECT,
    I_A_CONFIRM,
    I_A_PASS,
    I_LETTERS,
) = range(21)
N_INTS = 21
"""``ints`` holds these, then the box sizes."""
# fields of a packed game (``pack`` in turns.py), in this order; the sizes come from the rules
STATE_FIELDS = tuple(
    "values used heights notches tiles circled identical consecutive crossed lines penalties bonus dice face star "
    "phase block fixed limit".split()
)
# float weights, by index into ``RuleArrays.floats``
(F_TURN, F_LETTER, F_LETTER_HALF, F_HURT, F_THREAT, F_HOLE_ROW, F_HOLE, F_ROW_FILL, F_BUMP, F_HIGH) = range(10)


class TurnArrays(NamedTuple):
    """The candidates of a turn, one row each, best first."""

    actions: np.ndarray  # (n, MAX_ACTIONS) int64, padded with -1
    phases: np.ndarray  # (n, MAX_ACTIONS) int64 phase codes
    n_actions: np.ndarray  # (n,)
    value: np.ndarray  # (n,) float64 planner value
    points: np.ndarray  # (n,) int64 official points of the turn
    values: np.ndarray  # (n, cells) int64 afterstate grid
    used: np.ndarray  # (n, cells) bool
    heights: np.ndarray  # (n, cols) int64
    notches: np.ndarray  # (n, letters) int64
    combo_kind: np.ndarray  # (n,) -1 none, 0 identical, 1 consecutive
    combo_size: np.ndarray  # (n,)
    ends_game: np.ndarray  # (n,) bool
    terms: np.ndarray  # (n, 5) geometry, potential, turns, letter, letter_half
    has_terms: np.ndarray  # (n,) bool: False for a lost piece (its value is its points)


class RuleArrays(NamedTuple):
    """What the rules and the planner's settings fix (placement ``p = orientation * cols + column``).
    Every array is C-contiguous and writable, so one compiled signature serves all."""

    dr: np.ndarray  # (placements, 4) row offset of each cell
    cc: np.ndarray  # (placements, 4) column of each cell
    bottom: np.ndarray  # (placements, 4) lowest row offset within that cell's column
    top: np.ndarray  # (placements,) highest row offset
    fits: np.ndarray  # (placements,) bool: the cells stay within the columns
    owner: np.ndarray  # (placements,) the shape placed
    nbrs: np.ndarray  # (cells, 4) neighbour table
    kweights: np.ndarray  # (6,) the kernels' weights (``heuristic.Weights``)
    ints: np.ndarray  # (N_INTS + boxes,) the ``I_*`` parameters, then the box sizes
    floats: np.ndarray  # (10,) the ``F_*`` weights
    box: np.ndarray  # (boxes,) the box sizes


def rule_arrays(rules: Rules, ints: np.ndarray, kweights: np.ndarray, floats: np.ndarray) -> RuleArrays:
    """The ``RuleArrays`` of ``rules`` with the planner's parameters and weights."""
    t = tetromino_table(rules)
    owner = np.repeat(t.orientation_shape, rules.cols)

    def own(a: np.ndarray, dtype: type = np.int64) -> np.ndarray:
        return np.array(a, dtype, order="C")  # a copy: the planner's, writable

    return RuleArrays(
        own(t.dr),
        own(t.cc),
        own(t.bottom),
        own(t.top),
        own(t.fits_columns, np.bool_),
        own(owner),
        own(neighbour_table(rules.rows, rules.cols)),
        own(kweights, np.float64),
        own(ints),
        own(floats, np.float64),
        own(ints[N_INTS:]),
    )


@lru_cache(maxsize=8)
def rule_ints(rules: Rules) -> np.ndarray:
    """The ``I_*`` parameters the rules fix (the planner's settings 0), then the box
    sizes. Read-only: shared."""
    L = layout_for(rules)
    ints = np.zeros(N_INTS, np.int64)
    for i, v in (
        (I_ROWS, rules.rows),
        (I_COLS, rules.cols),
        (I_REG, rules.regular_rows),
        (I_LAST, rules.last_notch),
        (I_MAXN, rules.max_number),
        (I_BONUS, rules.bonus_size),
        (I_LINE_PTS, rules.line_points),
        (I_PEN_PTS, rules.penalty_points),
        (I_FULL_COL, rules.full_column_points),
        (I_A_SLIDE, L.slide),
        (I_A_BLOCK, L.block),
        (I_A_PLACE, L.place),
        (I_A_ARRANGE, L.arrange),
        (I_A_WILD, L.wild),
        (I_A_SELECT, L.select),
        (I_A_CONFIRM, L.confirm),
        (I_A_PASS, L.pass_),
        (I_LETTERS, len(rules.letters)),
    ):
        ints[i] = v
    out = np.concatenate([ints, np.asarray(rules.box_sizes, np.int64)])
    out.flags.writeable = False
    return out


class Position(NamedTuple):
    """The game whose turn is planned (the fields of a packed game the enumeration reads)."""

    values: np.ndarray  # (cells,) the grid
    used: np.ndarray  # (cells,) bool
    heights: np.ndarray  # (cols,)
    notches: np.ndarray  # (letters,)
    tiles: np.ndarray  # (letters,) the shape of each letter's tile
    circled: np.ndarray  # (letters,) bool
    identical: np.ndarray  # (boxes,) bool: ticked
    consecutive: np.ndarray  # (boxes,) bool: ticked
    lines: np.ndarray  # (regular rows,) bool: ticked
    penalties: np.ndarray  # (penalty rows,) bool: ticked
    dice: np.ndarray  # (4,) sorted, a star last
    face: int  # the shape die's shape, -1 for a star
    star: int  # a star slide is owed
    phase: int  # SLIDE, STAR_SLIDE, BLOCK, PLACE or ARRANGE
    block: int  # the tile whose block drops (phase BLOCK)
    fixed: np.ndarray  # (4,) the pending cells (phase ARRANGE), else -1


class Boxes(NamedTuple):
    """What the combinations of a turn can still score: the open targets (ascending, then the bonus
    box), the distinct identical sizes, and each kind's ticked count and open boxes."""

    ident_targets: np.ndarray
    cons_targets: np.ndarray
    ident_sizes: np.ndarray
    ident_done: int
    cons_done: int
    ident_open: np.ndarray  # (boxes,) bool
    cons_open: np.ndarray  # (boxes,) bool


@njit(cache=True)
def state_offsets(ints):
    """Start of each field of ``STATE_FIELDS`` in a packed game, and the total length."""
    rows, cols, reg, letters = ints[I_ROWS], ints[I_COLS], ints[I_REG], ints[I_LETTERS]
    n = rows * cols
    sizes = np.array(
        [n, n, cols, letters, letters, letters, letters, letters, letters, reg, rows - reg, 1, 4, 1, 1, 1, 1, 4, 1]
    )
    out = np.zeros(len(sizes) + 1, np.int64)
    for i in range(len(sizes)):
        out[i + 1] = out[i] + sizes[i]
    return out


@njit(cache=True)
def same_rows(a, i, b, j):
    """Whether row i of ``a`` equals row j of ``b``."""
    for c in range(a.shape[1]):
        if a[i, c] != b[j, c]:
            return False
    return True
