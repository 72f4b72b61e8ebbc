"""Solo Number Drop in JAX: the engine's game as pure functions of a pytree ``State``, for ``jit``,
``vmap`` and search on an accelerator. Imports no numba, Gymnasium or torch; ``from_game`` and
``to_game`` (which need the engine's ``SoloGame``) load it when first asked for.

    from numberdrop_env.functional import NumberDrop
    env = NumberDrop()
    state = env.init(jax.random.PRNGKey(0))
    state = env.step(state, action, key)
"""

from __future__ import annotations

import importlib
from typing import Any

from .env import NumberDrop
from .state import State

__all__ = ["NumberDrop", "State", "breakdown", "from_game", "game_fields", "to_game"]

_CONVERTERS = ("from_game", "to_game", "game_fields")


def breakdown(state: State, rules: Any = None) -> dict[str, Any]:
    """The score by its parts in the engine's terms (``NumberDrop.breakdown``)."""
    return (NumberDrop() if rules is None else NumberDrop(rules)).breakdown(state)


def __getattr__(name: str) -> Any:
    if name in _CONVERTERS:
        return getattr(importlib.import_module(".convert", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
