"""Many packed games at once, compiled: enumerate every game's candidates (``enumerate_many``, on
every core), play the chosen ones (``finish_turns``), roll (``start_turns``) and read the scores
(``score_rows``), with no Python object per game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.rules import WILD
from ..engine.sheet import tick_lines_and_penalties
from .enumeration import enumerate_packed
from .features import candidate_features
from .packing import (
    I_BONUS,
    I_COLS,
    I_FULL_COL,
    I_LAST,
    I_LINE_PTS,
    I_PEN_PTS,
    I_REG,
    I_ROWS,
    N_INTS,
    SLIDE,
    RuleArrays,
    state_offsets,
)


@njit(cache=True)
def turn_costs(states, ints):
    """A rough relative cost of each packed game's turn, to hand the dearest out first (fitted on
    random play: x2.3 a star on the shape die, x1.8 a letter one notch from its block, x1.15 a wild die)."""
    o = state_offsets(ints)
    out = np.empty(states.shape[0])
    for g in range(states.shape[0]):
        s = states[g]
        cost = 2.3 if s[o[13]] < 0 else 1.0
        for t in range(o[3], o[4]):
            cost *= 1.8 if s[t] == ints[I_LAST] - 1 else 1.0
        for d in range(o[12], o[13]):
            cost *= 1.15 if s[d] == WILD else 1.0
        out[g] = cost
    return out


@njit(cache=True)
def _own(rules):
    """A thread's own copy of ``rules`` (threads sharing an array contend for its reference count)."""
    return RuleArrays(
        rules.dr.copy(),
        rules.cc.copy(),
        rules.bottom.copy(),
        rules.top.copy(),
        rules.fits.copy(),
        rules.owner.copy(),
        rules.nbrs.copy(),
        rules.kweights.copy(),
        rules.ints.copy(),
        rules.floats.copy(),
        rules.box.copy(),
    )


@njit(cache=True, nogil=True)
def enumerate_many(states, order, lo, hi, rules, with_features, count, out, features):
    """``enumerate_packed`` (and, ``with_features``, ``candidate_features``) of the packed games
    ``order[lo:hi]`` into their rows of ``out`` (``count[g]`` of them). It holds no GIL: a few
    threads, each with a share of the games, run on every core."""
    rules = _own(rules)
    ints, box = rules.ints, rules.box
    o = state_offsets(ints)
    slots = features.shape[1]
    no_rivals = np.zeros((0, 0))
    for g in order[lo:hi]:
        state = states[g].copy()  # this thread's own: views of the shared rows would share their count
        r = enumerate_packed(state, no_rivals, rules)
        k = len(r.value)
        count[g] = k
        out.actions[g, :k] = r.actions
        out.phases[g, :k] = r.phases
        out.n_actions[g, :k] = r.n_actions
        out.value[g, :k] = r.value
        out.points[g, :k] = r.points
        out.values[g, :k] = r.values
        out.used[g, :k] = r.used
        out.heights[g, :k] = r.heights
        out.notches[g, :k] = r.notches
        out.combo_kind[g, :k] = r.combo_kind
        out.combo_size[g, :k] = r.combo_size
        out.ends_game[g, :k] = r.ends_game
        out.terms[g, :k] = r.terms
        out.has_terms[g, :k] = r.has_terms
        if with_features:
            features[g] = candidate_features(
                r,
                state[o[6] : o[7]] != 0,
                state[o[7] : o[8]] != 0,
                state[o[11]] != 0,
                state[o[5] : o[6]] != 0,
                state[o[8] : o[9]] != 0,
                box,
                ints,
                slots,
                features.shape[2],
            )


