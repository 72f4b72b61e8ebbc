"""What the two solo Gymnasium environments share: rendering, illegal actions, saved positions."""

from __future__ import annotations

import copy
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gamekit.checks import as_action
from gamekit.env import IllegalActions, check_render_mode, mask_space

from .. import startup
from ..engine.rules import Rules
from ..engine.sheet import SCORE_PARTS
from ..engine.solo import SoloGame
from ..numba_cache import warn_if_not_compiled
from ..render.draw import picture

BREAKDOWN_KEYS = SCORE_PARTS  # the order of info["score_breakdown"]
_OPTIONS = {"state"}


def breakdown_info(breakdown: dict[str, int]) -> np.ndarray:
    """A score breakdown as int64 in ``BREAKDOWN_KEYS`` order: one array of fixed shape, which
    tools that stack infos (TorchRL's info reader, Tianshou's buffer) can store."""
    return np.array([breakdown[k] for k in BREAKDOWN_KEYS], np.int64)


def breakdown_dict(value: Any) -> dict[str, int]:
    """``info["score_breakdown"]`` by name: ints for one game's array, arrays (one entry per
    game) for a vector env's (games, 7)."""
    value = np.asarray(value)
    if value.ndim == 2:
        return {key: value[:, i] for i, key in enumerate(BREAKDOWN_KEYS)}
    return dict(zip(BREAKDOWN_KEYS, value.tolist()))


def check_render_and_rules(metadata: dict[str, Any], render_mode: str | None, rules: Any) -> None:
    check_render_mode(metadata, render_mode)
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules value, got {type(rules).__name__}")


class SoloEnvBase(IllegalActions, gym.Env):
    """Base of the solo environments; subclasses implement ``action_masks``, ``_observation``,
    ``_info`` and ``_offer``."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    game: SoloGame
    env_id: str
    """The registered id: the key of the background compile and of the log line about it."""

    def _setup(
        self,
        render_mode: str | None,
        rules: Rules,
        illegal_action: str,
        illegal_reward: float,
        max_illegal: int,
        mask_in_obs: bool = False,
    ) -> None:
        check_render_and_rules(self.metadata, render_mode, rules)
        self._illegal_options(illegal_action, illegal_reward, max_illegal, mask_in_obs)
        self.render_mode = render_mode
        self.rules = rules
        warn_if_not_compiled(self.env_id, startup.enabled())  # one log line if the first steps will compile

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        startup.begin(self.env_id)  # not compiled yet: compile in the background, play as Python meanwhile
        super().reset(seed=seed)
        self._start(game_from_options(options, self.rules, self.np_random))
        return self._obs(), self._info()

    def get_state(self) -> dict[str, Any]:
        """The game as JSON-safe data (``SoloGame.to_dict``), dice generator included."""
        return self.game.to_dict()

    def set_state(self, state: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Continue from a saved position, dice generator included; returns ``(observation, info)``
        like ``reset`` (a malformed state raises and changes nothing)."""
        # a copy: restoring sets the generator's state, and a refused position must not touch it
        game = SoloGame.from_dict(state, self.rules, seed=copy.deepcopy(self.np_random))
        self._start(game)
        return self._obs(), self._info()

    def _start(self, game: SoloGame) -> None:
        self.game = game
        self.illegal_streak = 0
        self._offer()

    def render(self) -> str | np.ndarray | None:
        return picture(self.game, self.render_mode)

    def _penalize(self, action: Any, legal: np.ndarray) -> tuple[Any, ...] | None:
        """The step of a masked action in *penalize* mode, else ``None``; a step after the end raises."""
        if self.game.is_over:
            raise ValueError("the game is over: call reset() before step()")
        return self._penalized(lambda: legal[as_action(action, len(legal))])

    def _mask_space(self, space: spaces.Dict) -> spaces.Dict:
        """The observation space, with ``action_mask`` when ``mask_in_obs``."""
        if self.mask_in_obs:
            space = spaces.Dict({**space.spaces, "action_mask": mask_space(self.action_space.n)})
        return space

    def _obs(self, obs: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        """The observation (``_observation()`` unless given), with the mask when ``mask_in_obs``."""
        obs = self._observation() if obs is None else obs
        if self.mask_in_obs:
            obs["action_mask"] = self.action_masks().astype(np.int8)
        return obs

    def _score_info(self, breakdown: dict[str, int], **more: Any) -> dict[str, Any]:
        """The info of both solo environments: the mask (unless the observation holds it), the score
        and its parts, ``more``, and no illegal action."""
        mask = {} if self.mask_in_obs else {"action_mask": self.action_masks()}
        score = {"score": np.int64(breakdown["total"]), "score_breakdown": breakdown_info(breakdown)}
        return {**mask, **score, **more, "illegal_action": np.False_}


def game_from_options(options: dict[str, Any] | None, rules: Rules, rng: np.random.Generator) -> SoloGame:
    """The game a ``reset(options=...)`` asks for: a saved ``state`` to continue, or a new game."""
    options = options or {}
    unknown = set(options) - _OPTIONS
    if unknown:
        raise ValueError(f"unknown reset options {sorted(unknown)}; known: {sorted(_OPTIONS)}")
    if "state" in options:
        return SoloGame.from_dict(options["state"], rules, seed=rng)
    return SoloGame(rules, seed=rng)
