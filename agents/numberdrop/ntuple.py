"""NTuplePolicy: plays the turn candidate of the most points plus a table value of its sheet.

The value is an ``agents.values.ntuple.NTupleValue`` saved as ``.npz`` (``path``; learned by
self-play, ``agents.values.selfplay``). At the first decision of a turn the game is packed,
the planner lists its ``limit`` best candidates, the value prices each one's sheet in one
compiled call, and the agent plays the candidate of the most points plus value, action by
action (``PlanFollower``), exactly the choice self-play makes: on the same seeds
``numberdrop-evaluate`` scores equal ``selfplay.play(value, seeds, limit=limit)``.

``rolls`` (0: off) adds expectimax over the next roll (``agents.values.expectimax``): the
``top`` best candidates are re-scored by their points plus the next turn's expected best
points plus value, over ``rolls`` rolls sampled from the exact distribution each turn (the
same for every candidate; ``-1``: every roll, weighted exactly), the next turn looking at its
``inner_limit`` best candidates. Deterministic for a game seed and ``seed``. Solo games only
(a seat at a table is refused).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from numberdrop_env.engine.dice import Rolls, roll_distribution, sample_rolls
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.turns import PLAN_PHASES, TurnCandidates, TurnPlanner

from ..base import MODELS
from ..values.expectimax import expectimax, turn_scores
from ..values.ntuple import NTupleValue
from .greedy import GreedyPolicy, PlanFollower

DEFAULT_VALUE = MODELS / "ntuple.npz"
ALL_ROLLS = -1
"""``rolls`` that searches every distinct roll, weighted by its probability."""


class NTuplePolicy:
    """Argmax of points plus an n-tuple afterstate value, optionally over a next-roll expectimax."""

    name = "ntuple"

    def __init__(
        self,
        path: str | Path | None = None,
        limit: int = 128,
        width: int = 12,
        block_width: int = 3,
        top: int = 8,
        rolls: int = 0,
        inner_limit: int = 32,
        seed: int = 0,
    ) -> None:
        for name, x in (("limit", limit), ("top", top), ("inner_limit", inner_limit)):
            if isinstance(x, bool) or not isinstance(x, int) or x < 1:
                raise ValueError(f"{name} must be a positive int, got {x!r}")
        if isinstance(rolls, bool) or not isinstance(rolls, int) or rolls < ALL_ROLLS:
            raise ValueError(f"rolls must be 0 (no search), N > 0 sampled or -1 (every roll), got {rolls!r}")
        self.path = Path(path) if path is not None else DEFAULT_VALUE
        if not self.path.is_file():
            raise FileNotFoundError(
                f"n-tuple value {str(self.path)!r} not found (save one with NTupleValue.save, or pass path=)"
            )
        self.value = NTupleValue.load(self.path)
        self.planner = TurnPlanner(width=width, block_width=block_width)
        self.limit, self.top, self.rolls, self.inner_limit = limit, top, rolls, inner_limit
        self.seed = int(seed)
        self.rng = np.random.default_rng([self.seed, 0])
        self._greedy = GreedyPolicy(width, block_width)
        self._follow = PlanFollower()

    @property
    def searches(self) -> bool:
        return self.rolls != 0 and self.top > 1

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng([self.seed, int(seed)])
        self._follow = PlanFollower()

    def act(self, game: SoloGame, mask: np.ndarray) -> int:
        planned = self._follow.next(game, mask)
        if planned is not None:
            return planned
        if game.phase in PLAN_PHASES:
            offered, i = self.choose(game)
            if offered:
                return self._follow.begin(offered[i], game)
        return self._greedy.act(game, mask)  # the starting number (first column) and foreign turns

    def play_turn(self, game: SoloGame) -> int:
        """The chosen candidate's afterstate in one move (``agents.base.TurnPlayer``)."""
        if game.phase not in PLAN_PHASES:
            return 0
        offered, i = self.choose(game)
        if not offered:
            return 0
        decisions = int(offered.arrays.n_actions[i])
        offered.play(i, game)
        return decisions

    def choose(self, game: SoloGame) -> tuple[TurnCandidates, int]:
        """The turn's candidates and the index of the one to play."""
        states, count, arrays, values = self._valued(game)
        score = turn_scores(count, arrays, values)
        if self.searches and count[0] > 1:
            rolls = self.turn_rolls(game)
            score = expectimax(
                self.planner, self.value, states, game.rules, count, arrays, values, self.top, rolls, self.inner_limit
            )
        return TurnCandidates.of_batch(arrays, 0, int(count[0])), int(np.argmax(score[0]))

    def ranked(self, game: SoloGame, top: int) -> tuple[list, np.ndarray]:
        """The turn's ``top`` candidates by points plus value, best first, with those numbers
        (what an analysis shows; the search, when on, re-ranks the best of them)."""
        _, count, arrays, values = self._valued(game)
        score = turn_scores(count, arrays, values)[0]
        order = np.argsort(-score, kind="stable")[: min(top, int(count[0]))]
        offered = TurnCandidates.of_batch(arrays, 0, int(count[0]))
        return [offered[int(i)] for i in order], score[order]

    def _valued(self, game: SoloGame) -> tuple[np.ndarray, np.ndarray, Any, np.ndarray]:
        """The packed game, its candidates and the value of each."""
        if getattr(game, "rivals", None) is not None:
            raise ValueError("the ntuple agent plays solo games: its value learned from solo games, without rivals")
        states = self.planner.pack_batch([game], self.limit)
        count, arrays, _ = self.planner.candidate_arrays(states, game.rules, self.limit)
        values = self.value.candidate_values(states, np.arange(1), count, arrays)[0]
        return states, count, arrays, values

    def turn_rolls(self, game: SoloGame) -> Rolls:
        """This turn's rolls of the next: all of them, or a fresh sample."""
        if self.rolls == ALL_ROLLS:
            return roll_distribution(game.rules)
        return sample_rolls(self.rng, self.rolls, game.rules)
