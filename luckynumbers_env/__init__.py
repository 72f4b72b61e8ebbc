"""Lucky Numbers: rules engine (pure NumPy), PettingZoo environment ``lucky_numbers_v0`` and the
single-agent Gymnasium environment ``LuckyNumbers-v0`` (the other seats played by agents)."""

from gymnasium.envs.registration import register

from .actions import ActionLayout, Phase, layout_for
from .engine import Game
from .rules import DEFAULT_RULES, SETUPS, Rules

__all__ = ["DEFAULT_RULES", "SETUPS", "ActionLayout", "Game", "Phase", "Rules", "layout_for"]

# one seat of a table whose other seats are agents, so it lives with them
register(id="LuckyNumbers-v0", entry_point="agents.lucky.gym_env:LuckyNumbersEnv")
