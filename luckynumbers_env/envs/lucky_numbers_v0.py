"""PettingZoo AEC environment of Lucky Numbers (2 to 4 players), one decision per step in seat
order; each agent observes ``{"observation", "action_mask"}`` (never the pool's order) and gets
the tournament score when the game ends (``docs/envs/lucky-numbers-v0.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from gamekit.env import SeatAgents, check_render_mode

from ..engine.actions import phase_code
from ..engine.game import Game
from ..engine.rules import Rules
from ..render.text import render_text
from .observe import observation_size, observe


class raw_env(SeatAgents, AECEnv):
    """AEC Lucky Numbers (see the module docstring)."""

    metadata = {"render_modes": ["ansi"], "name": "lucky_numbers_v0", "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self, num_players: int | None = None, render_mode: str | None = None, rules: Rules | None = None
    ) -> None:
        super().__init__()
        check_render_mode(self.metadata, render_mode)
        if rules is None:
            rules = Rules(players=2 if num_players is None else num_players)  # refuses a num_players outside 2..4
        elif not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
        elif num_players is not None and num_players != rules.players:
            raise ValueError(f"num_players={num_players} differs from rules.players={rules.players}")
        self.rules = rules
        self.render_mode = render_mode
        self.game = Game(self.rules, 0)
        self._agents(self.rules.players, observation_size(self.rules), self.game.layout.n)
        self._np_random: np.random.Generator | None = None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game shuffled by ``seed``, or with ``options={"state": game.to_dict()}`` a saved one
        (other keys are ignored, as PettingZoo's own API test expects)."""
        state = (options or {}).get("state")
        if state is not None:
            game = Game.from_dict(state)
            if game.rules != self.rules:
                raise ValueError(f"state has rules {game.rules}, the environment {self.rules}")
            self.game = game
        else:
            if seed is not None or self._np_random is None:  # unseeded resets go on with the same generator
                self._np_random = np.random.default_rng(seed)
            self.game = Game(self.rules, self._np_random)
        self._begin(self.game.over)
        self.agent_selection = self.possible_agents[self.game.player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_seat[agent]
        mask = np.zeros(self.game.layout.n, np.int8)
        if not self.game.over and self.game.player == seat:
            mask[self.game.legal_actions()] = 1
        return {"observation": observe(self.game, seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        rewards = self.game.step(action)  # raises on a masked action, changing nothing
        self._stepped(agent, rewards, self.game.over)
        self.agent_selection = self.possible_agents[self.game.player]

    def _info(self, agent: str) -> dict[str, Any]:
        seat = self.agent_seat[agent]
        winners = np.zeros(self.rules.players, np.int8)
        winners[self.game.winners] = 1  # empty before the end
        return {
            "empty_cells": np.int64(self.game.empty_cells(seat)),
            "turn": np.int64(self.game.turn),
            "phase_code": phase_code(self.game.phase),
            "winners": winners,
        }

    def describe_action(self, agent: str, action: int) -> str:
        """An action of the agent to act, in the game's words."""
        if self.agent_seat[agent] != self.game.player:
            raise ValueError(f"{agent} is not to act")
        return self.game.describe_action(action)

    def get_state(self) -> dict[str, Any]:
        return self.game.to_dict()

    def render(self) -> str | None:
        return render_text(self.game) if self.render_mode == "ansi" else None


def env(num_players: int | None = None, render_mode: str | None = None, rules: Rules | None = None) -> AECEnv:
    """The AEC environment with PettingZoo's order enforcing (2 players unless told)."""
    return wrappers.OrderEnforcingWrapper(raw_env(num_players, render_mode, rules))
