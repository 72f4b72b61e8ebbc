"""``import numberdrop_env.multiplayer_v0`` gives ``numberdrop_env.envs.multiplayer_v0`` itself, as
PettingZoo's environments are named (the import system returns what ``sys.modules`` holds)."""

import sys

from .envs import multiplayer_v0

sys.modules[__name__] = multiplayer_v0
