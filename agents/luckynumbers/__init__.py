"""Lucky Numbers agents, by name in ``agents.registry.LUCKY_AGENTS``."""

from __future__ import annotations

from typing import Any

from .. import registry


def make_policy(name: str, options: dict[str, Any] | None = None) -> Any:
    """The opponents' factory that ``LuckyNumbers-v0`` loads by name (``seat.AGENT_FACTORY``)."""
    return registry.make_policy(name, options, "luckynumbers")
