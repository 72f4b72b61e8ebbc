"""SearchPolicy: expectimax-lite over the next roll on top of the greedy turn planner.

At the first decision of each turn the greedy planner proposes its ``width`` best plans
for the whole turn. Each plan is played on a cloned game up to its last action; the
clone's generator is then replaced by one drawn from the policy's own rng (so the
search never sees the real future dice) and the last action ends the turn, rolling a
sampled next turn. The value of a plan is the points it scores now plus the mean, over
``samples`` sampled rolls, of the greedy's best value for the next turn (its points plus
the heuristic of the sheet it leaves). The same sampled rolls are used for every plan
(common random numbers), so plans are compared on equal luck. A plan that ends the game
is worth its points only. The best plan is then played like the greedy plays its own,
re-planning if the game is not in the expected state.

Budget (constructor arguments, all settable from a command line):
``width`` plans per turn (4), ``samples`` next rolls per plan (8), ``inner_width``
stage-2 width of the greedy when it values the next turn (8). Cost grows as
width x samples greedy turn plans per turn: about 5.5 s per game on one core at the
defaults (mean 45.8 on seeds 0..99; on seeds 0..49, 46.7 against 44.5 for 3 / 6 / 12
at 3.3 s). More plans and samples pay more than a wider inner greedy. ``rollout=True`` replaces the one-turn
look-ahead by Monte Carlo rollouts: after each sampled roll the inner greedy plays the
cloned game to its end (with the sampled generator) and the plan is valued by the mean
final score; much slower (about remaining-turns times the cost).

Deterministic per seed: the only randomness is ``numpy.random.default_rng(seed)`` set by
``reset(seed)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numberdrop_env.actions import Phase
from numberdrop_env.solo import SoloGame

from numberdrop_env.turns import PLAN_PHASES, Candidate

from .greedy import GreedyPolicy, PlanFollower


class SearchPolicy:
    """Greedy's top plans re-ranked by the expected greedy value of the next turn."""

    name = "search"

    def __init__(self, width: int = 4, samples: int = 8, inner_width: int = 8, rollout: bool = False,
                 weights: dict[str, Any] | None = None) -> None:
        self.width = int(width)
        self.samples = int(samples)
        self.rollout = bool(rollout)
        self.greedy = GreedyPolicy(weights=weights)
        self.inner = GreedyPolicy(width=int(inner_width), weights=weights)
        self.rng = np.random.default_rng(0)
        self._follow = PlanFollower()

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.greedy.reset(seed)
        self.inner.reset(seed)
        self._follow = PlanFollower()

    def act(self, game: SoloGame, mask: np.ndarray) -> int:
        planned = self._follow.next(game, mask)
        if planned is not None:
            return planned
        if game.phase in PLAN_PHASES:
            plan = self.choose(game)
            if plan is not None:
                return self._follow.begin(plan, game)
        return self.greedy.act(game, mask)

    def choose(self, game: SoloGame) -> Candidate | None:
        ranked = self.greedy.planner.candidates(game, limit=max(4 * self.width, 1))
        if len(ranked) <= 1 or self.samples <= 0 or self.width <= 1:
            return ranked[0] if ranked else None
        # keep the best plan of each distinct tetromino drop + combination (slide variants of one
        # drop would otherwise fill the budget), in the greedy's order
        plans, drops = [], set()
        for plan in ranked:
            tail = tuple(a for a, ph in zip(plan.actions, plan.phases)
                         if ph not in (Phase.SLIDE, Phase.STAR_SLIDE))
            if tail not in drops:
                drops.add(tail)
                plans.append(plan)
            if len(plans) == self.width:
                break
        seeds = self.rng.integers(0, 2**63 - 1, size=self.samples)
        score0 = game.score()
        best, best_v = None, -np.inf
        seen: dict[Any, float] = {}
        for plan in plans:
            g = game.clone()
            for a in plan.actions[:-1]:
                g.step(a)
            key = (g.sheet.values.tobytes(), g.sheet.used.tobytes(), g.notches.tobytes(), plan.actions[-1])
            if key in seen:
                continue
            total = 0.0
            for s in seeds:
                g2 = g.clone()
                g2.rng = np.random.default_rng(int(s))
                g2._mask = None
                g2.step(plan.actions[-1])
                v = float(g2.score() - score0)
                if self.rollout:
                    self.inner.reset(0)  # forget plans made in other sampled games
                    while not g2.is_over:  # the inner greedy plays the sampled game out
                        g2.step(self.inner.act(g2, g2.legal_mask()))
                    v = float(g2.score() - score0)
                elif not g2.is_over:
                    nxt = self.inner.planner.candidates(g2, limit=1)
                    if nxt:
                        v += nxt[0].value
                total += v
            seen[key] = total / len(seeds)
            if seen[key] > best_v:
                best, best_v = plan, seen[key]
        return best
