"""Agents built once per worker thread and shared by every game: a game's ``SharedLine`` keeps only
the agent's per-game state (generators, plan), lent to the thread's instance while it asks."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import reduce
from typing import Any

import numpy as np

from agents.numberdrop.greedy import PlanFollower
from agents.registry import AGENTS, require_extra

from . import analysis
from .analysis import AgentLine
from .sessions import GameError, GameSession

Path = tuple[str, ...]
State = dict[Path, Any]

UNOFFERED = {
    "rllib": "the rllib agent needs a checkpoint (--option rllib.path=...), which the web app does not take",
}
"""Registered agents the web app cannot build from their name alone, and why."""


def unavailable(name: str) -> str | None:
    """Why agent ``name`` cannot play here (``None`` when it can): it needs an option the page
    cannot give, or an extra that is not installed."""
    if name in UNOFFERED:
        return UNOFFERED[name]
    extra = AGENTS[name].partition("[")[2].rstrip("] ")
    try:
        if extra:
            require_extra(extra, f"the agent {name!r}")
    except ImportError as err:
        return str(err)
    return None


def offered_agents() -> list[str]:
    """The registry's agents that can play here, in the registry's order."""
    return [name for name in AGENTS if unavailable(name) is None]


def check_offered(name: Any) -> str:
    """``name`` when it is a registered agent that can play here; else a 400 that says why."""
    if not isinstance(name, str):
        raise GameError(f"agent must be a string, got {type(name).__name__}", 400)
    if name not in AGENTS:
        raise GameError(f"unknown agent {name!r}; known agents: {', '.join(AGENTS)}", 400)
    why = unavailable(name)
    if why is not None:
        raise GameError(f"agent {name!r} is not offered: {why}; offered: {', '.join(offered_agents())}", 400)
    return name


def state_paths(obj: Any, prefix: Path = (), depth: int = 0) -> Iterator[Path]:
    """Where an agent keeps per-game state: its generators and plan followers, and its parts'."""
    for name, value in vars(obj).items():
        if isinstance(value, (np.random.Generator, PlanFollower)):
            yield (*prefix, name)
        elif depth < 3 and type(value).__module__.startswith("agents.") and hasattr(value, "__dict__"):
            yield from state_paths(value, (*prefix, name), depth + 1)


def take(policy: Any, paths: list[Path]) -> State:
    return {path: reduce(getattr, path, policy) for path in paths}


def put(policy: Any, state: State) -> None:
    for path, value in state.items():
        setattr(reduce(getattr, path[:-1], policy), path[-1], value)


class Built:
    """One thread's instance of an agent, and the state it had when built."""

    def __init__(self, name: str, make: Callable[[str], Any]) -> None:
        self.policy = make(name)
        self.paths = list(state_paths(self.policy))
        self.pristine = copy.deepcopy(take(self.policy, self.paths))

    def fresh(self, seed: int) -> Any:
        """The instance as if just built, then reset with ``seed``."""
        put(self.policy, copy.deepcopy(self.pristine))
        self.policy.reset(seed)
        return self.policy


_LOCAL = threading.local()


def built(name: str) -> Built:
    """This thread's instance of agent ``name``, built on first use by ``analysis.make_policy``
    (read when asked: a test that replaces it gets instances of its own)."""
    agents = _LOCAL.__dict__.setdefault("agents", {})
    key = (name, analysis.make_policy)
    if key not in agents:
        agents[key] = Built(name, analysis.make_policy)
    return agents[key]


def built_count() -> int:
    """Instances built by this thread (a test reads it)."""
    return len(_LOCAL.__dict__.get("agents", {}))


class SharedLine(AgentLine):
    """An agent's line for one game, played by the thread's shared instance of the agent."""

    def __init__(self, name: str, session: GameSession) -> None:
        super().__init__(name, session)
        self._state: State | None = None
        self._lent: Built | None = None

    def policy(self, on_line: bool, key: str) -> Any:
        agent = built(self.name)
        if not on_line:
            return agent.fresh(int(key[:12], 16))
        self._lent = agent
        if self._state is None:
            return agent.fresh(self.seed)
        put(agent.policy, self._state)
        return agent.policy

    def built(self, on_line: bool) -> bool:  # noqa: ARG002 - one instance per thread serves both
        return (self.name, analysis.make_policy) in _LOCAL.__dict__.get("agents", {})

    @contextmanager
    def asking(self) -> Iterator[None]:
        """The line's state is taken back from the instance it was lent to once asked."""
        with self.lock:
            try:
                yield
            finally:
                if self._lent is not None:
                    self._state = take(self._lent.policy, self._lent.paths)
                    self._lent = None


def line_of(session: GameSession, agent: str, kind: type[AgentLine] = SharedLine) -> AgentLine:
    """The session's line of ``agent``, made on first use (``kind=AgentLine``: with an agent of
    its own, as the memory benchmark compares)."""
    with session.lock:
        lines = session.extra.setdefault("lines", {})
        if agent not in lines:
            lines[agent] = kind(agent, session)
        return lines[agent]
