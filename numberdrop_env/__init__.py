"""Number Drop: its engine and environments, every id registered here (floors: ``engine`` ←
``planner`` ← ``render`` ← ``envs``)."""

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
