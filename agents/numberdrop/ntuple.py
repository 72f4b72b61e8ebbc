"""NTuplePolicy: plays the turn candidate of the most points plus an n-tuple value of its sheet
(``agents.values.ntuple``), self-play's choice game for game; ``rolls`` turns on the expectimax
over the next roll (``lookahead.expectimax``). ``docs/agents.md`` describes both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gamekit.checks import positive_int
from numberdrop_env import startup
from numberdrop_env.engine.dice import Rolls, roll_distribution, sample_rolls
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.turns import TurnCandidates

from ..base import MODELS
from ..values.ntuple import NTupleValue
from . import greedy
from .greedy import GreedyPolicy, PlanFollower
from .lookahead import ALL_ROLLS, check_refine, expected, refined, top_k, turn_scores

DEFAULT_VALUE = MODELS / "ntuple.npz"
QUICK_START_STEPS = (*greedy.QUICK_START_STEPS, "n-tuple value")
"""The greedy's background compile (``numberdrop_env.startup``) and the value's kernels."""
COMPILED = ("planner.batch.enumerate_many", "planner.batch.turn_costs")
"""The dear compiled functions this agent's turns call (``numba_cache`` names): once the record
lists them (a warm-up, a background compile or a trainer's workers), no quick start."""


class NTuplePolicy(GreedyPolicy):
    """Argmax of points plus an n-tuple afterstate value, optionally over a next-roll expectimax;
    the starting number and foreign turns as the greedy plays them."""

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
        refine: int = 0,
    ) -> None:
        for name, count in (("limit", limit), ("top", top), ("inner_limit", inner_limit)):
            positive_int(count, name)
        if isinstance(rolls, bool) or not isinstance(rolls, int) or rolls < ALL_ROLLS:
            raise ValueError(f"rolls must be 0 (no search), N > 0 sampled or -1 (every roll), got {rolls!r}")
        if check_refine(refine) and rolls == ALL_ROLLS:
            raise ValueError("refine values the best again on new rolls: it needs sampled rolls, not rolls=-1")
        self.path = Path(path) if path is not None else DEFAULT_VALUE
        if not self.path.is_file():
            raise FileNotFoundError(
                f"n-tuple value {str(self.path)!r} not found (save one with NTupleValue.save, or pass path=)"
            )
        self.value = NTupleValue.load(self.path)
        super().__init__(width, block_width)
        self.limit, self.top, self.rolls, self.inner_limit, self.refine = limit, top, rolls, inner_limit, int(refine)
        self.seed = int(seed)
        self.rng = np.random.default_rng([self.seed, 0])

    @property
    def searches(self) -> bool:
        return self.rolls != 0 and self.top > 1

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng([self.seed, int(seed)])
        self._follow = PlanFollower()
        if not self.searches:  # the search plans many games at once: it waits for the compiled planner
            startup.begin(self.name, QUICK_START_STEPS, COMPILED)

    def choose(self, game: SoloGame) -> tuple[TurnCandidates, int]:
        """The turn's candidates and the index of the one to play."""
        states, arrays, score, offered = self._valued(game)
        if self.searches and len(offered) > 1:
            searched = top_k(score, min(self.top, len(offered)))

            def values_of(i: np.ndarray) -> np.ndarray:
                plans, rolls = searched[None, i], self.turn_rolls(game)
                return expected(self.planner, self.value, states, game.rules, arrays, plans, rolls, self.inner_limit)[0]

            score = np.full(score.shape, -np.inf)
            score[searched] = refined(values_of, len(searched), self.refine)
        return offered, int(np.argmax(score))

    def ranked(self, game: SoloGame, top: int) -> tuple[list, np.ndarray]:
        """The turn's ``top`` candidates by points plus value, best first, with those numbers
        (what an analysis shows; the search, when on, re-ranks the best of them)."""
        _, _, score, offered = self._valued(game)
        order = top_k(score, min(top, len(offered)))
        return [offered[int(i)] for i in order], score[order]

    def _valued(self, game: SoloGame) -> tuple[np.ndarray, Any, np.ndarray, TurnCandidates]:
        """The packed game, its candidates' arrays, each one's points plus value, and the candidates."""
        if getattr(game, "rivals", None) is not None:
            raise ValueError("the ntuple agent plays solo games: its value learned from solo games, without rivals")
        startup.poll()
        states, count, arrays = self.planner.game_arrays(game, self.limit)
        values = self.value.candidate_values(states, np.arange(1), count, arrays)[0]
        offered = TurnCandidates.of_batch(arrays, 0, int(count[0]))
        return states, arrays, turn_scores(count, arrays, values)[0], offered

    def turn_rolls(self, game: SoloGame) -> Rolls:
        """A round of rolls of the next turn: all of them, or a fresh sample."""
        if self.rolls == ALL_ROLLS:
            return roll_distribution(game.rules)
        return sample_rolls(self.rng, self.rolls, game.rules)
