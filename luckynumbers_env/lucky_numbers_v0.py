"""``luckynumbers_env.lucky_numbers_v0``: the PettingZoo environment of Lucky Numbers by its public
name; the code is :mod:`luckynumbers_env.envs.lucky_numbers_v0` (this name is that module)."""

from gamekit.aliases import alias

alias(__name__, "luckynumbers_env.envs.lucky_numbers_v0", deprecated=False)
