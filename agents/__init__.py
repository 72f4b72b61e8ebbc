"""Agents for Number Drop and Lucky Numbers, and how they are trained and compared.

The package is built in floors, each importing only the ones below it:

- :mod:`agents.base` and :mod:`agents.registry`: the policy protocol, and every agent by name
  (one table per game; agents that need an optional extra load only when asked for);
- :mod:`agents.numberdrop`, :mod:`agents.luckynumbers`: each game's policies;
- :mod:`agents.networks`: the torch networks of the learned agents;
- :mod:`agents.training` and :mod:`agents.evaluation`: one trainer and one evaluation runner
  for both games;
- :mod:`agents.cli`: the commands (argument parsing only).
"""
