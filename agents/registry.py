"""Agents by name, for the command line and configs.

``make_policy("search", {"width": 8})`` builds an agent; options are its
constructor's keyword arguments, so a misspelt option is a clear error.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from .base import Policy

AGENTS: dict[str, str] = {
    "random": "agents.base:RandomPolicy",
    "greedy": "agents.greedy:GreedyPolicy",
    "search": "agents.search:SearchPolicy",
    "ppo": "agents.ppo:PPOPolicy",
}


def policy_class(name: str) -> type:
    if not isinstance(name, str) or name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(AGENTS)}")
    module, attr = AGENTS[name].split(":")
    return getattr(importlib.import_module(module), attr)


def make_policy(name: str, options: dict[str, Any] | None = None) -> Policy:
    cls = policy_class(name)
    options = dict(options or {})
    params = inspect.signature(cls).parameters
    unknown = set(options) - set(params)
    if unknown:
        known = ", ".join(params) or "none"
        raise ValueError(f"agent {name!r} has no option(s) {sorted(unknown)}; its options: {known}")
    return cls(**options)


def parse_options(items: list[str], agents: list[str]) -> dict[str, dict[str, Any]]:
    """``["search.width=8", "ppo.path=m.zip"]`` -> ``{"search": {"width": 8}, ...}``."""
    out: dict[str, dict[str, Any]] = {name: {} for name in agents}
    for item in items:
        key, sep, raw = item.partition("=")
        agent, dot, option = key.partition(".")
        if not sep or not dot or not option:
            raise ValueError(f"option {item!r} must look like AGENT.NAME=VALUE")
        if agent not in out:
            raise ValueError(f"option {item!r} names agent {agent!r}, which is not among {agents}")
        out[agent][option] = _literal(raw)
    return out


def _literal(raw: str) -> Any:
    for convert in (int, float):
        try:
            return convert(raw)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(raw.lower(), raw)
