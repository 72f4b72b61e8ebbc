"""The look-ahead: an agent's ``top`` candidates re-ranked by points plus the next turn's expected
value over shared rolls; on game clones (``SearchPolicy``, the ``search`` agent) or on packed games
(``expectimax``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from gamekit.checks import positive_int
from numberdrop_env import startup
from numberdrop_env.engine.actions import Phase
from numberdrop_env.engine.dice import Rolls
from numberdrop_env.engine.rules import Rules
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.packing import TurnArrays
from numberdrop_env.planner.turns import Candidate, TurnPlanner

from .. import registry
from .greedy import GreedyPolicy, PlanFollower, PlanningPolicy

if TYPE_CHECKING:
    from ..values.ntuple import NTupleValue

DROP_PHASES = (Phase.BLOCK, Phase.PLACE, Phase.ARRANGE, Phase.WILD)
"""The phases of a plan that say where its dice land: plans alike in these are one drop."""
ALL_ROLLS = -1
"""``rolls`` that meets every distinct roll, weighted by its probability."""
CHUNK = 512
"""Packed children enumerated per call at most: about 100 MB of candidate arrays at 128 slots."""
LEARNED_VALUE = "agents.numberdrop.network:LearnedValue [train]"
"""The critic of ``value="learned"``: loaded by name, it needs the ``train`` extra."""


def top_k(score: np.ndarray, k: int) -> np.ndarray:
    """The indices of the ``k`` highest scores along the last axis, best first, ties in order."""
    return np.argsort(-score, axis=-1, kind="stable")[..., :k]


def check_refine(refine: int) -> int:
    """``refine`` as an int: 0 (off) or at least 2 (one plan refined is no choice)."""
    if refine < 0 or refine == 1:
        raise ValueError(f"refine must be 0 (off) or >= 2, got {refine}")
    return int(refine)


def refined(values_of: Callable[[np.ndarray], Sequence[float]], n: int, refine: int) -> np.ndarray:
    """The look-ahead value of ``n`` candidates (``values_of(indices)``: one round of rolls); with
    ``refine``, only the ``refine`` best are valued again and keep the mean of both rounds."""
    values = np.asarray(values_of(np.arange(n)), float)
    if refine < 2 or n <= refine:
        return values
    keep = top_k(values, refine)
    out = np.full(n, -np.inf)
    out[keep] = (values[keep] + np.asarray(values_of(keep))) / 2
    return out


class NextTurnValue(Protocol):
    """Values a batch of games at a turn's first decision (``network.LearnedValue``, which this
    module loads by name: the network agents import this one)."""

    def values(self, games: list[SoloGame]) -> list[float]: ...


class SearchPolicy(PlanningPolicy):
    """The look-ahead on game clones: ``samples`` seeded rolls a round, the next turn valued by the
    greedy, a ``critic``, a turn-level network's critic (``value="learned"``) or played out
    (``rollout``). As the ``search`` agent it ranks the greedy's ``width`` best plans."""

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
        if value not in ("heuristic", "learned"):
            raise ValueError(f"value must be 'heuristic' or 'learned', got {value!r}")
        if rollout and value == "learned":
            raise ValueError("rollout=True plays sampled games out; it does not combine with value='learned'")
        self.width, self.samples, self.refine = int(width), int(samples), check_refine(refine)
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

    def fallback(self, game: SoloGame, mask: np.ndarray) -> int:
        return self.greedy.act(game, mask)

    def choose(self, game: SoloGame) -> tuple[Sequence[Candidate], int]:
        """The best of the greedy's ``width`` best plans, one per distinct drop (its slide and
        combination variants would fill the budget), by ``rank``."""
        startup.compiled()  # many sampled games a turn: wait for a background compile, not interpret
        ranked = self.greedy.planner.candidates(game)
        if len(ranked) <= 1 or self.samples <= 0 or self.width <= 1:
            return ranked, 0
        plans, drops = [], set()
        for plan in ranked:
            drop = tuple(a for a, ph in zip(plan.actions, plan.phases) if ph in DROP_PHASES)
            if drop not in drops:
                drops.add(drop)
                plans.append(plan)
            if len(plans) == self.width:
                break
        return plans, int(np.argmax(self.rank(game, plans)))

    def rank(self, game: SoloGame, plans: list[Candidate]) -> np.ndarray:
        """Each plan's look-ahead value (``refined``: with ``refine`` only the refined stay finite)."""

        def values_of(i: np.ndarray) -> list[float]:  # a round: the same sampled rolls for every plan
            seeds = self.rng.integers(0, 2**63 - 1, size=self.samples)
            return self.lookahead(game, [plans[j] for j in i], seeds)

        return refined(values_of, len(plans), self.refine)

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
        games = [g2 for _, g2 in later]
        if self.critic is not None:
            values = self.critic.values(games)
        else:  # the inner greedy's best candidate
            best = [self.inner.planner.candidates(g, limit=1) for g in games]
            values = [nxt[0].value if nxt else 0.0 for nxt in best]
        for (i, _), v in zip(later, values):
            totals[i] += v
        return (totals / max(len(seeds), 1)).tolist()


