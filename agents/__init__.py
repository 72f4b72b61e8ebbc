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

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

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
}
"""Old module path -> the module that replaced it (kept for one release)."""


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old path as the new module itself (so classes, pickles and isinstance agree),
    with a ``DeprecationWarning``; ``python -m OLD`` runs the new module's code, silently."""

    def find_spec(self, name, path=None, target=None):  # noqa: ARG002 - the MetaPathFinder signature
        return importlib.util.spec_from_loader(name, self) if name in MOVED else None

    def create_module(self, spec):
        warnings.warn(f"{spec.name} is deprecated and will be removed in the next release: "
                      f"import {MOVED[spec.name]} instead", DeprecationWarning, stacklevel=2)
        return importlib.import_module(MOVED[spec.name])

    def exec_module(self, module) -> None:
        pass  # the new module is already executed

    def get_code(self, name):
        new = MOVED[name]
        return importlib.util.find_spec(new).loader.get_code(new)


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.insert(0, _MovedModules())
