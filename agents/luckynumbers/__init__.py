"""Lucky Numbers agents: ``greedy``, ``search`` and ``ppo`` (a MaskablePPO model, the ``train``
extra), by name in ``agents.registry.LUCKY_AGENTS``;
``numberdrop-evaluate --game luckynumbers --players 4`` compares them."""

from __future__ import annotations

from typing import Any

from .. import registry


def make_policy(name: str, options: dict[str, Any] | None = None) -> Any:
    return registry.make_policy(name, options, "luckynumbers")
