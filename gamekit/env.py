"""Gymnasium and PettingZoo plumbing both games' environments share: legal sampling, the
``action_mask`` entry, the illegal-action options, a seat's opponents, the AEC bookkeeping."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import load_env_creator

ILLEGAL_ACTIONS = ("raise", "penalize")


def mask_space(n: int) -> spaces.Box:
    """The ``action_mask`` entry of an observation ``Dict`` (1 = legal), as PettingZoo's games have it."""
    return spaces.Box(0, 1, (n,), np.int8)


class UnsupportedRenderMode(TypeError, ValueError):
    """A ``render_mode`` the environment cannot draw: a ``TypeError`` because Stable-Baselines3's
    ``make_vec_env`` catches that to retry without it."""


def check_render_mode(metadata: dict[str, Any], render_mode: str | None) -> None:
    if render_mode is not None and render_mode not in metadata["render_modes"]:
        modes = metadata["render_modes"]
        raise UnsupportedRenderMode(f"render_mode must be one of {modes} or None, got {render_mode!r}")


class LegalDiscrete(spaces.Discrete):
    """``Discrete`` whose ``sample()`` without a mask draws among the legal actions, so generic
    tools (env checkers, quick scripts) play legal moves; pickled alone, it is a plain ``Discrete``."""

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray] | None = None) -> None:
        super().__init__(n)
        self.legal_mask = legal_mask

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None and self.legal_mask is not None:
            legal = self.legal_mask()
            if legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["legal_mask"] = None  # never drag an environment into a saved model's spaces
        return state


class IllegalActions:
    """The options every single-agent environment of both games takes (``illegal_action``,
    ``illegal_reward``, ``max_illegal``, ``mask_in_obs``) and its *penalize* step; the environment
    gives ``_obs``, ``_info`` and ``action_masks``."""

    def _illegal_options(self, illegal_action: str, illegal_reward: float, max_illegal: int, mask_in_obs: bool) -> None:
        """Refuse bad options before any is kept."""
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {list(ILLEGAL_ACTIONS)}, got {illegal_action!r}")
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)) or illegal_reward > 0:
            raise ValueError(f"illegal_reward must be a number <= 0, got {illegal_reward!r}")
        if isinstance(max_illegal, bool) or not isinstance(max_illegal, (int, np.integer)) or max_illegal < 2:
            raise ValueError(f"max_illegal must be an int >= 2, got {max_illegal!r}")
        if not isinstance(mask_in_obs, (bool, np.bool_)):
            raise TypeError(f"mask_in_obs must be a bool, got {mask_in_obs!r}")
        self.mask_in_obs = bool(mask_in_obs)
        self.illegal_action, self.illegal_reward = illegal_action, float(illegal_reward)
        self.max_illegal, self.illegal_streak = int(max_illegal), 0

    def _penalized(self, legal: Callable[[], bool]) -> tuple[Any, ...] | None:
        """The step of a masked action in *penalize* mode (the game unchanged), else ``None``;
        ``legal`` raises for an action of the wrong type or outside the space: a bug, not a move."""
        if self.illegal_action != "penalize":
            return None
        if legal():
            self.illegal_streak = 0
            return None
        self.illegal_streak += 1
        info = self._info()
        info["illegal_action"] = np.True_
        return self._obs(), self.illegal_reward, False, self.illegal_streak >= self.max_illegal, info

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if isinstance(self.__dict__.get("action_space"), LegalDiscrete):
            self.action_space.legal_mask = self.action_masks  # a copy's space asks the copy for its mask


def seat_opponents(opponents: Any, count: int, factory: str | Callable[[str], Any]) -> tuple[list[str], list[Any]]:
    """The ``count`` opponents of a seat environment, cycled from ``opponents`` (policies with
    ``act`` and ``reset``, or names ``factory`` builds; a ``"module:function"`` factory is loaded
    on first use, so the environment imports no agent code), and their names."""
    if isinstance(opponents, str) or not isinstance(opponents, Sequence) or not opponents:
        raise ValueError(f"opponents must be a non-empty list of agent names or policies, got {opponents!r}")
    chosen = [opponents[i % len(opponents)] for i in range(count)]
    make = None
    policies = []
    for entry in chosen:
        if isinstance(entry, str):
            make = make or (load_env_creator(factory) if isinstance(factory, str) else factory)
            policies.append(make(entry))  # unknown names fail here
        elif callable(getattr(entry, "act", None)) and callable(getattr(entry, "reset", None)):
            policies.append(entry)
        else:
            raise TypeError(f"an opponent is an agent name or a policy with act() and reset(), got {entry!r}")
    names = [e if isinstance(e, str) else getattr(e, "name", type(e).__name__) for e in chosen]
    return names, policies


class SeatAgents:
    """The agent-keyed spaces and AEC bookkeeping of a PettingZoo table: agent ``player_p`` is seat ``p``."""

    def _agents(self, players: int, obs_size: int, actions: int) -> None:
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self.agent_seat = {a: p for p, a in enumerate(self.possible_agents)}
        board = spaces.Box(0.0, 1.0, (obs_size,), np.float32)
        obs_space = spaces.Dict({"observation": board, "action_mask": mask_space(actions)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(actions) for a in self.possible_agents}
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _begin(self, over: bool) -> None:
        """The AEC dictionaries of a new game (a finished saved game ends at once)."""
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, over)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: self._info(a) for a in self.agents}

    def _stepped(self, agent: str, rewards: Any, over: bool) -> None:
        """The AEC dictionaries after ``agent``'s move (``rewards`` by seat)."""
        self._cumulative_rewards[agent] = 0.0  # only now: a refused move keeps the reward last() reports
        for a in self.agents:
            self.rewards[a] = float(rewards[self.agent_seat[a]])
        if over:
            self.terminations = dict.fromkeys(self.agents, True)
        self.infos = {a: self._info(a) for a in self.agents}
        self._accumulate_rewards()
