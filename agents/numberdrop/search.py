"""SearchPolicy: expectimax-lite over the next roll on top of the greedy turn planner.

At the first decision of each turn the turn enumerator proposes the greedy's ``width``
best plans for the whole turn (the best of each distinct drop). For each sampled roll a
clone of the game gets a generator drawn from the policy's own rng (so the search never
sees the real future dice) and jumps to the plan's afterstate; the end of the turn rolls
a sampled next turn. The value of a plan is the points it scores now plus the mean, over
``samples`` sampled rolls, of the greedy's best value for the next turn (its points plus
the heuristic of the sheet it leaves). The same sampled rolls are used for every plan
(common random numbers), so plans are compared on equal luck. A plan that ends the game
is worth its points only. The best plan is then played like the greedy plays its own,
re-planning if the game is not in the expected state.

Budget (constructor arguments, all settable from a command line):
``width`` plans per turn (4), ``samples`` next rolls per plan (8), ``inner_width``
stage-2 width of the greedy when it values the next turn (8), ``refine`` (off): the
``refine`` best plans after the first ``samples`` rolls are valued on ``samples`` more
(their values are then means over twice the rolls), a second round spent where the
choice is still open. Cost grows as (width + refine) x samples greedy turn plans per
turn: about 5 to 7 s per game on one core at the defaults (mean 45.3 on seeds 0..99,
against 42.8 for the greedy). More plans and samples paid more than a wider inner
greedy when the budget was tuned. ``rollout=True`` replaces the one-turn look-ahead by
Monte Carlo rollouts: after each sampled roll the inner greedy plays the cloned game to
its end (with the sampled generator) and the plan is valued by the mean
final score; much slower (about remaining-turns times the cost).

``value="learned"`` (or a ``critic`` passed in, as the network agents' look-ahead passes its own
model's) values each sampled next turn with the critic of a turn-level PPO
model (``model``, default the shipped ``agents/models/ppo_turn.zip``) instead of the
greedy's best next-turn value: the critic estimates the points still to come from that
state, so the plan's value is its points now plus the critic's mean over the samples.

Deterministic per seed: the only randomness is ``numpy.random.default_rng(seed)`` set by
``reset(seed)``.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from numberdrop_env.engine.actions import Phase
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.turns import PLAN_PHASES, Candidate

from .. import registry
from .greedy import GreedyPolicy, PlanFollower

_DROP_PHASES = (Phase.BLOCK, Phase.PLACE, Phase.ARRANGE, Phase.WILD)
LEARNED_VALUE = "agents.numberdrop.network:LearnedValue [train]"
"""The critic of ``value="learned"``: loaded by name, it needs the ``train`` extra."""


class NextTurnValue(Protocol):
    """Values a batch of games at a turn's first decision (a learned critic)."""

    def values(self, games: list[SoloGame]) -> list[float]: ...


class SearchPolicy:
    """Greedy's top plans re-ranked by the expected greedy value of the next turn."""

    name = "search"

    def __init__(
        self,
        width: int = 4,
        samples: int = 8,
        inner_width: int = 8,
        rollout: bool = False,
        weights: dict[str, Any] | None = None,
        value: str = "heuristic",
        model: str | None = None,
        refine: int = 0,
        critic: NextTurnValue | None = None,
    ) -> None:
        if refine < 0 or refine == 1:
            raise ValueError(f"refine must be 0 (off) or >= 2, got {refine}")
        if value not in ("heuristic", "learned"):
            raise ValueError(f"value must be 'heuristic' or 'learned', got {value!r}")
        if rollout and value == "learned":
            raise ValueError("rollout=True plays sampled games out; it does not combine with value='learned'")
        self.width = int(width)
        self.samples = int(samples)
        self.refine = int(refine)
        self.rollout = bool(rollout)
        if critic is None and value == "learned":
            critic = registry.load(LEARNED_VALUE, "value='learned'")(model)
        self.critic = critic
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
        ranked = self.greedy.planner.candidates(game)
        if len(ranked) <= 1 or self.samples <= 0 or self.width <= 1:
            return ranked[0] if ranked else None
        # keep the best candidate of each distinct drop (block and tetromino placement,
        # arrangement, wild values), in the greedy's order: its slide and combination
        # variants would otherwise fill the budget
        plans, drops = [], set()
        for plan in ranked:
            drop = tuple(a for a, ph in zip(plan.actions, plan.phases) if ph in _DROP_PHASES)
            if drop not in drops:
                drops.add(drop)
                plans.append(plan)
            if len(plans) == self.width:
                break
        return plans[int(np.argmax(self.rank(game, plans)))]

    def rank(self, game: SoloGame, plans: list[Candidate]) -> np.ndarray:
        """Each plan's look-ahead value; with ``refine``, only the refined plans keep a finite one."""
        values = np.asarray(self.lookahead(game, plans, self.sample_rolls()))
        if self.refine < 2 or len(plans) <= self.refine:
            return values
        keep = np.argsort(-values, kind="stable")[: self.refine]
        more = np.asarray(self.lookahead(game, [plans[i] for i in keep], self.sample_rolls()))
        refined = np.full(len(plans), -np.inf)
        refined[keep] = (values[keep] + more) / 2
        return refined

    def sample_rolls(self) -> np.ndarray:
        """Seeds of the sampled next rolls, the same for every plan valued in one round."""
        return self.rng.integers(0, 2**63 - 1, size=self.samples)

    def lookahead(self, game: SoloGame, plans: list[Candidate], seeds: np.ndarray) -> list[float]:
        """Each plan's points plus the mean value of the next turn over the sampled rolls
        (``seeds``, the same for every plan); a plan that ends the game is worth its points."""
        score0 = game.score()
        totals = np.zeros(len(plans))
        later: list[tuple[int, SoloGame]] = []  # sampled next turns still to be valued
        seen: dict[Any, int] = {}
        for i, plan in enumerate(plans):
            if plan.key in seen:  # the same turn: the same value
                totals[i] = -np.inf
                continue
            seen[plan.key] = i
            for s in seeds:
                g2 = game.clone()
                g2.rng = np.random.default_rng(int(s))  # the turn's end rolls a sampled next turn
                plan.play(g2)
                if self.rollout:
                    self.inner.reset(0)  # forget plans made in other sampled games
                    while not g2.is_over:  # the inner greedy plays the sampled game out
                        g2.step(self.inner.act(g2, g2.legal_mask()))
                totals[i] += float(g2.score() - score0)
                if not self.rollout and not g2.is_over:
                    later.append((i, g2))
        for (i, _), v in zip(later, self._next_turn_values([g2 for _, g2 in later])):
            totals[i] += v
        return (totals / max(len(seeds), 1)).tolist()

    def _next_turn_values(self, games: list[SoloGame]) -> list[float]:
        if self.critic is not None:
            return self.critic.values(games)
        out = []
        for g in games:
            nxt = self.inner.planner.candidates(g, limit=1)
            out.append(nxt[0].value if nxt else 0.0)
        return out
