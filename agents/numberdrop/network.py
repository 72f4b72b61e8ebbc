"""Networks in MaskablePPO's ``.zip`` format (the ``ppo`` and ``q`` agents): offering them a turn's
candidates or the pending decision, reading their scores, playing them in lockstep."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from numberdrop_env import startup
from numberdrop_env.engine.rules import DEFAULT_RULES, Rules
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.decision import observe
from numberdrop_env.envs.turn import observe_turn
from numberdrop_env.planner.turns import TURN_PHASES, Candidate, TurnPlanner

from ..base import MODELS, load_model
from .greedy import GreedyPolicy, PlanFollower

PPO_MODEL = MODELS / "ppo_turn.zip"
"""The shipped MaskablePPO network: the ``ppo`` agent's and the learned critic's default."""


def is_turn_model(model: Any) -> bool:
    """Whether a network plays ``NumberDropTurn-v0`` (one decision per turn over candidates)."""
    return "candidates" in getattr(model.observation_space, "spaces", {})


class TurnSetup(NamedTuple):
    """How a turn-level network sees a turn: its planner, its candidate slots and whether it
    observes the candidates' grids (``afterstates``)."""

    planner: TurnPlanner
    slots: int
    afterstates: bool = False


def turn_setup(model: Any, slots: int | None = None) -> TurnSetup:
    """The ``TurnSetup`` a turn-level network was trained with (``slots``: offer that many
    candidates instead)."""
    width = getattr(model, "turn_width", None)
    planner = TurnPlanner(width=int(width)) if width else TurnPlanner()
    offered = int(model.action_space.n) if slots is None else int(slots)
    return TurnSetup(planner, offered, "afterstates" in model.observation_space.spaces)


def offer_turns(
    setup: TurnSetup, games: list[SoloGame]
) -> tuple[list[list[Candidate]], dict[str, np.ndarray], np.ndarray]:
    """Each game's candidates, and their ``NumberDropTurn-v0`` observations and slot masks
    stacked one row per game, ready for one batched forward pass."""
    slots = setup.slots
    startup.compiled()  # features are compiled code: wait for a background compile, not interpret
    offered = [setup.planner.candidates(g, limit=slots) for g in games]
    obs = [observe_turn(g, o, slots, afterstates=setup.afterstates) for g, o in zip(games, offered)]
    batch = {k: np.stack([o[k] for o in obs]) for k in obs[0]}
    masks = np.arange(slots)[None, :] < np.array([len(o) for o in offered])[:, None]
    return offered, batch, masks


def masked_logits(model: Any, batch: dict[str, np.ndarray], masks: np.ndarray) -> np.ndarray:
    """A turn-level network's masked log-probabilities over the slots (one game's batch). SB3's
    distribution takes only the trained number of slots; for any other number the candidate
    network's own scores are masked as SB3 masks them."""
    import torch

    with torch.no_grad():
        if masks.shape[1] == model.action_space.n:
            obs, _ = model.policy.obs_to_tensor(batch)
            return model.policy.get_distribution(obs, action_masks=masks).distribution.logits[0].cpu().numpy()
        logits = model.policy.heads({k: torch.as_tensor(v) for k, v in batch.items()})[0][0]
        masked = torch.where(torch.as_tensor(masks[0]), logits, torch.tensor(-1e8))
        return torch.log_softmax(masked, dim=0).numpy()


def best_candidates(
    model: Any, batch: dict[str, np.ndarray], masks: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """The slots of a network's ``k`` best legal candidates (one game's batch), best first,
    ties by slot, and their values in points up to a constant (logits over ``planner_scale``; a
    network without one: its logits)."""
    logits = masked_logits(model, batch, masks)
    legal = np.flatnonzero(masks[0])
    top = legal[np.argsort(-logits[legal], kind="stable")][:k]
    return top, logits[top] / getattr(model.policy, "planner_scale", 1.0)


def turn_decision(
    follow: PlanFollower,
    setup: TurnSetup,
    game: SoloGame,
    mask: np.ndarray,
    choose: Callable[[SoloGame, list[Candidate], dict[str, np.ndarray], np.ndarray], int],
) -> int:
    """A turn-level agent's action: the next step of its plan, or at a turn's first decision
    the first step of the candidate ``choose(game, offered, batch, masks)`` picks."""
    planned = follow.next(game, mask)
    if planned is not None:
        return planned
    if game.phase not in TURN_PHASES:  # a turn begun by someone else: finish it like the greedy
        return GreedyPolicy().finish_turn(game, mask)
    (offered,), batch, masks = offer_turns(setup, [game])
    return follow.begin(offered[choose(game, offered, batch, masks)], game)


class LearnedValue:
    """The critic of a turn-level network, for a batch of games at a turn's first decision:
    the search agent's ``value="learned"`` and the network agents' look-ahead."""

    def __init__(self, path: str | None = None, model: Any = None) -> None:
        import torch

        torch.set_num_threads(1)  # evaluate runs one process per core
        self.model = model if model is not None else load_model(path or PPO_MODEL)
        if not is_turn_model(self.model):
            raise ValueError(f"{path}: value='learned' needs a turn-level model (NumberDropTurn-v0)")
        self.setup = turn_setup(self.model)

    def values(self, games: list[SoloGame]) -> list[float]:
        import torch

        if not games:
            return []
        _, batch, _ = offer_turns(self.setup, games)
        with torch.no_grad():
            values = self.model.policy.predict_values({k: torch.as_tensor(v) for k, v in batch.items()})
        return values.reshape(-1).tolist()


def play_games(
    model: Any, seeds: Sequence[int], deterministic: bool = True, rules: Rules = DEFAULT_RULES
) -> list[dict[str, Any]]:
    """One game per seed (``numberdrop-evaluate``'s game for that seed), all in lockstep with batched
    forward passes; per game its ``score``, ``turns`` and ``breakdown``."""
    games = [SoloGame(rules, seed=int(s)) for s in seeds]
    if is_turn_model(model):
        _play_turns(model, games, deterministic)
    else:
        _play_decisions(model, games, deterministic)
    return [
        {"seed": int(s), "score": g.score(), "turns": g.turn, "breakdown": g.sheet.score_breakdown()}
        for s, g in zip(seeds, games)
    ]


def _play_turns(model: Any, games: list[SoloGame], deterministic: bool) -> None:
    setup = turn_setup(model)
    while True:
        waiting = [i for i, g in enumerate(games) if not g.is_over]
        if not waiting:
            return
        offered, batch, masks = offer_turns(setup, [games[i] for i in waiting])
        actions, _ = model.predict(batch, action_masks=masks, deterministic=deterministic)
        for i, o, a in zip(waiting, offered, np.asarray(actions).reshape(-1)):
            for micro in o[int(a)].actions:
                games[i].step(micro)


def _play_decisions(model: Any, games: list[SoloGame], deterministic: bool) -> None:
    keys = list(model.observation_space.spaces)
    while True:
        waiting = []
        for i, game in enumerate(games):
            while not game.is_over:  # play forced decisions directly, as auto_forced does
                legal = np.flatnonzero(game.legal_mask())
                if len(legal) != 1:
                    waiting.append(i)
                    break
                game.step(int(legal[0]))
        if not waiting:
            break
        obs = [observe(games[i]) for i in waiting]
        batch = {k: np.stack([o[k] for o in obs]) for k in keys}
        masks = np.stack([games[i].legal_mask() for i in waiting])
        actions, _ = model.predict(batch, action_masks=masks, deterministic=deterministic)
        for i, a in zip(waiting, np.asarray(actions).reshape(-1)):
            games[i].step(int(a))
