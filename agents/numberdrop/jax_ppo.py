"""The ``jax_ppo`` agent: a network trained by ``agents.training.jax_ppo`` playing the engine's
games. Each decision the game becomes the functional engine's ``State`` (``from_game``), which it
observes as in training; the network's masked argmax over the flat actions is the move."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from numberdrop_env.engine.solo import SoloGame

from ..base import MODELS
from ..networks import jax_policy

JAX_MODEL = MODELS / "jax_ppo.npz"
"""The shipped network (``configs/jax_ppo.yaml``, ``ship_to``)."""


class JaxPPOPolicy:
    """Masked argmax of a JAX PPO network over ``NumberDrop-v0``'s 412 actions."""

    name = "jax_ppo"

    def __init__(self, path: str | Path = JAX_MODEL) -> None:
        from numberdrop_env.functional import NumberDrop, from_game

        params, meta = jax_policy.load(path)
        if meta.get("env", "numberdrop") != "numberdrop":
            raise ValueError(f"{path} plays {meta['env']!r}, not Number Drop")
        self.path, self.env, self.from_game = str(path), NumberDrop(), from_game
        if meta.get("num_actions", self.env.num_actions) != self.env.num_actions:
            raise ValueError(
                f"{path}: a network of {meta['num_actions']} actions, the engine has {self.env.num_actions}"
            )
        self.params = params
        env, net = self.env, jax_policy.make_apply(jax_policy.layout(self.env.rules))

        def choose(params: jax_policy.Params, state: object, mask: jax.Array) -> jax.Array:
            logits, _ = net(params, env.observe(state), mask)
            return jnp.argmax(logits)

        self._choose = jax.jit(choose)

    def reset(self, seed: int) -> None:
        pass

    def act(self, game: SoloGame, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        state = self.from_game(game)
        return int(self._choose(self.params, state, jnp.asarray(mask, bool)))

    def __getstate__(self) -> dict[str, str]:  # a worker loads the network again (jitted code does not pickle)
        return {"path": self.path}

    def __setstate__(self, state: dict[str, str]) -> None:
        self.__init__(state["path"])
