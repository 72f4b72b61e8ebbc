"""The rows ``NumberDropTurn-v0`` observes, compiled: each candidate's features
(``candidate_features``, columns named by ``envs.turn.CANDIDATE_FEATURES``) and the game's
``state`` vector (``turn_state``; ``envs.turn._state_reference`` is its NumPy reference).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.rules import EMPTY, WILD
from .enumeration import remaining_turns
from .packing import I_BONUS, I_COLS, I_LAST, I_LETTERS, I_MAXN, I_REG, I_ROWS, N_INTS, state_offsets


@njit(cache=True)
def feature_count(ints):
    """Columns of a candidate's feature row (``turn_env.CANDIDATE_FEATURES`` names them)."""
    n_box = len(ints) - N_INTS
    return 21 + ints[I_COLS] + 2 * n_box + 1 + n_box + ints[I_LETTERS]


@njit(cache=True)
def candidate_features(a, identical, consecutive, bonus, circled, crossed, box, ints, slots, n_features):
    """``NumberDropTurn-v0``'s ``candidates`` rows of the candidates ``a`` (``TurnArrays``) of a sheet
    with these boxes and letters, in float64 as the NumPy reference, stored as float32."""
    rows, cols, reg, last = ints[I_ROWS], ints[I_COLS], ints[I_REG], ints[I_LAST]
    maxn, bonus_size = ints[I_MAXN], ints[I_BONUS]
    nb = len(box)
    if n_features != feature_count(ints):
        raise ValueError("candidate_features: n_features does not match the rules' feature rows")
    out = np.zeros((slots, n_features), np.float32)
    for k in range(min(len(a.value), slots)):
        row = out[k]
        h = a.heights[k]
        holes = hole_rows = full_rows = penalty_rows = filled_cells = free_numbers = 0
        for r in range(rows):
            filled_row = 0
            holes_row = 0
            for c in range(cols):
                v = a.values[k, r * cols + c]
                if v != EMPTY:
                    filled_row += 1
                    if v <= maxn and not a.used[k, r * cols + c]:
                        free_numbers += 1
                elif r < h[c]:
                    holes_row += 1
            holes += holes_row
            filled_cells += filled_row
            if r < reg:
                hole_rows += holes_row > 0
                full_rows += filled_row == cols
            elif filled_row > 0:
                penalty_rows += 1
        bump = 0
        top = h[0]
        for c in range(1, cols):
            bump += abs(h[c] - h[c - 1])
            top = max(top, h[c])
        kind, size = a.combo_kind[k], a.combo_size[k]
        row[0] = 1.0
        row[1] = a.value[k] / 10.0
        row[2] = a.points[k] / 10.0
        row[3] = kind == 0
        row[4] = kind == 1
        row[5] = size / bonus_size
        row[6] = a.ends_game[k]
        for t in range(5):
            row[7 + t] = a.terms[k, t] / 10.0
        row[12] = remaining_turns(a.notches[k], last) / 10
        row[13] = holes / 10
        row[14] = hole_rows / reg
        row[15] = full_rows / reg
        row[16] = penalty_rows / (rows - reg)
        row[17] = filled_cells / (rows * cols)
        row[18] = free_numbers / 20
        row[19] = top / rows
        row[20] = bump / 20
        j = 21
        for c in range(cols):
            row[j + c] = h[c] / rows
        j += cols
        for b in range(nb):
            row[j + b] = identical[b] or (kind == 0 and size == box[b])
            row[j + nb + b] = consecutive[b] or (kind == 1 and size == box[b])
        row[j + 2 * nb] = bonus or (kind >= 0 and size == bonus_size)
        j += 2 * nb + 1
        for b in range(nb):
            row[j + b] = circled[b] or (row[21 + cols + b] > 0 and row[21 + cols + nb + b] > 0 and not crossed[b])
        j += nb
        for t in range(a.notches.shape[1]):
            row[j + t] = a.notches[k, t] / last
    return out


@njit(cache=True)
def _put(out, j, flags):
    """Write ``flags`` into ``out`` from index j on; returns the index after them."""
    for b in range(len(flags)):
        out[j + b] = flags[b]
    return j + len(flags)


@njit(cache=True)
def turn_state(
    dice,
    shape_die,
    identical,
    consecutive,
    bonus,
    circled,
    lines,
    penalties,
    tiles,
    notches,
    heights,
    extra,
    n_dice,
    n_faces,
    n_shape_die,
    n_shapes,
    last,
    rows,
):
    """``NumberDropTurn-v0``'s ``state`` vector (``turn_env._state_reference``); ``shape_die`` -1: none."""
    size = (
        n_dice * n_faces
        + n_shape_die
        + 3 * len(identical)
        + 1
        + len(lines)
        + len(penalties)
        + len(tiles) * (n_shapes + last + 1)
        + len(heights)
        + len(extra)
    )
    out = np.zeros(size, np.float32)
    for i in range(len(dice)):
        out[i * n_faces + (n_faces - 1 if dice[i] == WILD else dice[i])] = 1.0
    j = n_dice * n_faces
    if shape_die >= 0:
        out[j + shape_die] = 1.0
    j = _put(out, j + n_shape_die, identical)
    j = _put(out, j, consecutive)
    out[j] = bonus
    j = _put(out, j + 1, circled)
    j = _put(out, j, lines)
    j = _put(out, j, penalties)
    width = n_shapes + last + 1
    for t in range(len(tiles)):
        out[j + t * width + tiles[t]] = 1.0
        out[j + t * width + n_shapes + notches[t]] = 1.0
    j += len(tiles) * width
    for c in range(len(heights)):
        out[j + c] = heights[c] / rows
    j += len(heights)
    for e in range(len(extra)):
        out[j + e] = extra[e]
    return out


@njit(cache=True)
def turn_states_packed(states, extra, die_of_face, ints, n_dice, n_faces, n_shape_die, n_shapes, out):
    """``turn_state`` of packed games with their ``extra`` rows into ``out``; ``die_of_face[f]``: the
    shape die's face showing shape f, the last the star's."""
    o = state_offsets(ints)
    for g in range(states.shape[0]):
        s = states[g]
        out[g] = turn_state(
            s[o[12] : o[13]],
            die_of_face[s[o[13]]],
            s[o[6] : o[7]],
            s[o[7] : o[8]],
            s[o[11]],
            s[o[5] : o[6]],
            s[o[9] : o[10]],
            s[o[10] : o[11]],
            s[o[4] : o[5]],
            s[o[3] : o[4]],
            s[o[2] : o[3]],
            extra[g],
            n_dice,
            n_faces,
            n_shape_die,
            n_shapes,
            ints[I_LAST],
            ints[I_ROWS],
        )
