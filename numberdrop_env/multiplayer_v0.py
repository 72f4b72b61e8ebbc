"""``numberdrop_env.multiplayer_v0``: the PettingZoo environment of a Number Drop table by its
public name; the code is :mod:`numberdrop_env.envs.multiplayer_v0` (this name is that module)."""

from gamekit.aliases import alias

alias(__name__, "numberdrop_env.envs.multiplayer_v0", deprecated=False)
