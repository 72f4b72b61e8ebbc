"""Number Drop: rules engine (NumPy; the turn planner and observations compiled with numba) and
Gymnasium environments ``NumberDrop-v0`` (one decision per step) and ``NumberDropTurn-v0`` (one
turn per step, also as a native vector environment)."""

from gymnasium.envs.registration import register

from .actions import PERMUTATIONS, ActionLayout, Phase, layout_for
from .rules import DEFAULT_RULES, EMPTY, WILD, X, Rules
from .sheet import Sheet
from .solo import SoloGame

__all__ = ["DEFAULT_RULES", "EMPTY", "PERMUTATIONS", "WILD", "X", "ActionLayout", "NumberDropEnv", "NumberDropTurnEnv", "Phase",
           "Rules", "Sheet", "SoloGame", "layout_for"]

__version__ = "0.1.0"

register(id="NumberDrop-v0", entry_point="numberdrop_env.env:NumberDropEnv")
register(id="NumberDropTurn-v0", entry_point="numberdrop_env.turn_env:NumberDropTurnEnv",
         vector_entry_point="numberdrop_env.vector_env:NumberDropTurnVectorEnv")
# one seat of a multiplayer table; its opponents are agents, so it lives with them
register(id="NumberDropTable-v0", entry_point="agents.table_env:NumberDropTableEnv")


def __getattr__(name: str):
    if name == "NumberDropEnv":
        from .env import NumberDropEnv

        return NumberDropEnv
    if name == "NumberDropTurnEnv":
        from .turn_env import NumberDropTurnEnv

        return NumberDropTurnEnv
    raise AttributeError(name)
