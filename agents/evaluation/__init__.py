"""Comparing agents: ``runner`` (the one game runner), ``solo`` (seeded solo games, the same for
every agent), ``tables`` (every seed under every rotation of seats), ``stats`` and ``plots``."""
