"""Agents for Number Drop and Lucky Numbers, and how they are trained and compared.

The package is built in floors, each importing only the ones below it:

- :mod:`agents.base` and :mod:`agents.registry`: the policy protocol, and every agent by name
  (one table per game; agents that need an optional extra load only when asked for);
- :mod:`agents.numberdrop`, :mod:`agents.luckynumbers`: each game's policies;
- :mod:`agents.networks`: the torch networks of the learned agents;
- :mod:`agents.training` and :mod:`agents.evaluation`: one trainer and one evaluation runner
  for both games;
- :mod:`agents.cli`: the commands (argument parsing only).

Module paths of the previous release (``agents.evaluate``, ``agents.greedy``, ``agents.ppo`` ...)
still import for one release, with a ``DeprecationWarning``: :data:`MOVED` lists them.
``python -m agents.evaluate`` and ``python -m agents.play`` run their commands as before.
"""

from __future__ import annotations

from gamekit.aliases import register

MOVED = {
    "agents.greedy": "agents.numberdrop.greedy",
    "agents.search": "agents.numberdrop.search",
    "agents.ppo": "agents.numberdrop.ppo",
    "agents.rllib_agent": "agents.numberdrop.rllib",
    "agents.lucky.base": "agents.luckynumbers.base",
    "agents.lucky.greedy": "agents.luckynumbers.greedy",
    "agents.lucky.search": "agents.luckynumbers.search",
    "agents.lucky.ppo": "agents.luckynumbers.ppo",
    "agents.lucky.value": "agents.luckynumbers.value",
    "agents.lucky.registry": "agents.luckynumbers",
    "agents.lucky.evaluate": "agents.evaluation.tables",
    "agents.lucky.imitation": "agents.training.imitation",
    "agents.lucky.train": "agents.training.config",
    "agents.candidate_policy": "agents.networks.candidate",
    "agents.features": "agents.networks.grid",
    "agents.rllib_module": "agents.networks.rllib_module",
    "agents.config": "agents.training.config",
    "agents.rllib_config": "agents.training.config",
    "agents.checkpoints": "agents.training.checkpoints",
    "agents.resume": "agents.training.resume",
    "agents.vec_env": "agents.training.vec_env",
    "agents.imitation": "agents.training.imitation",
    "agents.rllib_train": "agents.training.rllib.train",
    "agents.rllib_env": "agents.training.rllib.env",
    "agents.table_eval": "agents.evaluation.tables",
    "agents.ray_eval": "agents.evaluation.ray",
    "agents.stats": "agents.evaluation.stats",
    "agents.evaluate": "agents.cli.evaluate",
    "agents.plots": "agents.cli.plots",
    "agents.play": "agents.cli.play",
    "agents.human": "agents.cli.human",
    "agents.replay": "agents.cli.replay",
    "agents.table_env": "numberdrop_env.envs.seat",
    "agents.lucky.gym_env": "luckynumbers_env.envs.seat",
}
"""Old module path -> the module that replaced it (kept for one release)."""


register(MOVED)
