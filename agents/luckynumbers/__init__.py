"""Lucky Numbers agents, by name in ``agents.registry.LUCKY_AGENTS``."""
