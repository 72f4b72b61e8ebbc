"""The JAX learner's network (``agents.training.jax_ppo``, played by the ``jax_ppo`` agent): an
MLP over ``observe(state)`` with a masked policy head over the flat actions and a value head, as
plain JAX functions of a parameter dict (no torch, no flax), saved as one ``.npz``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

Params = dict[str, Any]
NEG = -1e9
"""The logit of a masked action (finite, so a softmax of an all-masked row stays defined)."""


def _dense(key: jax.Array, n_in: int, n_out: int, scale: float) -> dict[str, jax.Array]:
    """An orthogonal layer (PureJaxRL's init) of gain ``scale``, bias 0."""
    w = jax.nn.initializers.orthogonal(scale)(key, (n_in, n_out), jnp.float32)
    return {"w": w, "b": jnp.zeros((n_out,), jnp.float32)}


def init_params(key: jax.Array, obs_size: int, num_actions: int, hidden: Sequence[int]) -> Params:
    """Separate actor and critic torsos of ``hidden`` widths (tanh); the policy head starts small
    (gain 0.01), so the first policy is near uniform over the legal actions."""
    keys = iter(jax.random.split(key, 2 * len(hidden) + 2))
    params: Params = {}
    for part in ("actor", "critic"):
        n = obs_size
        for i, width in enumerate(hidden):
            params[f"{part}_{i}"] = _dense(next(keys), n, width, float(np.sqrt(2)))
            n = width
    params["pi"] = _dense(next(keys), hidden[-1], num_actions, 0.01)
    params["v"] = _dense(next(keys), hidden[-1], 1, 1.0)
    return params


def depth(params: Params) -> int:
    return sum(1 for k in params if k.startswith("actor_"))


def _torso(params: Params, part: str, x: jax.Array) -> jax.Array:
    for i in range(depth(params)):
        layer = params[f"{part}_{i}"]
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x


def apply(params: Params, obs: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Masked logits (``NEG`` where ``mask`` is false) and the value, for one or a batch of observations."""
    obs = obs.astype(jnp.float32)
    logits = _torso(params, "actor", obs) @ params["pi"]["w"] + params["pi"]["b"]
    value = (_torso(params, "critic", obs) @ params["v"]["w"] + params["v"]["b"])[..., 0]
    return jnp.where(mask, logits, NEG), value


def flatten(params: Params) -> dict[str, np.ndarray]:
    return {f"{name}/{k}": np.asarray(v) for name, layer in params.items() for k, v in layer.items()}


def unflatten(arrays: dict[str, np.ndarray]) -> Params:
    params: Params = {}
    for key, value in arrays.items():
        if "/" in key:
            name, k = key.split("/", 1)
            params.setdefault(name, {})[k] = jnp.asarray(value)
    return params


def save(path: str | Path, params: Params, meta: dict[str, Any]) -> None:
    """The parameters and ``meta`` (what the network plays: env, sizes) in one ``.npz``."""
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(json.dumps(meta)), **flatten(params))


def load(path: str | Path) -> tuple[Params, dict[str, Any]]:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"JAX policy {str(path)!r} not found (train one with a configs/jax_ppo*.yaml)")
    with np.load(path) as data:
        arrays = dict(data)
    meta = json.loads(str(arrays.pop("__meta__"))) if "__meta__" in arrays else {}
    return unflatten(arrays), meta
