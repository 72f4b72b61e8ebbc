"""Expectimax over the next roll for an afterstate value: a candidate's points now plus the
expected best of the turn after it.

An afterstate value already prices the sheet a turn leaves; looking one roll further replaces
that guess for the best few candidates by what the next turn can actually make of them. For
each of a turn's ``top`` candidates by points plus value, the candidate is played up to the
next roll, and for every roll of a set (the exact distribution of ``engine.dice`` or a sample
of it, the same rolls for every candidate: common random numbers) the next turn's candidates
are enumerated and valued; the best points plus value of each roll, weighted by the roll's
probability, is what the candidate's sheet is worth. A candidate that ends the game is worth
its points. All (candidate, roll) children of all games are packed rows, enumerated and valued
in a few large compiled calls (``TurnPlanner.candidate_arrays``), in chunks that bound memory.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from numberdrop_env.engine.dice import Rolls
from numberdrop_env.engine.rules import Rules
from numberdrop_env.planner.packing import TurnArrays
from numberdrop_env.planner.turns import TurnPlanner

CHUNK = 512
"""Children enumerated per call at most: about 100 MB of candidate arrays at 128 slots."""


class CandidateValue(Protocol):
    """An afterstate value of every candidate of packed games (``NTupleValue``)."""

    def candidate_values(
        self, states: np.ndarray, rows: np.ndarray, count: np.ndarray, arrays: TurnArrays
    ) -> tuple[np.ndarray, ...]: ...


def turn_scores(count: np.ndarray, arrays: TurnArrays, values: np.ndarray) -> np.ndarray:
    """Each candidate's points plus value, ``-inf`` on padding: what a one-ply agent maximises."""
    slots = arrays.points.shape[1]
    live = np.arange(slots)[None, :] < np.asarray(count)[:, None]
    return np.where(live, arrays.points + values, -np.inf)


def best_of_turns(
    planner: TurnPlanner, value: CandidateValue, states: np.ndarray, rules: Rules, limit: int
) -> np.ndarray:
    """The best points plus value of each packed game's turn (0 where a turn has no candidate)."""
    count, arrays, _ = planner.candidate_arrays(states, rules, limit)
    values = value.candidate_values(states, np.arange(len(states)), count, arrays)[0]
    best = turn_scores(count, arrays, values).max(axis=1, initial=-np.inf)
    return np.where(count > 0, best, 0.0)


def expectimax(
    planner: TurnPlanner,
    value: CandidateValue,
    states: np.ndarray,
    rules: Rules,
    count: np.ndarray,
    arrays: TurnArrays,
    values: np.ndarray,
    top: int,
    rolls: Rolls,
    limit: int,
    chunk: int = CHUNK,
) -> np.ndarray:
    """The expectimax score of the ``top`` best candidates of each packed game by points plus
    value (``states`` at a turn's first decision; ``count``, ``arrays`` their candidates and
    ``values`` the value of each, as ``candidate_arrays`` and ``candidate_values`` give them):
    points plus the ``rolls``-weighted mean of the next turn's best points plus value among its
    ``limit`` best candidates (points alone where the candidate ends the game); ``-inf`` for the
    candidates not searched and padding. Ties keep the one-ply order."""
    _check(top, limit, chunk, rolls)
    score = turn_scores(count, arrays, values)
    games, slots = score.shape
    ranked = np.argsort(-score, axis=1, kind="stable")[:, : min(top, slots)]
    out = np.full((games, slots), -np.inf)
    parents, chosen, after = [], [], []
    for k in range(ranked.shape[1]):  # the k-th best candidate of every game, played up to the next roll
        games_k = np.flatnonzero(k < count)
        if not len(games_k):
            break
        rows = states.copy()
        over = planner.finish_turns(rows, rules, games_k, ranked[games_k, k], arrays)
        g_end, c_end = games_k[over], ranked[games_k[over], k]
        out[g_end, c_end] = arrays.points[g_end, c_end]
        parents.append(games_k[~over])
        chosen.append(ranked[games_k[~over], k])
        after.append(rows[games_k[~over]])
    if not parents or not sum(len(p) for p in parents):
        return out
    g, c, rows = np.concatenate(parents), np.concatenate(chosen), np.concatenate(after)
    nexts = next_turn_values(planner, value, rows, rules, rolls, limit, chunk)
    out[g, c] = arrays.points[g, c] + nexts @ rolls.probabilities
    return out


def next_turn_values(
    planner: TurnPlanner,
    value: CandidateValue,
    afterstates: np.ndarray,
    rules: Rules,
    rolls: Rolls,
    limit: int,
    chunk: int = CHUNK,
) -> np.ndarray:
    """(afterstates, rolls): the best points plus value of the turn each packed afterstate (a
    row that ``finish_turns`` left, the game going on) starts with each roll."""
    n_rolls = len(rolls.probabilities)
    total = len(afterstates) * n_rolls
    best = np.empty(total)
    for lo in range(0, total, chunk):
        hi = min(total, lo + chunk)
        children = afterstates[np.arange(lo, hi) // n_rolls]  # a copy: each child its own row
        children[:, -1] = limit  # the packed rows' limit field: how many candidates to keep
        planner.start_turns(children, rules, np.arange(hi - lo), rolls.faces[np.arange(lo, hi) % n_rolls])
        best[lo:hi] = best_of_turns(planner, value, children, rules, limit)
    return best.reshape(len(afterstates), n_rolls)


def _check(top: int, limit: int, chunk: int, rolls: Rolls) -> None:
    for name, x in (("top", top), ("limit", limit), ("chunk", chunk)):
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1:
            raise ValueError(f"{name} must be a positive int, got {x!r}")
    if not isinstance(rolls, Rolls) or len(rolls.probabilities) == 0 or len(rolls.faces) != len(rolls.probabilities):
        raise TypeError("rolls must be a non-empty engine.dice.Rolls (roll_distribution or sample_rolls)")
