"""``LuckyNumbers-v0``: one seat of a Lucky Numbers table, one decision per step, for single-agent RL.

The learner's seat is drawn at each reset; the other seats are played by registry agents
(``opponents``, cycled round the table). The observation is the seat's view
(``luckynumbers_env.observe``: boards, face-up tiles, pool size, tile in hand; never the
pool's order), the action space the flat ``Discrete`` of the game with ``action_masks()``
for MaskablePPO. The reward is the learner's tournament score (+2 for a win, minus its
empty cells otherwise) when the game ends, 0 before; ``info["win"]`` is its share of the
win (1/k for a k-way tie). ``shaping`` > 0 adds ``shaping`` per cell the learner fills and
takes it back per cell emptied, a potential-based term (potential: minus the empty cells)
that leaves the best play unchanged and gives a signal before the end.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from luckynumbers_env import Game, Rules
from luckynumbers_env.observe import observation_size, observe
from luckynumbers_env.render import render_text
from numberdrop_env.env_base import LegalDiscrete

from .registry import make_policy


class LuckyNumbersEnv(gym.Env):
    """A learner's seat among ``num_players - 1`` agents."""

    metadata = {"render_modes": ["ansi"], "render_fps": 2}

    def __init__(self, num_players: int = 4, opponents: Sequence[str] = ("greedy",), setup: str = "standard",
                 bruno: bool = False, render_mode: str | None = None, shaping: float = 0.0) -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, int) or not 2 <= num_players <= 4:
            raise ValueError(f"num_players must be an int 2..4, got {num_players!r}")
        if isinstance(opponents, str) or not opponents:
            raise ValueError(f"opponents must be a non-empty list of agent names, got {opponents!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        if isinstance(shaping, bool) or not isinstance(shaping, (int, float)) or shaping < 0:
            raise ValueError(f"shaping must be a number >= 0, got {shaping!r}")
        self.shaping = float(shaping)
        self.rules = Rules(players=num_players, setup=setup, bruno=bruno)
        self.render_mode = render_mode
        self.opponent_names = [opponents[i % len(opponents)] for i in range(num_players - 1)]
        self.opponents = [make_policy(name) for name in self.opponent_names]  # unknown names fail here
        self.game = Game(self.rules, seed=0)
        self.seat = 0
        self.observation_space = spaces.Box(0.0, 1.0, (observation_size(self.rules),), np.float32)
        self.action_space = LegalDiscrete(self.game.layout.n, self.action_masks)  # sample() plays legal moves

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; LuckyNumbers-v0 takes none")
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**63 - 1))
        self.game = Game(self.rules, seed=game_seed)
        self.seat = int(self.np_random.integers(self.rules.players))
        for k, policy in enumerate(self.opponents):
            policy.reset(game_seed % 2**32 + k)
        self._play_others()
        return observe(self.game, self.seat), self._info()

    def step(self, action: int):
        if self.game.over:
            raise ValueError("the game is over: call reset() before step()")
        empty = self.game.empty_cells(self.seat)
        rewards = self.game.step(action)  # raises on a masked action, changing nothing
        total = float(rewards[self.seat])
        if not self.game.over:
            total += self._play_others()
        total += self.shaping * (empty - self.game.empty_cells(self.seat))
        return observe(self.game, self.seat), total, self.game.over, False, self._info()

    def action_masks(self) -> np.ndarray:
        if self.game.over or self.game.player != self.seat:
            return np.zeros(self.game.layout.n, bool)
        return self.game.legal_mask()

    def describe_action(self, action: int) -> str:
        return self.game.describe_action(action)

    def render(self) -> str | None:
        return render_text(self.game) if self.render_mode == "ansi" else None

    def _play_others(self) -> float:
        """Opponents decide until the learner owes a decision or the game is over; the learner's reward."""
        reward = 0.0
        while not self.game.over and self.game.player != self.seat:
            p = self.game.player
            policy = self.opponents[(p - self.seat - 1) % self.rules.players]
            reward += float(self.game.step(policy.act(self.game, self.game.legal_mask()))[self.seat])
        return reward

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"seat": self.seat, "empty_cells": self.game.empty_cells(self.seat)}
        if self.game.over:
            winners = self.game.winners
            info["win"] = 1.0 / len(winners) if self.seat in winners else 0.0
            info["scores"] = self.game.scores().tolist()
        return info
