"""What an agent chose by, taken as it chose (a look-ahead valued again on other rolls need not
explain the choice): ``Watch`` records what the agent's look-ahead methods were asked and answered."""

from __future__ import annotations

import copy
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


Seen = dict[str, list[tuple[Any, ...]]]
"""What the agent's ranking computed during one turn's choice, by method: each call's position,
its other arguments and its answer (copies)."""


class Watch:
    """Records in ``seen``, while ``active``, the calls of the look-ahead's ``lookahead`` or of the
    expectimax's ``turn_rolls`` that ``policy`` makes."""

    def __init__(self, policy: Any) -> None:
        self.policy, self.active, self.watched = policy, True, []
        self.seen: Seen = {"lookahead": [], "turn_rolls": []}

    def __enter__(self) -> Watch:
        for obj, name in ((look_ahead_of(self.policy), "lookahead"), (expectimax_of(self.policy), "turn_rolls")):
            if obj is not None:
                self._watch(obj, name)
        return self

    def _watch(self, obj: Any, name: str) -> None:
        real = getattr(obj, name)

        def watched(game: SoloGame, *args: Any) -> Any:
            out = real(game, *args)
            if self.active:
                self.seen[name].append((game.clone(), *map(copy.copy, args), copy.copy(out)))
            return out

        setattr(obj, name, watched)
        self.watched.append((obj, name))

    def __exit__(self, *exc: Any) -> None:
        for obj, name in self.watched:
            vars(obj).pop(name)  # the class's own method again


def look_ahead_rows(search: Any, seen: Seen, top: int) -> tuple[SoloGame, list[tuple[Any, dict[str, Any]]]]:
    """The plans the look-ahead weighed (``seen["lookahead"]``), in its final order (the refined ones first,
    each by its mean over all its rolls), ``top`` of them, each with its mean, spread and number of rolls."""
    game = seen["lookahead"][0][0]
    plans: dict[Any, dict[str, Any]] = {}
    for _, offered, seeds, means in seen["lookahead"]:
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
    """The candidates the expectimax searched (``seen["turn_rolls"]``), best first, with the score it compared,
    its spread over the rolls and their number, and the one-ply value that chose them."""
    (game, rolls), planner = seen["turn_rolls"][-1], policy.planner
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
