"""Lucky Numbers: rules engine (pure NumPy), PettingZoo environment ``lucky_numbers_v0`` and the
single-agent Gymnasium environment ``LuckyNumbers-v0`` (one seat; the others played by agents).

The package is built in floors, each importing only the ones below it:
:mod:`~luckynumbers_env.engine` (the rules) ← :mod:`~luckynumbers_env.render` (the text picture) ←
:mod:`~luckynumbers_env.envs` (the environments). ``LuckyNumbers-v0`` is registered here.
"""

from gymnasium.envs.registration import register

from gamekit.aliases import register as register_second_names

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

MOVED = {
    "luckynumbers_env.actions": "luckynumbers_env.engine.actions",
    "luckynumbers_env.observe": "luckynumbers_env.envs.observe",
    "luckynumbers_env.rules": "luckynumbers_env.engine.rules",
    "luckynumbers_env.state": "luckynumbers_env.engine.persist",
}
"""Old module path -> the module that replaced it (kept for one release, with a ``DeprecationWarning``)."""

register_second_names(MOVED, public={"luckynumbers_env.lucky_numbers_v0": "luckynumbers_env.envs.lucky_numbers_v0"})
