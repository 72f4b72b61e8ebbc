"""Lucky Numbers: its engine, the PettingZoo ``lucky_numbers_v0`` and ``LuckyNumbers-v0``,
registered here (floors: ``engine`` ← ``render`` ← ``envs``)."""

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
