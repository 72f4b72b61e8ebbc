"""Solo games played by a table value, packed, and the afterstate TD that learns it: each turn
every game plays the candidate of the most points plus value (with ``value=None`` the greedy's
games exactly, so scores are paired), or with probability ``epsilon`` a random one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import NamedTuple

import numpy as np

from numberdrop_env.engine.rules import DEFAULT_RULES, Rules
from numberdrop_env.engine.solo import SoloGame, roll_faces
from numberdrop_env.planner.turns import TurnPlanner

from .ntuple import NTupleValue, lambda_targets, td_update

MAX_TURNS = 24
"""Turns of a game at most (each turn slides at least one of the board's 20 notches)."""


class Trajectory(NamedTuple):
    """One game's afterstates in turn order: what each scored, its value and the best value of
    its turn at play, whether it was drawn at random, and its lookups and base."""

    rewards: np.ndarray
    played: np.ndarray
    best: np.ndarray
    drawn: np.ndarray
    lookups: np.ndarray
    n_lookups: np.ndarray
    base: np.ndarray


class Learner:
    """A value learning from its games by TD(lambda) steps of ``alpha``; with ``coherence``
    (temporal coherence) each weight's step is scaled by how consistent its errors have been,
    their sums kept from game to game."""

    def __init__(self, value: NTupleValue, alpha: float = 0.1, lam: float = 0.0, coherence: bool = False) -> None:
        self.value, self.alpha, self.lam = value, alpha, lam
        size = len(value.weights) if coherence else 0
        self.errors, self.sizes = np.zeros(size), np.zeros(size)

    def learn(self, game: Trajectory) -> float:
        """The TD(lambda) update of one finished game's afterstates; returns the squared errors."""
        targets = lambda_targets(game.rewards, game.played, game.best, game.drawn, self.lam)
        w = self.value.weights
        return td_update(w, game.lookups, game.n_lookups, game.base, targets, self.alpha, self.errors, self.sizes)


class Played(NamedTuple):
    """What a batch of games left: final scores in seed order, the turns played and, with
    ``record=True``, each game's afterstates in seed order (a learner takes them in that order,
    so where the games were played changes nothing)."""

    scores: np.ndarray
    turns: int
    games: list[Trajectory] | None


def play(
    value: NTupleValue | None,
    seeds: Iterable[int],
    limit: int = 64,
    parallel: int = 64,
    rng_seed: int | Sequence[int] = 0,
    rules: Rules = DEFAULT_RULES,
    planner: TurnPlanner | None = None,
    record: bool = False,
    epsilon: float = 0.0,
) -> Played:
    """Play a game for each of ``seeds``, ``parallel`` at once, each turn's candidate chosen
    among the planner's ``limit`` best by points plus ``value`` (by the planner's value alone
    when ``value`` is None). ``record`` keeps each game's afterstates; ``epsilon`` is the share
    of turns played by a candidate drawn from ``rng_seed``."""
    if (record or epsilon) and value is None:
        raise ValueError("recording and exploring need a value")
    seeds = [int(s) for s in seeds]
    planner = planner or TurnPlanner()
    rng = np.random.default_rng(rng_seed)
    games: list[Trajectory | None] = [None] * len(seeds)
    slots = max(1, min(parallel, len(seeds)))
    width, z = value.layout.max_lookups if value is not None else 1, partial(np.zeros, (slots, MAX_TURNS))
    lookup_rows = np.zeros((slots, MAX_TURNS, width), np.int64)
    traj = Trajectory(z(), z(), z(), z(dtype=bool), lookup_rows, z(dtype=np.int64), z())  # each slot's game so far
    states = np.zeros((slots, planner.state_width(rules)), np.int64)
    faces = np.zeros((slots, MAX_TURNS, len(rules.number_dice) + 1), np.int64)
    turn = np.zeros(slots, np.int64)
    pending = iter(range(len(seeds)))
    scores = np.zeros(len(seeds), np.int64)
    index_of = np.full(slots, -1, np.int64)
    turns = 0

    def start(slot: int) -> None:
        i = next(pending, None)
        if i is None:
            index_of[slot] = -1
            return
        game = SoloGame(rules, seed=seeds[i])
        game.step(game.layout.start)  # the starting number in the first column, as the greedy writes it
        states[slot] = planner.pack_batch([game], limit)[0]
        faces[slot] = roll_faces(game.rng, rules, MAX_TURNS)
        index_of[slot], turn[slot] = i, 0

    for slot in range(slots):
        start(slot)
    while (index_of >= 0).any():
        live = np.flatnonzero(index_of >= 0)
        sub = states[live]
        count, arrays, _ = planner.candidate_arrays(sub, rules, limit)
        n = len(live)
        rows = np.arange(n)
        if value is None:
            chosen = np.zeros(n, np.int64)
        else:
            v, base, lookups, n_lookups = value.candidate_values(sub, rows, count, arrays)
            score = np.where(np.arange(limit)[None, :] < count[:, None], arrays.points + v, -np.inf)
            chosen = score.argmax(axis=1)
            best = score[rows, chosen]
            drawn = np.zeros(n, bool)
            if epsilon:
                drawn = rng.random(n) < epsilon
                chosen = np.where(drawn, (rng.random(n) * count).astype(np.int64), chosen)
                drawn &= chosen != score.argmax(axis=1)
            if record:
                picked = [a[rows, chosen] for a in (arrays.points, v, lookups, n_lookups, base)]
                for field, got in zip(traj, (*picked[:2], best, drawn, *picked[2:])):
                    field[live, turn[live]] = got
        over = planner.finish_turns(sub, rules, rows, chosen, arrays)
        turn[live] += 1
        turns += n
        going = np.flatnonzero(~over)
        planner.start_turns(sub, rules, going, faces[live[going], turn[live[going]] - 1])
        states[live] = sub
        ended = live[over]
        if len(ended):
            p, _ = planner.packed_scores(states[ended], rules)
            for slot, row in zip(ended.tolist(), p):
                i = index_of[slot]
                scores[i] = row[-1]
                if record:
                    games[i] = Trajectory(*(f[slot, : turn[slot]].copy() for f in traj))
                start(slot)
    return Played(scores, turns, games if record else None)  # type: ignore[arg-type]
