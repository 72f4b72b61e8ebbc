"""SB3's ``VecEnv`` over the native vector ``NumberDropTurn-v0`` (``vec_env: native``): the games a
``DummyVecEnv`` of ``Monitor``-wrapped envs plays, their turns enumerated together on every core."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from numberdrop_env.envs.vector import NumberDropTurnVectorEnv


class _GameView:
    """Game ``i``, as ``get_attr``/``env_method`` see one environment."""

    def __init__(self, venv: NumberDropTurnVectorEnv, i: int) -> None:
        self._venv, self._i = venv, i

    @property
    def render_mode(self) -> str | None:
        return self._venv.render_mode

    def action_masks(self) -> np.ndarray:
        return self._venv.action_masks()[self._i]

    def describe_action(self, action: int) -> dict[str, Any]:
        offered = self._venv.offered[self._i]
        if not 0 <= int(action) < len(offered):
            raise ValueError(f"action {action} is not legal: this turn has {len(offered)} candidates")
        return offered[int(action)].describe(self._venv.games[self._i])


class NativeTurnVecEnv(VecEnv):
    """``num_envs`` games of ``NumberDropTurn-v0`` in one process, as an SB3 ``VecEnv``."""

    def __init__(self, num_envs: int = 1, *, candidates: int = 32, width: int = 12, afterstates: bool = False) -> None:
        self.venv = venv = NumberDropTurnVectorEnv(
            num_envs=num_envs, candidates=candidates, width=width, afterstates=afterstates
        )
        self._views = [_GameView(venv, i) for i in range(venv.num_envs)]
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(self.num_envs)
        self._lengths = np.zeros(self.num_envs, np.int64)
        self.t_start = time.time()

    def reset(self) -> dict[str, np.ndarray]:
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        options = self._options[0] if self._options else {}
        if any(o != options for o in self._options):
            raise ValueError("the native vector env resets every game with the same options")
        obs, info = self.venv.reset(seed=seeds, options=dict(options) or None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = self._infos(info)
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise ValueError("step_wait() without step_async()")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, info = self.venv.step(actions)
        dones = terminated | truncated
        self._returns += rewards
        self._lengths += 1
        infos = self._infos(info)
        if dones.any():
            done = np.flatnonzero(dones).tolist()
            now = time.time()
            for i in done:
                infos[i]["terminal_observation"] = {key: value[i].copy() for key, value in obs.items()}
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                infos[i]["episode"] = {
                    "r": round(float(self._returns[i]), 6),
                    "l": int(self._lengths[i]),
                    "t": round(now - self.t_start, 6),
                }
            self._returns[done] = 0.0
            self._lengths[done] = 0
            obs, info = self.venv.reset(options={"reset_mask": dones})
            fresh = self._infos(info)
            for i in done:
                self.reset_infos[i] = fresh[i]
        return obs, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self._views[i], attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"cannot set {attr_name!r}: the games of a native vector env have no settable attributes")

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        if method_name == "action_masks" and not method_args and not method_kwargs:
            masks = self.venv.action_masks()  # one copy for all games (MaskablePPO asks every step)
            return [masks[i] for i in self._get_indices(indices)]
        return [getattr(self._views[i], method_name)(*method_args, **method_kwargs) for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _infos(self, info: dict[str, Any]) -> list[dict[str, Any]]:
        """The vector info as one dict per game, the single environment's keys."""
        ints = ("score", "turn", "candidate_count", "boxes")
        return [
            {
                "action_mask": info["action_mask"][i],
                "score_breakdown": info["score_breakdown"][i],
                **{k: np.int64(info[k][i]) for k in ints},
                "illegal_action": np.False_,
            }
            for i in range(self.num_envs)
        ]
