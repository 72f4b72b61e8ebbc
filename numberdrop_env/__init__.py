"""Number Drop: its engine and environments, every id registered here (floors: ``engine`` ←
``planner`` ← ``render`` ← ``envs``; ``functional``, the game in JAX, beside them on the engine).

The names below are loaded when first used, so ``import numberdrop_env.functional`` loads neither
numba nor the environments."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from gymnasium.envs.registration import register

if TYPE_CHECKING:  # what ``_LAZY`` loads, for type checkers and the API pages' static reading
    from .engine.actions import PERMUTATIONS, ActionLayout, Phase, layout_for
    from .engine.rules import DEFAULT_RULES, EMPTY, WILD, Rules, X
    from .engine.sheet import Sheet
    from .engine.solo import SoloGame
    from .envs import multiplayer_v0
    from .envs.decision import NumberDropEnv
    from .envs.table import NumberDropTableEnv
    from .envs.turn import NumberDropTurnEnv

_LAZY = {
    "PERMUTATIONS": ".engine.actions",
    "ActionLayout": ".engine.actions",
    "Phase": ".engine.actions",
    "layout_for": ".engine.actions",
    "DEFAULT_RULES": ".engine.rules",
    "EMPTY": ".engine.rules",
    "WILD": ".engine.rules",
    "Rules": ".engine.rules",
    "X": ".engine.rules",
    "Sheet": ".engine.sheet",
    "SoloGame": ".engine.solo",
    "NumberDropEnv": ".envs.decision",
    "NumberDropTableEnv": ".envs.table",
    "NumberDropTurnEnv": ".envs.turn",
}

__all__ = [
    "DEFAULT_RULES",
    "EMPTY",
    "PERMUTATIONS",
    "WILD",
    "X",
    "ActionLayout",
    "NumberDropEnv",
    "NumberDropTableEnv",
    "NumberDropTurnEnv",
    "Phase",
    "Rules",
    "Sheet",
    "SoloGame",
    "layout_for",
    "multiplayer_v0",
]

__version__ = "0.1.0"

register(id="NumberDrop-v0", entry_point="numberdrop_env.envs.decision:NumberDropEnv")
register(
    id="NumberDropTurn-v0",
    entry_point="numberdrop_env.envs.turn:NumberDropTurnEnv",
    vector_entry_point="numberdrop_env.envs.vector:NumberDropTurnVectorEnv",
)
register(id="NumberDropTable-v0", entry_point="numberdrop_env.envs.table:NumberDropTableEnv")
register(  # the game in JAX (the jax extra); the entry points load nothing until made
    id="NumberDropJax-v0",
    entry_point="numberdrop_env.functional.gym_env:NumberDropJaxEnv",
    vector_entry_point="numberdrop_env.functional.gym_env:NumberDropJaxVectorEnv",
)


def __getattr__(name: str) -> Any:
    """A name of ``__all__``, imported on first use (PEP 562) and kept."""
    if name == "multiplayer_v0":
        value: Any = importlib.import_module(".multiplayer_v0", __name__)
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
