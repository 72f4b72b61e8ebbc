"""The environments as RLlib sees them: its env runners pass only observations to the RL module,
so the mask travels in the observation (plain Gymnasium, no Ray import)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from numberdrop_env.envs.decision import NumberDropEnv
from numberdrop_env.envs.turn import NumberDropTurnEnv

from ...networks import MASK_KEY, OBS_KEY


class MaskInObservation(gym.ObservationWrapper):
    """``{"action_mask": float mask, "observations": the env's observation}``; ``lose_mask``
    offers every action, to check that a run fails at the first illegal one."""

    def __init__(self, env: gym.Env, lose_mask: bool = False) -> None:
        super().__init__(env)
        n = int(env.action_space.n)
        self.lose_mask = bool(lose_mask)
        self.observation_space = spaces.Dict(
            {MASK_KEY: spaces.Box(0.0, 1.0, (n,), np.float32), OBS_KEY: env.observation_space}
        )

    def observation(self, observation: Any) -> dict[str, Any]:
        mask = self.env.unwrapped.action_masks()
        if self.lose_mask:
            mask = np.ones_like(mask)
        return {MASK_KEY: np.asarray(mask, np.float32), OBS_KEY: observation}


def make_env(env_config: dict[str, Any]) -> gym.Env:
    """One training environment from the ``env_config`` of ``algorithm_config`` (module-level:
    env runners import it)."""
    c = env_config
    if c["interface"] == "turn":
        env: gym.Env = NumberDropTurnEnv(candidates=c["candidates"], width=c["width"])
    else:
        env = NumberDropEnv(auto_forced=c["auto_forced"])
    return MaskInObservation(env, lose_mask=c["lose_mask"])
