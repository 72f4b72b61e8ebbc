"""Comparing agents: ``runner`` (the one game runner, in this process, on worker processes or,
with ``ray``, as Ray tasks), ``games`` (one game of each kind), ``solo`` (seeded solo games,
the same for every agent), ``tables`` (tables of either game, every seed under every rotation
of seats), ``stats`` and ``plots``."""
