"""Solo games played by a table value, packed, and the afterstate TD that learns it: each turn
every game plays the candidate of the most points plus value (with ``value=None`` the greedy's
games exactly, so scores are paired), or with probability ``epsilon`` a random one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import numpy as np

from numberdrop_env.engine.rules import DEFAULT_RULES, Rules
from numberdrop_env.engine.sheet import SCORE_PARTS
from numberdrop_env.engine.solo import SoloGame, roll_faces
from numberdrop_env.planner.turns import TurnPlanner

from .ntuple import NTupleValue, lambda_targets, td_update

MAX_TURNS = 24
"""Turns of a game at most (each turn slides at least one of the board's 20 notches)."""


@dataclass(frozen=True)
class Learning:
    """How the value learns from the games it plays: TD(lambda) steps of ``alpha``."""

    alpha: float = 0.1
    lam: float = 0.0
    epsilon: float = 0.0
    coherence: bool = False
    """Temporal coherence: each weight's step scaled by how consistent its errors have been."""

    def __post_init__(self) -> None:
        if not 0.0 < self.alpha <= 1.0 or not 0.0 <= self.lam <= 1.0 or not 0.0 <= self.epsilon < 1.0:
            raise ValueError(f"need 0 < alpha <= 1, 0 <= lam <= 1 and 0 <= epsilon < 1, got {self}")


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
    """A value learning by ``Learning`` from the games it plays, with what its steps
    remember between games (temporal coherence's sums of errors)."""

    def __init__(self, value: NTupleValue, learning: Learning = Learning()) -> None:
        self.value, self.learning = value, learning
        size = len(value.weights) if learning.coherence else 0
        self.errors, self.sizes = np.zeros(size), np.zeros(size)

    def learn(self, game: Trajectory) -> float:
        """The TD(lambda) update of one finished game's afterstates; returns the squared errors."""
        x = self.learning
        targets = lambda_targets(game.rewards, game.played, game.best, game.drawn, x.lam)
        w = self.value.weights
        return td_update(w, game.lookups, game.n_lookups, game.base, targets, x.alpha, self.errors, self.sizes)


@dataclass
class Played:
    """What a batch of games left: final scores and their parts in seed order, turns, and the
    learning's squared TD errors."""

    seeds: np.ndarray
    scores: np.ndarray
    parts: np.ndarray  # (games, len(SCORE_PARTS))
    turns: int
    sse: float
    games: list[Trajectory] | None = None
    """With ``record=True``: each game's afterstates, in seed order (a learner elsewhere takes
    them in that order, so where the games were played changes nothing)."""


def _trajectories(slots: int, width: int) -> Trajectory:
    """Each slot's afterstates so far in its game (a ``Trajectory`` with a leading slot axis)."""
    z = partial(np.zeros, (slots, MAX_TURNS))
    return Trajectory(
        z(), z(), z(), z(dtype=bool), np.zeros((slots, MAX_TURNS, width), np.int64), z(dtype=np.int64), z()
    )


def play(
    value: NTupleValue | None,
    seeds: Iterable[int],
    learner: Learner | None = None,
    limit: int = 64,
    parallel: int = 64,
    rng_seed: int | Sequence[int] = 0,
    rules: Rules = DEFAULT_RULES,
    planner: TurnPlanner | None = None,
    record: bool = False,
    epsilon: float | None = None,
) -> Played:
    """Play a game for each of ``seeds``, ``parallel`` at once, each turn's candidate chosen
    among the planner's ``limit`` best by points plus ``value`` (by the planner's value alone
    when ``value`` is None); with a ``learner`` of that value, the value learns after each
    game. ``record`` keeps each game's afterstates (``Played.games``); ``epsilon`` (default: the
    learner's, else 0) is the share of turns played by a drawn candidate, drawn from
    ``rng_seed``."""
    if learner is not None and (value is None or learner.value is not value):
        raise ValueError("a learner must learn the value that plays")
    if (record or epsilon) and value is None:
        raise ValueError("recording and exploring need a value")
    seeds = [int(s) for s in seeds]
    planner = planner or TurnPlanner()
    rng = np.random.default_rng(rng_seed)
    if epsilon is None:
        epsilon = learner.learning.epsilon if learner is not None else 0.0
    keeps = learner is not None or record
    games: list[Trajectory | None] = [None] * len(seeds)
    slots = max(1, min(parallel, len(seeds)))
    width = value.layout.max_lookups if value is not None else 1
    traj = _trajectories(slots, width)
    states = np.zeros((slots, planner.state_width(rules)), np.int64)
    faces = np.zeros((slots, MAX_TURNS, len(rules.number_dice) + 1), np.int64)
    turn = np.zeros(slots, np.int64)
    pending = iter(range(len(seeds)))
    scores = np.zeros(len(seeds), np.int64)
    parts = np.zeros((len(seeds), len(SCORE_PARTS)), np.int64)
    index_of = np.full(slots, -1, np.int64)
    turns, sse = 0, 0.0

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
            if keeps:
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
                scores[i], parts[i] = row[-1], row
                if keeps:
                    finished = Trajectory(*(f[slot, : turn[slot]].copy() for f in traj))
                    if learner is not None:
                        sse += learner.learn(finished)
                    if record:
                        games[i] = finished
                start(slot)
    return Played(np.array(seeds), scores, parts, turns, sse, games if record else None)  # type: ignore[arg-type]
