"""Comparing agents: ``solo`` (seeded solo games, the same for every
agent), ``tables`` (tables of either game, every seed under every
rotation of seats), ``ray`` (the solo games as Ray tasks),
``stats`` and ``plots``."""