def turn_scores(count: np.ndarray, arrays: TurnArrays, values: np.ndarray) -> np.ndarray:
    """Each candidate's points plus value, ``-inf`` on padding: what a one-ply agent maximises."""
    slots = arrays.points.shape[1]
    live = np.arange(slots)[None, :] < np.asarray(count)[:, None]
    return np.where(live, arrays.points + values, -np.inf)


def expectimax(
    planner: TurnPlanner,
    value: NTupleValue,
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
    """The look-ahead score of the ``top`` best candidates (by points plus value) of each packed game
    at a turn's first decision; ``-inf`` for the candidates not searched and padding."""
    positive_int(top, "top")
    score = turn_scores(count, arrays, values)
    chosen = top_k(score, top)
    chosen[np.arange(chosen.shape[1])[None, :] >= np.asarray(count)[:, None]] = -1
    g, j = np.nonzero(chosen >= 0)
    out = np.full(score.shape, -np.inf)
    out[g, chosen[g, j]] = expected(planner, value, states, rules, arrays, chosen, rolls, limit, chunk)[g, j]
    return out


def expected(
    planner: TurnPlanner,
    value: NTupleValue,
    states: np.ndarray,
    rules: Rules,
    arrays: TurnArrays,
    chosen: np.ndarray,
    rolls: Rolls,
    limit: int,
    chunk: int = CHUNK,
) -> np.ndarray:
    """(games, k): candidate ``chosen[g, j]``'s points plus the ``rolls``-weighted mean of the next
    turn's best points plus value among its ``limit`` best (``-inf`` where ``chosen`` is -1); the
    (candidate, roll) children enumerated and valued ``chunk`` at a time."""
    positive_int(limit, "limit")
    positive_int(chunk, "chunk")
    if not isinstance(rolls, Rolls) or len(rolls.probabilities) == 0 or len(rolls.faces) != len(rolls.probabilities):
        raise TypeError("rolls must be a non-empty engine.dice.Rolls (roll_distribution or sample_rolls)")
    out = np.full(chosen.shape, -np.inf)
    parents, after = [], []
    for k in range(chosen.shape[1]):  # the k-th chosen candidate of every game, played up to the next roll
        games_k = np.flatnonzero(chosen[:, k] >= 0)
        if not len(games_k):
            continue
        rows = states.copy()
        over = planner.finish_turns(rows, rules, games_k, chosen[games_k, k], arrays)
        out[games_k[over], k] = arrays.points[games_k[over], chosen[games_k[over], k]]
        parents += [(g, k) for g in games_k[~over]]
        after.append(rows[games_k[~over]])
    if not parents:
        return out
    g, k = np.array(parents).T
    afterstates, n_rolls = np.concatenate(after), len(rolls.probabilities)
    best = np.empty(len(parents) * n_rolls)
    for lo in range(0, len(best), chunk):  # each (afterstate, roll) child its own packed row
        child = np.arange(lo, min(len(best), lo + chunk))
        rows = afterstates[child // n_rolls]
        rows[:, -1] = limit  # the packed rows' limit field: how many candidates to keep
        planner.start_turns(rows, rules, np.arange(len(child)), rolls.faces[child % n_rolls])
        c_count, c_arrays, _ = planner.candidate_arrays(rows, rules, limit)
        c_values = value.candidate_values(rows, np.arange(len(rows)), c_count, c_arrays)[0]
        c_best = turn_scores(c_count, c_arrays, c_values).max(axis=1, initial=-np.inf)
        best[child] = np.where(c_count > 0, c_best, 0.0)
    out[g, k] = arrays.points[g, chosen[g, k]] + best.reshape(len(parents), n_rolls) @ rolls.probabilities
    return out
