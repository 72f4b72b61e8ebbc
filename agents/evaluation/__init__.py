"""Comparing agents: :mod:`~agents.evaluation.solo` (seeded solo games, the same for every
agent), :mod:`~agents.evaluation.tables` (tables of either game, every seed under every
rotation of seats), :mod:`~agents.evaluation.ray` (the solo games as Ray tasks),
:mod:`~agents.evaluation.stats` and :mod:`~agents.evaluation.plots`."""
