"""Lucky Numbers: rules engine (pure NumPy), PettingZoo environment ``lucky_numbers_v0`` and the
single-agent Gymnasium environment ``LuckyNumbers-v0`` (one seat; the others played by agents).

The package is built in floors, each importing only the ones below it:
``engine`` (the rules) ← ``render`` (the text picture) ←
``envs`` (the environments). ``LuckyNumbers-v0`` is registered here.
"""

import sys

from gymnasium.envs.registration import register

from .engine.actions import ActionLayout, Phase, layout_for
from .engine.game import Game
from .engine.rules import DEFAULT_RULES, SETUPS, Rules
from .envs import lucky_numbers_v0
from .envs.seat import LuckyNumbersEnv

__all__ = [
    "DEFAULT_RULES",
    "SETUPS",
    "ActionLayout",
    "Game",
    "LuckyNumbersEnv",
    "Phase",
    "Rules",
    "layout_for",
    "lucky_numbers_v0",
]

register(id="LuckyNumbers-v0", entry_point="luckynumbers_env.envs.seat:LuckyNumbersEnv")

# `import luckynumbers_env.lucky_numbers_v0` and `from luckynumbers_env import lucky_numbers_v0`
# give the one module, as PettingZoo's environments are named
sys.modules[__name__ + ".lucky_numbers_v0"] = lucky_numbers_v0
