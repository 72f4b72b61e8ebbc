"""Gymnasium environment for solo Number Drop. It translates; the rules live in the engine."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from gamekit.env import LegalDiscrete

from .. import startup
from ..engine.actions import phase_code
from ..engine.rules import DEFAULT_RULES, Rules
from ..engine.solo import SoloGame
from .base import SoloEnvBase
from .observe import Observer, observation_shapes, observe  # noqa: F401  (observe: agents import it from here)


class NumberDropEnv(SoloEnvBase):
    """Solo Number Drop, one decision of the rules per step, with exact action masks; the score's
    change is the reward, ``auto_forced=True`` plays single-choice decisions (``docs/envs/numberdrop.md``)."""

    env_id = "NumberDrop-v0"

    def __init__(
        self,
        render_mode: str | None = None,
        rules: Rules = DEFAULT_RULES,
        auto_forced: bool = False,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        max_illegal: int = 10,
        mask_in_obs: bool = False,
    ) -> None:
        self._setup(render_mode, rules, illegal_action, illegal_reward, max_illegal, mask_in_obs)
        self.auto_forced = bool(auto_forced)
        self.game = SoloGame(rules, seed=0)
        self._observe = Observer(rules)
        self.action_space = LegalDiscrete(self.game.layout.size, self.action_masks)
        self.observation_space = self._mask_space(
            spaces.Dict(
                {name: spaces.Box(0, 1, shape, np.float32) for name, shape in observation_shapes(rules).items()}
            )
        )

    def step(self, action: int):
        startup.poll()  # the compiled code, once the background compile has it ready
        game = self.game
        penalized = self._penalize(action, game.legal_mask())
        if penalized is not None:
            return penalized
        reward = game.step(action)
        if self.auto_forced:
            reward += self._skip_forced()
        obs, breakdown = self._observe(game)
        return self._obs(obs), float(reward), game.is_over, False, self._info(breakdown)

    def action_masks(self) -> np.ndarray:
        """Exact legal-action mask (the sb3-contrib ``MaskablePPO`` convention)."""
        return self.game.legal_mask().copy()

    def describe_action(self, action: int) -> dict[str, Any]:
        """What an action means in the current state, in the game's words (JSON-safe)."""
        return self.game.describe(action)

    def _offer(self) -> None:
        """Play the forced moves of a new game or position (they cannot score)."""
        self._skip_forced()  # forced moves at the start of a game or position cannot score

    def _skip_forced(self) -> int:
        reward = 0
        while self.auto_forced and not self.game.is_over:
            legal = self.game.legal_mask()
            if np.count_nonzero(legal) != 1:
                break
            reward += self.game.step(int(legal.argmax()))
        return reward

    def _info(self, breakdown: dict[str, int] | None = None) -> dict[str, Any]:
        breakdown = self._observe.boxes(self.game.sheet)[0] if breakdown is None else breakdown
        return self._score_info(breakdown, phase_code=phase_code(self.game.phase), turn=np.int64(self.game.turn))

    def _observation(self) -> dict[str, np.ndarray]:
        return self._observe(self.game)[0]
