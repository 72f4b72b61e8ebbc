"""Number Drop agents, by name in ``agents.registry.AGENTS`` (``docs/agents.md``)."""
