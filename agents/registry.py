"""Agents by name, one table per game: ``make_policy("search", {"width": 8})``, options being the
constructor's keyword arguments. An entry is ``"module:Class [extra]"``; ``load`` checks the
extra's packages first, so a missing one names the extra to install (trainers load alike)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only annotations: reading the tables (a training config does) imports no game
    from .base import Policy

EXTRAS: dict[str, tuple[str, ...]] = {
    "train": ("torch", "stable_baselines3", "sb3_contrib"),
    "rllib": ("torch", "ray"),
    "jax": ("jax", "optax"),
}
"""The packages of each optional extra of ``numberdrop-env`` that its users import."""

PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "best": ("q", {"lookahead": 32, "samples": 8, "refine": 3}),
    "ntuple_expectimax": ("ntuple", {"top": 8, "rolls": 16}),
}
"""Shipped agents worth choosing by name: a registered agent and its options (``--option``
overrides them); ``best`` is the strongest (about 2.4 CPU-s a game), ``ntuple_expectimax`` the
strongest without torch (about 1 CPU-s)."""

_CLASSES: dict[str, str] = {
    "random": "agents.base:RandomPolicy",
    "greedy": "agents.numberdrop.greedy:GreedyPolicy",
    "search": "agents.numberdrop.lookahead:SearchPolicy",
    "ntuple": "agents.numberdrop.ntuple:NTuplePolicy",
    "ppo": "agents.numberdrop.network:PPOPolicy [train]",
    "q": "agents.numberdrop.network:QPolicy [train]",
    "rllib": "agents.numberdrop.rllib:RLlibPolicy [rllib]",
    "jax_ppo": "agents.numberdrop.jax_ppo:JaxPPOPolicy [jax]",
}
AGENTS: dict[str, str] = {**_CLASSES, **{name: _CLASSES[base] for name, (base, _) in PRESETS.items()}}

LUCKY_AGENTS: dict[str, str] = {
    "random": "agents.base:RandomPolicy",  # uniform over the mask: plays any game
    "greedy": "agents.luckynumbers.greedy:GreedyPolicy",
    "search": "agents.luckynumbers.search:SearchPolicy",
    "ppo": "agents.luckynumbers.ppo:PPOPolicy [train]",
}

GAMES: dict[str, dict[str, str]] = {"numberdrop": AGENTS, "luckynumbers": LUCKY_AGENTS}
GAME_NAMES = {"numberdrop": "Number Drop", "luckynumbers": "Lucky Numbers"}


def in_checkout() -> bool:
    """Whether these packages run from a checkout of the project (its ``pyproject.toml`` beside
    them) rather than from an installed wheel."""
    return (Path(__file__).resolve().parents[1] / "pyproject.toml").is_file()


def install_command(extra: str) -> str:
    """The command that adds ``extra`` to the install the user has: the package from the index,
    or the checkout itself, editable."""
    return f"pip install -e '.[{extra}]'" if in_checkout() else f"pip install 'numberdrop-env[{extra}]'"


def require_extra(extra: str, what: str, modules: tuple[str, ...] = ()) -> None:
    """An ``ImportError`` naming the extra to install when one of its packages (or of ``modules``)
    is missing."""
    absent = next((m for m in modules or EXTRAS[extra] if importlib.util.find_spec(m) is None), None)
    if absent is not None:
        raise ImportError(f"{what} needs the `{extra}` extra ({absent} is not installed): {install_command(extra)}")


def require_entry(entry: str, what: str = "") -> None:
    """The ``ImportError`` of ``require_extra`` when the extra an entry needs is missing, importing
    nothing (a command checks before it starts work)."""
    target, _, extra = entry.partition("[")
    if extra:
        require_extra(extra.rstrip("] "), what or target.strip().partition(":")[0])


def load(entry: str, what: str = "") -> Any:
    """The object an entry names: ``"module:attr"``, optionally followed by ``[extra]``."""
    require_entry(entry, what)
    module, _, attr = entry.partition("[")[0].strip().partition(":")
    return getattr(importlib.import_module(module), attr)


def agents_of(game: str) -> dict[str, str]:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    return GAMES[game]


def policy_class(name: str, game: str = "numberdrop") -> type:
    """The class registered as ``name`` for ``game`` (``ImportError`` naming the extra it needs)."""
    agents = agents_of(game)
    if not isinstance(name, str) or name not in agents:
        label = "" if game == "numberdrop" else GAME_NAMES[game] + " "
        raise ValueError(f"unknown {label}agent {name!r}; known agents: {', '.join(agents)}")
    return load(agents[name], f"the {GAME_NAMES[game]} agent {name!r}")


def preset_options(name: str, game: str = "numberdrop") -> dict[str, Any]:
    """The options a preset name stands for (none for a plain class)."""
    return dict(PRESETS[name][1]) if game == "numberdrop" and name in PRESETS else {}


def make_policy(name: str, options: dict[str, Any] | None = None, game: str = "numberdrop") -> Policy:
    """The agent registered as ``name``; ``options`` override a preset's own."""
    cls = policy_class(name, game)
    options = {**preset_options(name, game), **(options or {})}
    params = inspect.signature(cls).parameters
    unknown = set(options) - set(params)
    if unknown:
        known = ", ".join(params) or "none"
        raise ValueError(f"agent {name!r} has no option(s) {sorted(unknown)}; its options: {known}")
    return cls(**options)


_BUILT: dict[str, Policy] = {}


def cached_policy(name: str, options: dict[str, Any] | None = None, game: str = "numberdrop", seat: int = 0) -> Policy:
    """The agent built once per process (a worker plays many games; a model loads once), one
    instance per ``seat`` of a table."""
    key = json.dumps([game, name, agents_of(game).get(name), options or {}, seat], sort_keys=True, default=str)
    if key not in _BUILT:
        _BUILT[key] = make_policy(name, options, game)
    return _BUILT[key]


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


def describe_options(
    game: str = "numberdrop", heading: str = "agent options (set with --option AGENT.NAME=VALUE; defaults shown):"
) -> str:
    """Every agent's options with their defaults, read off the constructors so --help cannot go stale."""
    agents = agents_of(game)
    pad = max(map(len, agents)) + 4
    wrap = {"subsequent_indent": " " * pad, "break_long_words": False, "break_on_hyphens": False}
    lines = [textwrap.fill(_option_list(n, game), 79, initial_indent=f"  {n}:".ljust(pad), **wrap) for n in agents]
    return "\n".join([heading, *lines])


def _option_list(name: str, game: str) -> str:
    try:
        params = inspect.signature(policy_class(name, game)).parameters.values()
    except ImportError as err:  # an optional dependency missing must not break --help
        return f"(unavailable: {err})"
    if preset := preset_options(name, game):
        return f"{PRESETS[name][0]} with " + ", ".join(f"{key}={value}" for key, value in preset.items())
    shown = [p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default}" for p in params]
    return ", ".join(shown) or "none"
