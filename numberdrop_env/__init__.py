"""Number Drop: rules engine (NumPy; the turn planner and observations compiled with numba) and
its Gymnasium and PettingZoo environments.

The package is built in floors, each importing only the ones below it:
``engine`` (the rules, pure NumPy) ← ``planner`` (the turn
engine and the hand-written value) ← ``render`` (text and pictures) ←
``envs`` (the environments). Every environment id is registered here:
``NumberDrop-v0`` (one decision per step), ``NumberDropTurn-v0`` (one turn per step, also as a
native vector environment), ``NumberDropTable-v0`` (one seat of a multiplayer table) and the
PettingZoo environment ``numberdrop_env.multiplayer_v0``.
"""

import sys

from gymnasium.envs.registration import register

from .engine.actions import PERMUTATIONS, ActionLayout, Phase, layout_for
from .engine.rules import DEFAULT_RULES, EMPTY, WILD, Rules, X
from .engine.sheet import Sheet
from .engine.solo import SoloGame
from .envs import multiplayer_v0
from .envs.decision import NumberDropEnv
from .envs.table import NumberDropTableEnv
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
register(id="NumberDropTable-v0", entry_point="numberdrop_env.envs.table:NumberDropTableEnv")

# `import numberdrop_env.multiplayer_v0` and `from numberdrop_env import multiplayer_v0` give the
# one module, as PettingZoo's environments are named (os.path is bound the same way)
sys.modules[__name__ + ".multiplayer_v0"] = multiplayer_v0
