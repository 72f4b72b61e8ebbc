"""What an agent chose by, taken as it chose (a look-ahead valued again on other rolls need not
explain the choice): ``Watch`` records what the agent's look-ahead methods were asked and answered."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.numberdrop.lookahead import SearchPolicy, expectimax, turn_scores
from numberdrop_env.engine.dice import Rolls
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.turns import TurnCandidates


def look_ahead_of(policy: Any) -> Any:
    """The agent's look-ahead (a search agent, or the one a network agent carries), if any."""
    if isinstance(policy, SearchPolicy):
        return policy
    search = getattr(policy, "search", None)
    return search if isinstance(search, SearchPolicy) else None


def expectimax_of(policy: Any) -> Any:
    """The agent itself when it searches the next roll by expectimax (``ntuple_expectimax``)."""
    if getattr(policy, "searches", False) is True and callable(getattr(policy, "turn_rolls", None)):
        return policy
    return None


@dataclass
class Seen:
    """What the agent's ranking computed during one turn's choice."""

    calls: list[tuple[SoloGame, list[Any], np.ndarray, list[float]]] = field(default_factory=list)
    rolls: Any = None
    game: SoloGame | None = None


class Watch:
    """Records, while ``active``, the look-ahead's calls or the expectimax's rolls of ``policy``."""

    def __init__(self, policy: Any) -> None:
        self.search, self.expecti = look_ahead_of(policy), expectimax_of(policy)
        self.seen, self.active = Seen(), True

    def __enter__(self) -> Watch:
        if self.search is not None:
            real = self.search.lookahead

            def lookahead(game: SoloGame, plans: list[Any], seeds: np.ndarray) -> list[float]:
                out = real(game, plans, seeds)
                if self.active:
                    self.seen.calls.append((game.clone(), list(plans), np.array(seeds), list(out)))
                return out

            self.search.lookahead = lookahead
        if self.expecti is not None:
            real_rolls = self.expecti.turn_rolls

            def turn_rolls(game: SoloGame) -> Any:
                rolls = real_rolls(game)
                if self.active:
                    self.seen.rolls, self.seen.game = rolls, game.clone()
                return rolls

            self.expecti.turn_rolls = turn_rolls
        return self

    def __exit__(self, *exc: Any) -> None:
        for obj, name in ((self.search, "lookahead"), (self.expecti, "turn_rolls")):
            if obj is not None:
                vars(obj).pop(name, None)  # the class's own method again


def look_ahead_rows(search: Any, seen: Seen, top: int) -> tuple[SoloGame, list[tuple[Any, dict[str, Any]]]]:
    """The plans the look-ahead weighed (``seen.calls``), in its final order (the refined ones first,
    each by its mean over all its rolls), ``top`` of them, each with its mean, spread and number of rolls."""
    game = seen.calls[0][0]
    plans: dict[Any, dict[str, Any]] = {}
    for _, offered, seeds, means in seen.calls:
        for plan, mean in zip(offered, means):
            if not np.isfinite(mean):  # a second copy of a plan already valued
                continue
            entry = plans.setdefault(plan.key, {"plan": plan, "order": len(plans), "means": [], "seeds": []})
            entry["means"].append(float(mean))
            entry["seeds"].extend(int(s) for s in seeds)
    ranked = sorted(plans.values(), key=lambda e: (-len(e["means"]), -np.mean(e["means"]), e["order"]))
    rounds = max(len(e["means"]) for e in ranked)
    rows = []
    for entry in ranked[:top]:
        per_roll = [search.lookahead(game, [entry["plan"]], np.array([s]))[0] for s in entry["seeds"]]
        numbers = {
            "lookahead": round(float(np.mean(entry["means"])), 3),
            "spread": round(float(np.std(per_roll)), 3),
            "rolls": len(entry["seeds"]),
        }
        if len(entry["means"]) < rounds:
            numbers["dropped"] = True  # not among the plans valued again
        rows.append((entry["plan"], numbers))
    return game, rows


def expectimax_rows(policy: Any, seen: Seen, top: int) -> tuple[SoloGame, list[tuple[Any, dict[str, Any]]]]:
    """The candidates the expectimax searched (``seen.rolls``), best first, with the score it compared,
    its spread over the rolls and their number, and the one-ply value that chose them."""
    game, rolls, planner = seen.game, seen.rolls, policy.planner
    states = planner.pack_batch([game], policy.limit)
    count, arrays, _ = planner.candidate_arrays(states, game.rules, policy.limit)
    values = policy.value.candidate_values(states, np.arange(1), count, arrays)[0]

    def search(r: Any) -> np.ndarray:
        value, rules = policy.value, game.rules
        return expectimax(planner, value, states, rules, count, arrays, values, policy.top, r, policy.inner_limit)[0]

    score, one_ply = search(rolls), turn_scores(count, arrays, values)[0]
    p = np.asarray(rolls.probabilities, float)
    each = np.array([search(Rolls(rolls.faces[k : k + 1], np.ones(1))) for k in range(len(p))])
    offered = TurnCandidates.of_batch(arrays, 0, int(count[0]))
    order = [int(i) for i in np.argsort(-score, kind="stable") if np.isfinite(score[i])]
    rows = []
    for i in order[:top]:
        spread = float(np.sqrt(np.sum(p * (each[:, i] - score[i]) ** 2) / p.sum()))
        numbers = {"agent_value": round(float(one_ply[i]), 3), "lookahead": round(float(score[i]), 3)}
        numbers.update(spread=round(spread, 3), rolls=len(p))
        rows.append((offered[i], numbers))
    return game, rows
