"""Agents for Number Drop and Lucky Numbers, and how they are trained and compared.

The package is built in floors, each importing only the ones below it:

- ``agents.base`` and ``agents.registry``: the policy protocol, and every agent by name
  (one table per game; agents that need an optional extra load only when asked for);
- ``agents.networks`` and ``agents.values``: the torch networks of the learned agents, and
  the torch-free n-tuple value;
- ``agents.numberdrop``, ``agents.luckynumbers``: each game's policies;
- ``agents.training`` and ``agents.evaluation``: one trainer and one evaluation runner
  for both games;
- ``agents.cli``: the commands (argument parsing only); ``python -m agents.warmup`` compiles
  the engine's and the agents' numba code ahead of first use.
"""
