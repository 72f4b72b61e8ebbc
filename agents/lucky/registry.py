"""Lucky Numbers agents by name, for the command line and configs (``--game luckynumbers``)."""

from __future__ import annotations

from typing import Any

from .. import registry

AGENTS: dict[str, str] = {
    "random": "agents.base:RandomPolicy",  # uniform over the mask: plays any game
    "greedy": "agents.lucky.greedy:GreedyPolicy",
    "search": "agents.lucky.search:SearchPolicy",
    "ppo": "agents.lucky.ppo:PPOPolicy",
}


def policy_class(name: str) -> type:
    return registry.policy_class(name, AGENTS, game="Lucky Numbers ")


def make_policy(name: str, options: dict[str, Any] | None = None) -> Any:
    return registry.make_policy(name, options, AGENTS, game="Lucky Numbers ")
