"""GreedyPolicy: plays the turn candidate of the best planner value action by action, planning again
whenever the game is not where the plan expected."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np

from numberdrop_env import startup
from numberdrop_env.engine.actions import Phase
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.heuristic import DEFAULT_WEIGHTS, Weights
from numberdrop_env.planner.turns import PLAN_PHASES, Candidate, TurnCandidates, TurnPlanner

QUICK_START_STEPS = ("NumberDrop-v0 game", "NumberDropTurn-v0 game")
"""What a background compile runs while a first game over an empty numba cache plays the planner's
specification (``numberdrop_env.startup``): the rules' masks and the turn engine."""
COMPILED = ("planner.enumeration.enumerate_packed",)
"""The dear compiled function its turns call: once numba's record lists it, no quick start."""


class PlanFollower:
    """Plays a planned turn action by action while the game goes as the plan expected."""

    def __init__(self) -> None:
        self.plan: Candidate | None = None
        self.turn = -1
        self.step = 0

    def begin(self, plan: Candidate, game: SoloGame) -> int:
        self.plan, self.turn, self.step = plan, game.turn, 1
        return plan.actions[0]

    def next(self, game: SoloGame, mask: np.ndarray) -> int | None:
        """The plan's next action, or None (and the plan dropped) when the game left it."""
        plan = self.plan
        if plan is not None and self.turn == game.turn and self.step < len(plan.actions):
            action = plan.actions[self.step]
            if plan.phases[self.step] is game.phase and mask[action]:
                self.step += 1
                return action
        self.plan = None
        return None


class PlanningPolicy:
    """Chooses a whole turn at its first decision (``choose``: the offered candidates and the index
    of the one to play) and plays it action by action while the game goes as planned; the other
    decisions are ``fallback``'s."""

    plan_phases: ClassVar[tuple[Phase, ...]] = PLAN_PHASES
    _follow: PlanFollower

    def choose(self, game: SoloGame) -> tuple[Sequence[Candidate], int]:
        raise NotImplementedError

    def fallback(self, game: SoloGame, mask: np.ndarray) -> int:
        raise NotImplementedError

    def act(self, game: SoloGame, mask: np.ndarray) -> int:
        planned = self._follow.next(game, mask)
        if planned is not None:
            return planned
        if game.phase in self.plan_phases:
            offered, i = self.choose(game)
            if len(offered):
                return self._follow.begin(offered[i], game)
        return self.fallback(game, mask)


class GreedyPolicy(PlanningPolicy):
    """Argmax of the planner value over the turn's candidates."""

    name = "greedy"

    def __init__(
        self,
        width: int = 12,
        block_width: int = 3,
        start_column: int = 0,
        weights: dict[str, Any] | Weights | None = None,
    ) -> None:
        if weights is not None and not isinstance(weights, Weights):
            weights = replace(DEFAULT_WEIGHTS, **dict(weights))
        self.planner = TurnPlanner(weights or DEFAULT_WEIGHTS, width, block_width)
        self.start_column = int(start_column)
        self._follow = PlanFollower()

    def reset(self, seed: int) -> None:  # noqa: ARG002 - deterministic, no rng needed
        self._follow = PlanFollower()
        startup.begin(self.name, QUICK_START_STEPS, COMPILED)  # compiled code not cached: start at once

    def choose(self, game: SoloGame) -> tuple[TurnCandidates, int]:
        startup.poll()
        return self.planner.candidates(game, limit=1), 0

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

    def fallback(self, game: SoloGame, mask: np.ndarray) -> int:
        """Decisions in states the planner did not set up: the starting number in ``start_column``
        (or the first legal one), and a turn begun by someone else."""
        L = game.layout
        if game.phase is Phase.START:
            return L.start + (self.start_column if mask[L.start + self.start_column] else int(np.flatnonzero(mask)[0]))
        if game.phase is Phase.WILD:
            v = self.planner.weights.wild_default
            return L.wild + v if mask[L.wild + v] else int(np.flatnonzero(mask)[0])
        if game.phase is Phase.COMBO:
            if mask[L.confirm]:
                return L.confirm
            if not game.selection:
                return L.pass_
            sel = np.flatnonzero(mask[L.select : L.confirm])
            return L.select + int(sel[0]) if len(sel) else L.pass_
        return int(np.flatnonzero(mask)[0])