@njit(cache=True)
def finish_turns(states, games, chosen, arrays, ints, over):
    """``SoloGame.play_afterstate`` on packed games, up to the next roll: game ``games[j]`` jumps to
    its candidate ``chosen[j]``, ticks its box, lines and penalty rows, and ``over[j]`` says
    whether the game ended."""
    values, used, heights, notches = arrays.values, arrays.used, arrays.heights, arrays.notches
    combo_kind, combo_size, has_terms = arrays.combo_kind, arrays.combo_size, arrays.has_terms
    o = state_offsets(ints)
    box = ints[N_INTS:]
    rows, cols = ints[I_ROWS], ints[I_COLS]
    for j in range(len(games)):
        g, c = games[j], chosen[j]
        s = states[g]
        for i in range(rows * cols):
            s[o[0] + i] = values[g, c, i]
            s[o[1] + i] = used[g, c, i]
        s[o[2] : o[3]] = heights[g, c]
        s[o[3] : o[4]] = notches[g, c]
        size = combo_size[g, c]
        if combo_kind[g, c] >= 0 and size == ints[I_BONUS]:
            s[o[11]] = 1
        elif combo_kind[g, c] >= 0:
            for b in range(len(box)):
                if box[b] == size:
                    s[(o[6] if combo_kind[g, c] == 0 else o[7]) + b] = 1
                    if s[o[6] + b] != 0 and s[o[7] + b] != 0 and s[o[8] + b] == 0:
                        s[o[5] + b] = 1
        grid = s[o[0] : o[1]].reshape((rows, cols))
        crossed = tick_lines_and_penalties(grid, ints[I_REG], s[o[9] : o[10]], s[o[10] : o[11]])
        over[j] = crossed or not has_terms[g, c] or s[o[3] : o[4]].min() >= ints[I_LAST]


@njit(cache=True)
def start_turns(states, games, dice, shape, ints):
    """Start the next turn of packed games: game ``games[j]`` rolled ``dice[j]`` (die order) and
    shape ``shape[j]`` (-1 for the star), at the turn's first decision."""
    o = state_offsets(ints)
    for j in range(len(games)):
        s = states[games[j]]
        ordered = np.sort(np.where(dice[j] == WILD, 1 << 30, dice[j]))  # stars last
        star = shape[j] < 0
        for k in range(len(ordered)):
            s[o[12] + k] = WILD if ordered[k] == 1 << 30 else ordered[k]
            star = star or ordered[k] == 1 << 30
        s[o[13]], s[o[14]], s[o[15]] = shape[j], star, SLIDE
        s[o[16] : o[18]] = -1  # no block dropping, no cells fixed


@njit(cache=True)
def score_rows(states, ints, parts, boxes):
    """``Sheet.score_breakdown`` of packed games, one row of ``parts`` each, and their ticked boxes."""
    o = state_offsets(ints)
    box = ints[N_INTS:]
    for g in range(states.shape[0]):
        s = states[g]
        identical = consecutive = ticked_identical = ticked_consecutive = 0
        for b in range(len(box)):
            identical += box[b] * (s[o[6] + b] != 0)
            consecutive += box[b] * (s[o[7] + b] != 0)
            ticked_identical += s[o[6] + b] != 0
            ticked_consecutive += s[o[7] + b] != 0
        bonus = s[o[11]] != 0
        lines = penalties = 0
        for r in range(o[9], o[10]):
            lines += s[r] != 0
        for r in range(o[10], o[11]):
            penalties += s[r] != 0
        parts[g, 0] = identical
        parts[g, 1] = consecutive
        parts[g, 2] = ints[I_BONUS] * bonus
        parts[g, 3] = ints[I_FULL_COL] * ((ticked_identical == len(box)) + (ticked_consecutive == len(box)))
        parts[g, 4] = ints[I_LINE_PTS] * lines
        parts[g, 5] = -ints[I_PEN_PTS] * penalties
        parts[g, 6] = parts[g, 0] + parts[g, 1] + parts[g, 2] + parts[g, 3] + parts[g, 4] + parts[g, 5]
        boxes[g] = ticked_identical + ticked_consecutive + bonus
