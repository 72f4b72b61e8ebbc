"""Agents by name, for the command line and configs.

``make_policy("search", {"width": 8})`` builds an agent; options are its
constructor's keyword arguments, so a misspelt option is a clear error.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import textwrap
from typing import Any

from .base import Policy

AGENTS: dict[str, str] = {
    "random": "agents.base:RandomPolicy",
    "greedy": "agents.greedy:GreedyPolicy",
    "search": "agents.search:SearchPolicy",
    "ppo": "agents.ppo:PPOPolicy",
    "rllib": "agents.rllib_agent:RLlibPolicy",  # needs the `rllib` extra
}


def policy_class(name: str, agents: dict[str, str] = AGENTS, game: str = "") -> type:
    """The class registered as ``name`` in ``agents`` (another game passes its own table)."""
    if not isinstance(name, str) or name not in agents:
        raise ValueError(f"unknown {game}agent {name!r}; known agents: {', '.join(agents)}")
    module, attr = agents[name].split(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except ImportError as err:  # e.g. the ppo agent without torch
        raise ImportError(f"the {game}agent {name!r} needs {err.name or 'a package'} that is not installed: "
                          f"pip install -e '.[train]' (the trained agents' extra), then try again") from err


def make_policy(name: str, options: dict[str, Any] | None = None, agents: dict[str, str] = AGENTS,
                game: str = "") -> Policy:
    cls = policy_class(name, agents, game)
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


def describe_options(width: int = 79, agents: dict[str, str] = AGENTS,
                     heading: str = "agent options (set with --option AGENT.NAME=VALUE; defaults shown):") -> str:
    """Every agent's options with their defaults, read off the constructors so --help cannot go stale."""
    lines = [heading]
    pad = max(map(len, agents)) + 4
    for name in agents:
        text = textwrap.fill(_option_list(name, agents), width, initial_indent=f"  {name}:".ljust(pad),
                             subsequent_indent=" " * pad, break_long_words=False, break_on_hyphens=False)
        lines.append(text)
    return "\n".join(lines)


def _option_list(name: str, agents: dict[str, str] = AGENTS) -> str:
    try:
        params = inspect.signature(policy_class(name, agents)).parameters.values()
    except ImportError as err:  # an optional dependency missing must not break --help
        return f"(unavailable: {err})"
    shown = [p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default}" for p in params]
    return ", ".join(shown) or "none"


def plain_text(doc: str) -> str:
    """A docstring without its RST markup (``code``, :role:`x`), for terminal help."""
    return re.sub(r":[\w:]+:`~?([^`]*)`", r"\1", doc).replace("``", "")


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows defaults and keeps the line breaks of the description and of the option list."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.default == []:
            return action.help  # "(default: None)" or "(default: [])" says nothing
        return super()._get_help_string(action)
