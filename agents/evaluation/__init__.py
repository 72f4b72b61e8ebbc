"""Comparing agents: ``runner`` (the one game runner, in this process, on worker processes or,
with ``ray``, as Ray tasks, and the games it plays), ``solo`` (seeded solo games,
the same for every agent), ``tables`` (tables of either game, every seed under every rotation
of seats), ``stats`` and ``plots``."""
