"""Networks in MaskablePPO's ``.zip`` format and the agents that play them: ``ppo`` (MaskablePPO) and
``q`` (Q-iteration), alike but for their default network, alone or re-ranked by a one-turn
look-ahead valued by their own critic; also offering a turn's candidates and playing in lockstep."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import numpy as np

from numberdrop_env import startup
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.decision import observe
from numberdrop_env.envs.turn import observe_turn
from numberdrop_env.planner.turns import TURN_PHASES, Candidate, TurnPlanner

from ..base import MODELS, load_model
from .greedy import GreedyPolicy, PlanFollower, PlanningPolicy
from .lookahead import SearchPolicy

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


class TurnNetwork(PlanningPolicy):
    """An agent played by a network: at a turn's first decision (``turn_level``) it offers the
    candidates and plays the one ``pick`` picks, otherwise each decision is ``decide``'s."""

    plan_phases = TURN_PHASES
    turn_level: bool
    setup: TurnSetup
    auto_forced = True
    """Play a forced decision directly, as the environment did in training."""

    def pick(self, game: SoloGame, offered: list[Candidate], batch: dict[str, np.ndarray], masks: np.ndarray) -> int:
        raise NotImplementedError

    def decide(self, game: SoloGame, mask: np.ndarray) -> int:
        raise NotImplementedError

    def choose(self, game: SoloGame) -> tuple[list[Candidate], int]:
        (offered,), batch, masks = offer_turns(self.setup, [game])
        return offered, self.pick(game, offered, batch, masks)

    def fallback(self, game: SoloGame, mask: np.ndarray) -> int:
        return GreedyPolicy().fallback(game, mask)  # a turn begun by someone else

    def act(self, game: SoloGame, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action: the game is over")
        if self.turn_level:
            return super().act(game, mask)
        if len(legal) == 1 and self.auto_forced:
            return int(legal[0])
        return self.decide(game, mask)


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


def play_games(model: Any, seeds: Sequence[int], deterministic: bool = True) -> list[dict[str, Any]]:
    """One game per seed (``numberdrop-evaluate``'s game for that seed), all in lockstep with batched
    forward passes; per game its ``score``, ``turns`` and ``breakdown``."""
    games = [SoloGame(seed=int(s)) for s in seeds]
    setup = turn_setup(model) if is_turn_model(model) else None
    while True:
        if setup is None:  # play forced decisions directly, as auto_forced does
            for game in games:
                while not game.is_over and len(legal := np.flatnonzero(game.legal_mask())) == 1:
                    game.step(int(legal[0]))
        waiting = [g for g in games if not g.is_over]
        if not waiting:
            break
        if setup is not None:
            offered, batch, masks = offer_turns(setup, waiting)
        else:
            obs = [observe(g) for g in waiting]
            batch = {k: np.stack([o[k] for o in obs]) for k in model.observation_space.spaces}
            masks = np.stack([g.legal_mask() for g in waiting])
        actions, _ = model.predict(batch, action_masks=masks, deterministic=deterministic)
        for k, (game, a) in enumerate(zip(waiting, np.asarray(actions).reshape(-1))):
            for action in offered[k][int(a)].actions if setup is not None else [int(a)]:
                game.step(action)
    return [
        {"seed": int(s), "score": g.score(), "turns": g.turn, "breakdown": g.sheet.score_breakdown()}
        for s, g in zip(seeds, games)
    ]


class NetworkPolicy(TurnNetwork):
    """Plays the action a network picks among the legal ones; ``lookahead=k`` re-ranks its k most
    likely candidates by a look-ahead valued by its critic, ``slots=n`` offers n candidates a turn."""

    name: ClassVar[str]
    default_model: ClassVar[str | Path]
    """The shipped network played when no ``path`` is given."""

    def __init__(
        self,
        path: str | None = None,
        deterministic: bool = True,
        lookahead: int = 0,
        samples: int = 8,
        refine: int = 0,
        slots: int | None = None,
    ) -> None:
        import torch

        torch.set_num_threads(1)  # evaluate runs one process per core
        self.path = str(self.default_model if path is None else path)
        self.deterministic = bool(deterministic)
        self.lookahead, self.samples = int(lookahead), int(samples)
        if self.lookahead < 0 or self.samples < 1:
            raise ValueError(f"lookahead must be >= 0 and samples >= 1, got {lookahead} and {samples}")
        if refine and self.lookahead < 2:
            raise ValueError(f"refine={refine} re-values look-ahead candidates: it needs lookahead >= 2")
        self.model = load_model(self.path)
        self.turn_level = is_turn_model(self.model)
        if slots is None and self.turn_level:
            slots = getattr(self.model, "turn_slots", None)
        if slots is not None:
            self._check_slots(slots)
        if self.turn_level:
            self.setup = turn_setup(self.model, slots)
        self.search = None
        if self.lookahead > 1:  # valued by this network's critic (this model, not a second copy)
            if not self.turn_level:
                raise ValueError(f"{self.path}: lookahead needs a turn-level model (NumberDropTurn-v0)")
            if not self.deterministic:
                raise ValueError("lookahead plays the best valued candidate: it needs deterministic=True")
            critic = LearnedValue(model=self.model)
            self.search = SearchPolicy(width=self.lookahead, samples=self.samples, refine=refine, critic=critic)
        self._follow = PlanFollower()

    def _check_slots(self, slots: int) -> None:
        """Offering other than the trained number of candidates needs a network that scores each
        candidate on its own (``heads``) and plays its best (no sampling)."""
        if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
            raise ValueError(f"slots must be an int >= 1, got {slots!r}")
        if self.turn_level and slots == self.model.action_space.n:
            return  # as trained
        if not self.turn_level or not hasattr(self.model.policy, "heads"):
            raise ValueError(f"{self.path}: slots needs a turn-level candidate-scoring network")
        if not self.deterministic:
            raise ValueError(
                f"slots={slots} plays the network's best candidates: it needs deterministic=True"
                f" (slots={self.model.action_space.n} samples, as the network was trained)"
            )

    def reset(self, seed: int) -> None:
        self._follow = PlanFollower()
        if self.search is not None:
            self.search.reset(seed)
        if not self.deterministic:
            import torch

            torch.manual_seed(seed)

    def decide(self, game: SoloGame, mask: np.ndarray) -> int:
        action, _ = self.model.predict(
            observe(game), action_masks=np.asarray(mask, bool), deterministic=self.deterministic
        )
        return int(np.asarray(action).reshape(-1)[0])

    def pick(self, game: SoloGame, offered: list[Candidate], batch: dict[str, np.ndarray], masks: np.ndarray) -> int:
        """The network's choice, or with a look-ahead the best of its ``lookahead`` most likely
        candidates by points now plus the critic's expected value of the next turn."""
        if self.search is not None:
            top = best_candidates(self.model, batch, masks, self.lookahead)[0]  # most likely first, ties by slot
            values = self.search.rank(game, [offered[j] for j in top]) if len(top) > 1 else [0.0]
            return int(top[int(np.argmax(values))])
        if masks.shape[1] != self.model.action_space.n:  # offered more (or fewer) than it trained on
            return int(np.argmax(masked_logits(self.model, batch, masks)))
        choice, _ = self.model.predict(batch, action_masks=masks, deterministic=self.deterministic)
        return int(np.asarray(choice).reshape(-1)[0])


class PPOPolicy(NetworkPolicy):
    """A MaskablePPO network (``algorithm: ppo``): its policy picks, its critic values the look-ahead."""

    name = "ppo"
    default_model = PPO_MODEL


class QPolicy(NetworkPolicy):
    """The Q-iteration network, whose score of a candidate is its value in points, offered the 128
    candidates it was saved with: its scores pick, its value head values the look-ahead (``best``)."""

    name = "q"
    default_model = MODELS / "q_turn.zip"
