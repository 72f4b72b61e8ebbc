"""What the ``ppo`` and ``q`` agents share: a network in MaskablePPO's ``.zip`` format, alone or
re-ranked by a one-turn look-ahead valued by its own critic. Any such network plays under either name.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import numpy as np

from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.decision import observe
from numberdrop_env.planner.turns import Candidate

from .greedy import PlanFollower
from .network import LearnedValue, best_candidates, is_turn_model, load_model, masked_logits, turn_decision, turn_setup
from .search import SearchPolicy


class NetworkPolicy:
    """Plays the action a network picks among the legal ones; ``lookahead=k`` re-ranks its k most
    likely candidates by a look-ahead valued by its critic, ``slots=n`` offers n candidates a turn."""

    name: ClassVar[str]
    default_model: ClassVar[Path]
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
        self.path = str(path) if path is not None else str(self.default_model)
        self.deterministic = bool(deterministic)
        self.lookahead, self.samples = int(lookahead), int(samples)
        if self.lookahead < 0 or self.samples < 1:
            raise ValueError(f"lookahead must be >= 0 and samples >= 1, got {lookahead} and {samples}")
        if refine and self.lookahead < 2:
            raise ValueError(f"refine={refine} re-values look-ahead candidates: it needs lookahead >= 2")
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
            self.search = self._look_ahead_search(refine)
        self._follow = PlanFollower()

    def _look_ahead_search(self, refine: int) -> SearchPolicy:
        """The look-ahead valued by this network's critic (this model, not a second copy)."""
        if not self.turn_level:
            raise ValueError(f"{self.path}: lookahead needs a turn-level model (NumberDropTurn-v0)")
        if not self.deterministic:
            raise ValueError("lookahead plays the best valued candidate: it needs deterministic=True")
        critic = LearnedValue(model=self.model)
        return SearchPolicy(width=self.lookahead, samples=self.samples, refine=refine, critic=critic)

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

    def act(self, game: SoloGame, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action: the game is over")
        if self.turn_level:
            return turn_decision(self._follow, self.setup, game, mask, self._choose_candidate)
        if len(legal) == 1:  # forced: the env applied these during training (auto_forced=True)
            return int(legal[0])
        action, _ = self.model.predict(
            observe(game), action_masks=np.asarray(mask, bool), deterministic=self.deterministic
        )
        action = int(np.asarray(action).reshape(-1)[0])
        if not mask[action]:  # cannot happen with a masked distribution; never play an illegal move
            raise RuntimeError(f"model chose masked action {action}")
        return action

    def _choose_candidate(
        self, game: SoloGame, offered: list[Candidate], batch: dict[str, np.ndarray], masks: np.ndarray
    ) -> int:
        if self.search is not None:
            return self._look_ahead(game, offered, batch, masks)
        if masks.shape[1] != self.model.action_space.n:  # offered more (or fewer) than it trained on
            return int(np.argmax(masked_logits(self.model, batch, masks)))
        choice, _ = self.model.predict(batch, action_masks=masks, deterministic=self.deterministic)
        return int(np.asarray(choice).reshape(-1)[0])

    def _look_ahead(
        self, game: SoloGame, offered: list[Candidate], batch: dict[str, np.ndarray], masks: np.ndarray
    ) -> int:
        """The slot of the best of the network's ``lookahead`` most likely candidates by points
        now plus the critic's expected value of the next turn."""
        top = best_candidates(self.model, batch, masks, self.lookahead)[0]  # most likely first, ties by slot
        if len(top) == 1:
            return int(top[0])
        values = self.search.rank(game, [offered[j] for j in top])
        return int(top[int(np.argmax(values))])
