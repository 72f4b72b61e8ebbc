"""The Gymnasium face: ``NumberDropFuncEnv`` is a ``FuncEnv`` over the JAX engine, so Gymnasium's
``FunctionalJaxEnv`` gives one game (``gym.make("NumberDropJax-v0")``) and its
``FunctionalJaxVectorEnv`` N games stepped at once (``gym.make_vec("NumberDropJax-v0", N)``).
Observations and rewards are JAX arrays; ``info["action_mask"]`` is the exact mask of the state
each step returns (a game started again by the vector env's autoreset included). The vector env
writes new games into rows of its state, so the state is the engine's ``State`` packed in one
float32 vector (every value in it is a small integer, exact in float32)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces
from gymnasium.envs.functional_jax_env import FunctionalJaxEnv, FunctionalJaxVectorEnv
from gymnasium.experimental.functional import FuncEnv
from jax.flatten_util import ravel_pytree

from ..engine.rules import DEFAULT_RULES, Rules
from .env import NumberDrop
from .state import State


class _Packed:
    """The engine's functions on packed states, compiled once per set of rules and shared by every
    environment made with them (each ``gym.make`` would otherwise compile its own)."""

    def __init__(self, rules: Rules) -> None:
        self.game = NumberDrop(rules)
        _, self.unpack = ravel_pytree(self.game.init(jax.random.PRNGKey(0)))
        game = self.game
        self.initial = jax.jit(lambda key: self.pack(game.init(key)))
        self.transition = jax.jit(
            lambda s, a, key: self.pack(game.step(self.unpack(s), jnp.asarray(a, jnp.int32), key))
        )
        self.observation = jax.jit(lambda s: game.observe(self.unpack(s)))
        self.reward = jax.jit(lambda s: self.unpack(s).rewards[0])
        self.terminal = jax.jit(lambda s: self.unpack(s).terminated)
        self.mask = jax.jit(lambda s: self.unpack(s).legal_action_mask)

    @staticmethod
    def pack(state: State) -> jax.Array:
        return ravel_pytree(state)[0]


@lru_cache(maxsize=8)
def _packed(rules: Rules) -> _Packed:
    return _Packed(rules)


class NumberDropFuncEnv(FuncEnv):
    """Solo Number Drop as Gymnasium's functional env (the reward is the change of the score)."""

    def __init__(self, rules: Rules = DEFAULT_RULES) -> None:
        super().__init__()
        self.packed = _packed(rules)
        self.game = self.packed.game
        self.observation_space = spaces.Box(0.0, 1.0, self.game.observation_shape, np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self._batched_mask = jax.jit(jax.vmap(self.packed.mask))

    def unpack(self, packed: jax.Array) -> State:
        """The engine's ``State`` of one packed state."""
        return self.packed.unpack(packed)

    def initial(self, rng: Any, params: Any = None) -> jax.Array:
        return self.packed.initial(rng)

    def transition(self, state: jax.Array, action: Any, rng: Any, params: Any = None) -> jax.Array:
        return self.packed.transition(state, action, rng)

    def observation(self, state: jax.Array, rng: Any, params: Any = None) -> jax.Array:
        return self.packed.observation(state)

    def reward(self, state: jax.Array, action: Any, next_state: jax.Array, rng: Any, params: Any = None) -> jax.Array:
        return self.packed.reward(next_state)

    def terminal(self, state: jax.Array, rng: Any, params: Any = None) -> jax.Array:
        return self.packed.terminal(state)

    def state_info(self, state: jax.Array, params: Any = None) -> dict[str, jax.Array]:
        return {"action_mask": self.packed.mask(state)}

    def transition_info(self, state: jax.Array, action: Any, next_state: jax.Array, params: Any = None) -> dict:
        """The next state's mask (Gymnasium's ``transform`` leaves this function out, so it takes a
        batch as it is)."""
        mask = self._batched_mask if next_state.ndim == 2 else self.packed.mask
        return {"action_mask": mask(next_state)}


class NumberDropJaxEnv(FunctionalJaxEnv):
    """``gym.make("NumberDropJax-v0")``: one game, its functions compiled."""

    def __init__(self, rules: Rules = DEFAULT_RULES, render_mode: str | None = None, **kwargs: Any) -> None:
        if render_mode is not None:
            raise ValueError(f"NumberDropJax-v0 draws nothing (render_mode={render_mode!r}); NumberDrop-v0 does")
        super().__init__(NumberDropFuncEnv(rules), metadata={"render_modes": [], "jax": True}, **kwargs)


class NumberDropJaxVectorEnv(FunctionalJaxVectorEnv):
    """``gym.make_vec("NumberDropJax-v0", num_envs=N)``: N games a step, compiled, started again
    on the step after they end (Gymnasium's next-step autoreset: that step's action is ignored).

    ``step`` is its own: Gymnasium 1.2.2's writes the new games into the states before the step,
    so one game's reset would undo every other game's step."""

    def __init__(
        self, num_envs: int, rules: Rules = DEFAULT_RULES, render_mode: str | None = None, **kwargs: Any
    ) -> None:
        if render_mode is not None:
            raise ValueError(f"NumberDropJax-v0 draws nothing (render_mode={render_mode!r})")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        func_env = NumberDropFuncEnv(rules)
        super().__init__(func_env, int(num_envs), **kwargs)  # vmaps the functions (compiled once per rules)

    def step(self, action: Any) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array, dict]:
        """Every game's decision; the games that ended on the last step start again instead, and
        ``info["action_mask"]`` is the mask of the states returned."""
        f = self.func_env
        self.steps = self.steps + 1
        step_key, reset_key, self.rng = jax.random.split(self.rng, 3)
        keys = jax.random.split(step_key, self.num_envs)
        next_state = f.transition(self.state, jnp.asarray(action), keys)
        reward = f.reward(self.state, action, next_state, keys)
        terminated = f.terminal(next_state, keys)
        truncated = self.steps >= self.time_limit if self.time_limit > 0 else jnp.zeros_like(terminated)
        restart = self.prev_done
        if bool(jnp.any(restart)):
            fresh = f.initial(jax.random.split(reset_key, self.num_envs))
            next_state = jnp.where(restart[:, None], fresh, next_state)
            reward = jnp.where(restart, 0.0, reward)
            terminated, truncated = terminated & ~restart, truncated & ~restart
            self.steps = jnp.where(restart, 0, self.steps)
        self.prev_done = terminated | truncated
        self.state = next_state
        return f.observation(next_state, keys), reward, terminated, truncated, f.state_info(next_state)
