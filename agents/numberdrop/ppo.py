"""The learned agent: a MaskablePPO model (sb3-contrib) trained by ``train.py``.

``make_policy("ppo", {"path": "runs/ppo_turn/best_model.zip"})``; without a path it loads
the shipped model ``agents/models/ppo_turn.zip``. Both kinds of model play:

- a turn-level model (trained on ``NumberDropTurn-v0``, observation key ``candidates``)
  chooses among the turn's candidates at the turn's first decision and then plays the
  chosen candidate's decisions one by one;
- a decision-level model (``NumberDrop-v0``, e.g. ``agents/models/ppo_solo.zip``) is
  trained with ``auto_forced=True``: the environment applies every decision that has a
  single legal action, so the network never saw those positions. The policy does the
  same: a mask with one legal action is answered without asking the network.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from numberdrop_env.engine.rules import DEFAULT_RULES, Rules
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.decision import observe
from numberdrop_env.envs.turn import observe_turn
from numberdrop_env.planner.structures import structure_names
from numberdrop_env.planner.turns import TURN_PHASES, Candidate, TurnPlanner

from .. import base
from ..base import MODELS
from ..networks.reranker import Reranker, load_reranker, rerank_rows
from .greedy import GreedyPolicy, PlanFollower
from .search import SearchPolicy

DEFAULT_MODEL = MODELS / "ppo_turn.zip"


def load_model(path: str | Path, device: str = "cpu") -> Any:
    """Load a MaskablePPO ``.zip`` for inference (clear error when the file is missing)."""
    hint = " (train one with `python train.py --config configs/ppo_turn.yaml`)" if Path(path) == DEFAULT_MODEL else ""
    return base.load_model(path, device, hint)


def is_turn_model(model: Any) -> bool:
    """Whether a model plays ``NumberDropTurn-v0`` (one decision per turn over candidates)."""
    return "candidates" in getattr(model.observation_space, "spaces", {})


class PPOPolicy:
    """Plays the action a trained MaskablePPO model picks among the legal ones.

    ``lookahead=k`` (turn-level models, k >= 2) re-ranks the policy's k most likely
    candidates by a one-turn look-ahead valued by the model's own critic: each candidate's
    points plus the critic's mean value of the next turn over ``samples`` sampled rolls
    (the search agent's look-ahead with ``value="learned"``); ``refine=r`` values the r
    best of them on ``samples`` more rolls before choosing. Stronger and about
    (k + r) x samples times slower than the network alone; see the README for both.
    ``halving=True`` spends the look-ahead by sequential halving instead (``halving``):
    the k candidates are valued on ``samples`` rolls, the better half on ``samples`` new ones,
    and so on down to one, ranked by the mean values (``c_scale`` weighs them against the
    logits; at 1 the values decide); about 2k x samples valuations a turn.
    ``slots=n`` offers the network the n best-ranked candidates of each turn instead of the
    number it was trained with: a candidate network scores each candidate on its own, and a
    value-trained one gains from seeing more. The default is the number the model was saved
    with (Q-iteration's ``q.slots``, e.g. 128 for ``q_turn.zip``), else its own.
    ``rerank=path`` (a value network, without look-ahead) plays the best of the network's few
    best candidates by its values plus a re-ranker's corrections (``agents.networks.reranker``,
    trained on the network's look-ahead by ``algorithm: rerank``): still no sampled rolls.
    """

    name = "ppo"

    def __init__(
        self,
        path: str | None = None,
        deterministic: bool = True,
        lookahead: int = 0,
        samples: int = 8,
        refine: int = 0,
        halving: bool = False,
        c_scale: float = 1.0,
        slots: int | None = None,
        rerank: str | None = None,
    ) -> None:
        import torch

        torch.set_num_threads(1)  # evaluate runs one process per core
        self.path = str(path) if path is not None else str(DEFAULT_MODEL)
        self.deterministic = bool(deterministic)
        self.lookahead, self.samples = int(lookahead), int(samples)
        if self.lookahead < 0 or self.samples < 1:
            raise ValueError(f"lookahead must be >= 0 and samples >= 1, got {lookahead} and {samples}")
        if refine and self.lookahead < 2:
            raise ValueError(f"refine={refine} re-values look-ahead candidates: it needs lookahead >= 2")
        if halving and (self.lookahead < 2 or refine):
            raise ValueError("halving spends a look-ahead (lookahead >= 2) by halving; it replaces refine")
        self.halving, self.c_scale = bool(halving), float(c_scale)
        self.model = load_model(self.path)
        self.turn_level = is_turn_model(self.model)
        self.search = None
        if slots is None and self.turn_level:
            slots = getattr(self.model, "turn_slots", None)
        if slots is not None:
            self._check_slots(slots)
        if self.turn_level:
            self.setup = turn_setup(self.model, slots)
        if self.lookahead > 1:
            if not self.turn_level:
                raise ValueError(f"{self.path}: lookahead needs a turn-level model (NumberDropTurn-v0)")
            if not self.deterministic:
                raise ValueError("lookahead plays the best valued candidate: it needs deterministic=True")
            self.search = SearchPolicy(
                width=self.lookahead, samples=self.samples, refine=refine, critic=LearnedValue(model=self.model)
            )  # this model, not a second copy
        self.reranker = self._load_reranker(rerank) if rerank is not None else None
        self._follow = PlanFollower()

    def _load_reranker(self, path: str) -> Reranker:
        """A re-ranker corrects a value network's own choice: not a look-ahead's, not a sample's."""
        if not self.turn_level or not hasattr(self.model.policy, "heads"):
            raise ValueError(f"{self.path}: rerank needs a turn-level candidate-scoring network")
        if self.lookahead or not self.deterministic:
            raise ValueError(
                "rerank corrects the network's own best candidates: it needs lookahead=0 and deterministic=True"
            )
        reranker = load_reranker(path)
        state, candidates = (
            self.model.observation_space["state"].shape[0],
            self.model.observation_space["candidates"].shape[1],
        )
        if reranker.inputs != state + candidates + len(structure_names(DEFAULT_RULES)):
            raise ValueError(f"{path}: a re-ranker of {reranker.inputs} inputs does not read {self.path}'s rows")
        return reranker

    def _check_slots(self, slots: int) -> None:
        """Offering other than the trained number of candidates needs a network that scores each
        candidate on its own (``heads``) and plays its best (no sampling, no halving's priors)."""
        if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
            raise ValueError(f"slots must be an int >= 1, got {slots!r}")
        if self.turn_level and slots == self.model.action_space.n:
            return  # as trained
        if not self.turn_level or not hasattr(self.model.policy, "heads"):
            raise ValueError(f"{self.path}: slots needs a turn-level candidate-scoring network")
        if not self.deterministic or self.halving:
            raise ValueError(
                f"slots={slots} plays the network's best candidates: it needs deterministic=True and no halving"
                f" (slots={self.model.action_space.n} samples, as the network was trained)"
            )

    def reset(self, seed: int) -> None:
        self._follow = PlanFollower()
        if self.search is not None:
            self.search.reset(seed)
        if not self.deterministic:
            import torch

            torch.manual_seed(seed)

    def act(self, game: SoloGame, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action: the game is over")
        if self.turn_level:
            return self._act_turn(game, mask)
        if len(legal) == 1:  # forced: the env applied these during training (auto_forced=True)
            return int(legal[0])
        action, _ = self.model.predict(
            observe(game), action_masks=np.asarray(mask, bool), deterministic=self.deterministic
        )
        action = int(np.asarray(action).reshape(-1)[0])
        if not mask[action]:  # cannot happen with a masked distribution; never play an illegal move
            raise RuntimeError(f"model chose masked action {action}")
        return action

    def _act_turn(self, game: SoloGame, mask: np.ndarray) -> int:
        return turn_decision(self._follow, self.setup, game, mask, self._choose_candidate)

    def _choose_candidate(
        self, game: SoloGame, offered: list[Candidate], batch: dict[str, np.ndarray], masks: np.ndarray
    ) -> int:
        if self.search is not None:
            return self._look_ahead(game, offered, batch, masks)
        if self.reranker is not None:
            return self._rerank(game, offered, batch, masks)
        if masks.shape[1] != self.model.action_space.n:  # offered more (or fewer) than it trained on
            return int(np.argmax(masked_logits(self.model, batch, masks)))
        choice, _ = self.model.predict(batch, action_masks=masks, deterministic=self.deterministic)
        return int(np.asarray(choice).reshape(-1)[0])

    def _look_ahead(
        self, game: SoloGame, offered: list[Candidate], batch: dict[str, np.ndarray], masks: np.ndarray
    ) -> int:
        """The slot of the best of the policy's ``lookahead`` most likely candidates by points
        now plus the critic's expected value of the next turn."""
        if self.halving:
            logits, value = logits_and_value(self.model, batch, masks)
            return halving(
                logits, masks[0], value, partial(look_ahead, self.search, game, offered), self.lookahead, self.c_scale
            )
        top = self.most_likely(batch, masks, self.lookahead)
        if len(top) == 1:
            return int(top[0])
        values = self.search.rank(game, [offered[j] for j in top])
        return int(top[int(np.argmax(values))])

    def _rerank(self, game: SoloGame, offered: list[Candidate], batch: dict[str, np.ndarray], masks: np.ndarray) -> int:
        """The slot of the best of the network's ``top`` best candidates by value plus correction."""
        top, values = best_candidates(self.model, batch, masks, self.reranker.top)
        return int(top[reranked(self.reranker, game, offered, batch, top, values)[0]])

    def most_likely(self, batch: dict[str, np.ndarray], masks: np.ndarray, k: int) -> np.ndarray:
        """The slots of the network's ``k`` most likely legal candidates (one game's batch),
        most likely first, ties by slot: the candidates its look-ahead weighs."""
        return best_candidates(self.model, batch, masks, k)[0]


def best_candidates(
    model: Any, batch: dict[str, np.ndarray], masks: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """The slots of a value network's ``k`` best legal candidates (one game's batch), best first,
    ties by slot, and their values in points up to a constant (logits over ``planner_scale``; a
    network without one: its logits)."""
    logits = masked_logits(model, batch, masks)
    legal = np.flatnonzero(masks[0])
    top = legal[np.argsort(-logits[legal], kind="stable")][:k]
    return top, logits[top] / getattr(model.policy, "planner_scale", 1.0)


def reranked(
    reranker: Reranker | None,
    game: SoloGame,
    offered: Sequence[Candidate],
    batch: dict[str, np.ndarray],
    top: np.ndarray,
    values: np.ndarray,
) -> tuple[int, np.ndarray | None]:
    """(the index in ``top`` of the candidate played, the re-ranker's input rows of ``top``):
    the network's best when there is no re-ranker or a single candidate (then no rows)."""
    if len(top) < 2:
        return 0, None
    rows = rerank_rows(game, [offered[j] for j in top], batch["candidates"][0][top], batch["state"][0])
    return (0 if reranker is None else reranker.choose(values, rows)), rows


def masked_logits(model: Any, batch: dict[str, np.ndarray], masks: np.ndarray) -> np.ndarray:
    """A turn-level model's masked log-probabilities over the slots (one game's batch). SB3's
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


def logits_and_value(model: Any, batch: dict[str, np.ndarray], masks: np.ndarray) -> tuple[np.ndarray, float]:
    """``masked_logits`` and the critic's value of the position (one game's batch)."""
    import torch

    with torch.no_grad():
        value = float(model.policy.predict_values(model.policy.obs_to_tensor(batch)[0]).reshape(-1)[0])
    return masked_logits(model, batch, masks).astype(np.float64), value


def halving(
    logits: np.ndarray,
    legal: np.ndarray,
    value: float,
    evaluate: Callable[[list[int]], Sequence[float]],
    k: int,
    c_scale: float,
    c_visit: float = 50.0,
) -> int:
    """The slot sequential halving keeps: the ``k`` legal slots of highest logit, then rounds
    that value the slots left (``evaluate``, on common rolls) and keep the better half by logit
    plus the mean values min-max normalised over the legal slots (the critic's ``value`` where a
    slot was not valued) times ``(c_visit + most rounds) * c_scale``, until one is left."""
    legal = np.asarray(legal, bool)
    slots = np.flatnonzero(legal)
    if len(slots) == 0:
        raise ValueError("no legal candidate to search")
    remaining = slots[np.argsort(-logits[slots], kind="stable")][: max(1, min(k, len(slots)))]
    q_sum, visits = np.zeros(len(logits)), np.zeros(len(logits), np.int64)
    for _ in range(math.ceil(math.log2(len(remaining))) if len(remaining) > 1 else 0):
        q_sum[remaining] += np.asarray(evaluate(remaining.tolist()), float)
        visits[remaining] += 1
        q = np.where(visits > 0, q_sum / np.maximum(visits, 1), value)[legal]
        bonus = np.zeros(len(logits))
        if q.max() > q.min():
            bonus[legal] = (q - q.min()) / (q.max() - q.min()) * (c_visit + visits.max()) * c_scale
        ranked = logits[remaining] + bonus[remaining]
        remaining = remaining[np.argsort(-ranked, kind="stable")][: math.ceil(len(remaining) / 2)]
    return int(remaining[0])


def look_ahead(search: SearchPolicy, game: SoloGame, offered: Sequence[Candidate], slots: Sequence[int]) -> list[float]:
    """One round of a halving search: the look-ahead values of some slots on fresh common rolls."""
    return search.lookahead(game, [offered[j] for j in slots], search.sample_rolls())


class LearnedValue:
    """The critic of a turn-level PPO model, for a batch of games at a turn's first decision:
    the search agent's ``value="learned"`` and the PPO agent's look-ahead."""

    def __init__(self, path: str | None = None, model: Any = None) -> None:
        import torch

        torch.set_num_threads(1)  # evaluate runs one process per core
        self.model = model if model is not None else load_model(path or DEFAULT_MODEL)
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


class TurnSetup(NamedTuple):
    """How a turn-level model sees a turn: its planner, its candidate slots and whether it
    observes the candidates' grids (``afterstates``)."""

    planner: TurnPlanner
    slots: int
    afterstates: bool = False


def turn_setup(model: Any, slots: int | None = None) -> TurnSetup:
    """The ``TurnSetup`` a turn-level model was trained with (``slots``: offer that many
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
    offered = [setup.planner.candidates(g, limit=slots) for g in games]
    obs = [observe_turn(g, o, slots, afterstates=setup.afterstates) for g, o in zip(games, offered)]
    batch = {k: np.stack([o[k] for o in obs]) for k in obs[0]}
    masks = np.arange(slots)[None, :] < np.array([len(o) for o in offered])[:, None]
    return offered, batch, masks


def play_games(
    model: Any, seeds: Sequence[int], deterministic: bool = True, rules: Rules = DEFAULT_RULES
) -> list[dict[str, Any]]:
    """Play one game per seed with ``model``, all in lockstep with batched forward passes.

    Game ``i`` is ``SoloGame(rules, seed=seeds[i])``, the same game ``numberdrop-evaluate``
    plays for that seed, so the scores are paired with any other agent's. Returns, per
    game, ``score``, ``turns`` and ``breakdown``.
    """
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
