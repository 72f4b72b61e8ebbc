"""Solo games played by a table value, packed, and the afterstate TD that learns it.

Many games are played at once as packed rows (``TurnPlanner``'s
packed games): each turn the planner enumerates every game's candidates on every core, the
value scores them all in one compiled call, each game plays the candidate of the most points
now plus value (or, with probability ``epsilon``, one drawn at random), and the next roll is
the game's own. A game ``seed`` is the game of ``SoloGame(seed=seed)`` with the starting
number in the first column, as the greedy agent plays it: with no value (``value=None``) the
loop plays the greedy's games exactly, so scores on the same seeds are paired.

When a game ends and a learner learns, every afterstate it played moves towards its
lambda-return (``lambda_targets``, ``td_update``). With ``record=True`` the games keep their
afterstates instead (``Trajectory``, in seed order) for a learner elsewhere: the trainer plays
rounds of games with fixed weights, on this process or on Ray tasks, and its learner takes
them in seed order, so where the games were played changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
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
    cpu_seconds: float
    wall_seconds: float
    games: list[Trajectory] | None = None
    """With ``record=True``: each game's afterstates, in seed order."""

    def part(self, name: str) -> np.ndarray:
        return self.parts[:, SCORE_PARTS.index(name)]


class _Trajectories:
    """Each slot's afterstates so far in its game: lookups, base, points and values at play."""

    def __init__(self, slots: int, width: int) -> None:
        self.lookups = np.zeros((slots, MAX_TURNS, width), np.int64)
        self.n = np.zeros((slots, MAX_TURNS), np.int64)
        self.base = np.zeros((slots, MAX_TURNS))
        self.reward = np.zeros((slots, MAX_TURNS))
        self.played = np.zeros((slots, MAX_TURNS))
        self.best = np.zeros((slots, MAX_TURNS))
        self.drawn = np.zeros((slots, MAX_TURNS), bool)

    def game(self, slot: int, length: int) -> Trajectory:
        """The afterstates of the game that slot ``slot`` just finished, ``length`` turns long (copies)."""
        t = slice(0, length)
        return Trajectory(
            self.reward[slot, t].copy(),
            self.played[slot, t].copy(),
            self.best[slot, t].copy(),
            self.drawn[slot, t].copy(),
            self.lookups[slot, t].copy(),
            self.n[slot, t].copy(),
            self.base[slot, t].copy(),
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
    on_game: Callable[[int, int], None] | None = None,
    record: bool = False,
    epsilon: float | None = None,
) -> Played:
    """Play a game for each of ``seeds``, ``parallel`` at once, each turn's candidate chosen
    among the planner's ``limit`` best by points plus ``value`` (by the planner's value alone
    when ``value`` is None); with a ``learner`` of that value, the value learns after each
    game. ``record`` keeps each game's afterstates (``Played.games``); ``epsilon`` (default: the
    learner's, else 0) is the share of turns played by a drawn candidate, drawn from
    ``rng_seed``. ``on_game(seed, score)`` is called as each game ends."""
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
    traj = _Trajectories(slots, width)
    states = np.zeros((slots, planner.state_width(rules)), np.int64)
    faces = np.zeros((slots, MAX_TURNS, len(rules.number_dice) + 1), np.int64)
    turn = np.zeros(slots, np.int64)
    seed_of = np.full(slots, -1, np.int64)
    pending = iter(range(len(seeds)))
    scores = np.zeros(len(seeds), np.int64)
    parts = np.zeros((len(seeds), len(SCORE_PARTS)), np.int64)
    index_of = np.full(slots, -1, np.int64)
    turns, sse = 0, 0.0
    cpu, wall = time.process_time(), time.perf_counter()

    def start(slot: int) -> bool:
        i = next(pending, None)
        if i is None:
            index_of[slot] = -1
            return False
        game = SoloGame(rules, seed=seeds[i])
        game.step(game.layout.start)  # the starting number in the first column, as the greedy writes it
        states[slot] = planner.pack_batch([game], limit)[0]
        faces[slot] = roll_faces(game.rng, rules, MAX_TURNS)
        index_of[slot], seed_of[slot], turn[slot] = i, seeds[i], 0
        return True

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
                t = turn[live]
                traj.lookups[live, t] = lookups[rows, chosen]
                traj.n[live, t] = n_lookups[rows, chosen]
                traj.base[live, t] = base[rows, chosen]
                traj.reward[live, t] = arrays.points[rows, chosen]
                traj.played[live, t] = v[rows, chosen]
                traj.best[live, t] = best
                traj.drawn[live, t] = drawn
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
                    finished = traj.game(slot, int(turn[slot]))
                    if learner is not None:
                        sse += learner.learn(finished)
                    if record:
                        games[i] = finished
                if on_game is not None:
                    on_game(int(seed_of[slot]), int(row[-1]))
                start(slot)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return Played(np.array(seeds), scores, parts, turns, sse, cpu, wall, games if record else None)  # type: ignore[arg-type]
