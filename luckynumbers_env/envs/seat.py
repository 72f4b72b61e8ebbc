"""``LuckyNumbers-v0``: one seat of a Lucky Numbers table, one decision per step, for single-agent
RL; the other seats are played by ``opponents``. ``shaping`` adds a potential-based term (minus
the empty cells) that leaves the best play unchanged (``docs/envs/luckynumbers.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gamekit.env import IllegalActions, LegalDiscrete, check_render_mode, mask_space, seat_opponents

from ..engine.game import Game
from ..engine.rules import Rules
from ..render.text import render_text
from .observe import observation_size, observe

AGENT_FACTORY = "agents.luckynumbers:make_policy"


class LuckyNumbersEnv(IllegalActions, gym.Env):
    """A learner's seat among ``num_players - 1`` agents."""

    metadata = {"render_modes": ["ansi"], "render_fps": 2}

    def __init__(
        self,
        num_players: int = 4,
        opponents: Sequence[Any] = ("greedy",),
        setup: str = "standard",
        bruno: bool = False,
        render_mode: str | None = None,
        shaping: float = 0.0,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        max_illegal: int = 10,
        mask_in_obs: bool = False,
        policy_factory: str | Callable[[str], Any] = AGENT_FACTORY,
    ) -> None:
        self.rules = Rules(players=num_players, setup=setup, bruno=bruno)  # refuses a num_players outside 2..4
        check_render_mode(self.metadata, render_mode)
        if isinstance(shaping, bool) or not isinstance(shaping, (int, float)) or shaping < 0:
            raise ValueError(f"shaping must be a number >= 0, got {shaping!r}")
        self._illegal_options(illegal_action, illegal_reward, max_illegal, mask_in_obs)
        self.shaping = float(shaping)
        self.render_mode = render_mode
        self.opponent_names, self.opponents = seat_opponents(opponents, num_players - 1, policy_factory)
        self.game = Game(self.rules, seed=0)
        self.seat = 0
        board = spaces.Box(0.0, 1.0, (observation_size(self.rules),), np.float32)
        self.observation_space = (
            board
            if not self.mask_in_obs
            else spaces.Dict({"observation": board, "action_mask": mask_space(self.game.layout.n)})
        )
        self.action_space = LegalDiscrete(self.game.layout.n, self.action_masks)  # sample() plays legal moves

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new game, or with ``options={"state": get_state()}`` a saved one."""
        unknown = set(options or {}) - {"state"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; LuckyNumbers-v0 takes 'state'")
        super().reset(seed=seed)
        if options:
            return self.set_state(options["state"])
        game_seed = int(self.np_random.integers(2**63 - 1))
        self.game = Game(self.rules, seed=game_seed)
        self.seat = int(self.np_random.integers(self.rules.players))
        return self._begin(game_seed % 2**32)

    def step(self, action: int):
        if self.game.over:
            raise ValueError("the game is over: call reset() before step()")
        penalized = self._penalized(lambda: self.game.is_legal(action))  # wrong types raise here
        if penalized is not None:
            return penalized
        empty = self.game.empty_cells(self.seat)
        rewards = self.game.step(action)  # raises on a masked action, changing nothing
        total = float(rewards[self.seat])
        if not self.game.over:
            total += self._play_others()
        total += self.shaping * (empty - self.game.empty_cells(self.seat))
        return self._obs(), total, self.game.over, False, self._info()

    def get_state(self) -> dict[str, Any]:
        """The game (``Game.to_dict``, hidden pool order included) and the learner's seat."""
        return {"game": self.game.to_dict(), "seat": self.seat}

    def set_state(self, state: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Continue a saved game from the learner's next decision (a refused state changes nothing)."""
        if not isinstance(state, dict) or set(state) != {"game", "seat"}:
            raise ValueError("state must be a dict with keys 'game' and 'seat' (from get_state())")
        game, seat = Game.from_dict(state["game"]), state["seat"]
        if game.rules != self.rules:
            raise ValueError(f"state: the game has rules {game.rules}, the environment {self.rules}")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.rules.players:
            raise ValueError(f"state.seat: expected an int 0..{self.rules.players - 1}, got {seat!r}")
        self.game, self.seat = game, seat
        return self._begin(0)

    def _begin(self, seed: int) -> tuple[Any, dict[str, Any]]:
        """The opponents, their plans restarted from ``seed``, play up to the learner's first
        decision; ``(observation, info)``."""
        self.illegal_streak = 0
        for k, policy in enumerate(self.opponents):
            policy.reset(seed + k)
        self._play_others()
        return self._obs(), self._info()

    def _obs(self) -> Any:
        board = observe(self.game, self.seat)
        if not self.mask_in_obs:
            return board
        return {"observation": board, "action_mask": self.action_masks().astype(np.int8)}

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
        winners = self.game.winners  # empty before the end
        info = {} if self.mask_in_obs else {"action_mask": self.action_masks()}
        info.update(
            seat=np.int64(self.seat),
            empty_cells=np.int64(self.game.empty_cells(self.seat)),
            win=np.float64(1.0 / len(winners) if self.seat in winners else 0.0),
            scores=self.game.scores().astype(np.float64),
            illegal_action=np.False_,
        )
        return info
