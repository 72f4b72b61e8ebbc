"""Number Drop: rules engine (NumPy; the turn planner and observations compiled with numba) and
its Gymnasium and PettingZoo environments.

The package is built in floors, each importing only the ones below it:
:mod:`~numberdrop_env.engine` (the rules, pure NumPy) ← :mod:`~numberdrop_env.planner` (the turn
engine and the hand-written value) ← :mod:`~numberdrop_env.render` (text and pictures) ←
:mod:`~numberdrop_env.envs` (the environments). Every environment id is registered here:
``NumberDrop-v0`` (one decision per step), ``NumberDropTurn-v0`` (one turn per step, also as a
native vector environment), ``NumberDropTable-v0`` (one seat of a multiplayer table) and the
PettingZoo environment :mod:`numberdrop_env.multiplayer_v0`.
"""

from gymnasium.envs.registration import register

from gamekit.aliases import register as register_second_names

from .engine.actions import PERMUTATIONS, ActionLayout, Phase, layout_for
from .engine.rules import DEFAULT_RULES, EMPTY, WILD, Rules, X
from .engine.sheet import Sheet
from .engine.solo import SoloGame
from .envs import multiplayer_v0
from .envs.decision import NumberDropEnv
from .envs.seat import NumberDropTableEnv
from .envs.turn import NumberDropTurnEnv

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
register(id="NumberDropTable-v0", entry_point="numberdrop_env.envs.seat:NumberDropTableEnv")

MOVED = {
    "numberdrop_env.actions": "numberdrop_env.engine.actions",
    "numberdrop_env.candidates": "numberdrop_env.planner.candidates",
    "numberdrop_env.checks": "gamekit.checks",
    "numberdrop_env.combos": "numberdrop_env.engine.combos",
    "numberdrop_env.draw": "numberdrop_env.render.draw",
    "numberdrop_env.env": "numberdrop_env.envs.decision",
    "numberdrop_env.env_base": "numberdrop_env.envs.base",
    "numberdrop_env.heuristic": "numberdrop_env.planner.heuristic",
    "numberdrop_env.kernels": "numberdrop_env.planner.kernels",
    "numberdrop_env.multi": "numberdrop_env.engine.table",
    "numberdrop_env.observation": "numberdrop_env.envs.observe",
    "numberdrop_env.placements": "numberdrop_env.engine.placements",
    "numberdrop_env.rules": "numberdrop_env.engine.rules",
    "numberdrop_env.shapes": "numberdrop_env.engine.shapes",
    "numberdrop_env.sheet": "numberdrop_env.engine.sheet",
    "numberdrop_env.solo": "numberdrop_env.engine.solo",
    "numberdrop_env.state": "numberdrop_env.engine.persist",
    "numberdrop_env.turn_engine": "numberdrop_env.planner.turn_engine",
    "numberdrop_env.turn_env": "numberdrop_env.envs.turn",
    "numberdrop_env.turns": "numberdrop_env.planner.turns",
    "numberdrop_env.turns_reference": "numberdrop_env.planner.turns_reference",
    "numberdrop_env.vector_env": "numberdrop_env.envs.vector",
}
"""Old module path -> the module that replaced it (kept for one release, with a ``DeprecationWarning``)."""

register_second_names(MOVED, public={"numberdrop_env.multiplayer_v0": "numberdrop_env.envs.multiplayer_v0"})
