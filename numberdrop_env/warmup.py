"""Compile the engine's numba code ahead of its first use: ``python -m numberdrop_env.warmup``.

``warm_up`` plays a few small deterministic games through the real code paths (``_STEPS``), then
the steps other packages register as entry points of the group ``numberdrop_env.warmup`` (the
agents' n-tuple kernels), so that numba's on-disk cache holds what the environments' first
steps would otherwise compile. The cache itself: ``numberdrop_env.numba_cache``.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import gymnasium as gym
import numpy as np

from . import numba_cache, startup
from .compile_progress import CompileProgress
from .engine.actions import Phase
from .engine.solo import SoloGame
from .engine.table import Table
from .planner.turns import TURN_PHASES, TurnPlanner

__all__ = ["Step", "cli", "warm_up"]


@dataclass(frozen=True)
class Step:
    """One step of ``warm_up``: what it ran and how long it took."""

    name: str
    seconds: float
    detail: str = ""


def warm_up(
    stream: TextIO | None = None,
    after: Callable[[Step], None] | None = None,
    only: Iterable[str] | None = None,
    extra: Sequence[tuple[str, Callable[[], object]]] = (),
) -> list[Step]:
    """Compile (or load from numba's cache) every compiled function the environments and agents
    use, by playing small deterministic games; returns the steps it ran. With a ``stream``, one
    line per step and a total; ``after`` is called with each step once it has run (work needing
    only the first steps' code can start before the rest); ``only`` names the steps to run."""
    numba_cache.silence()  # the environments built here need no hint that their first steps compile
    plan, start = _plan(only, extra), time.perf_counter()
    steps: list[Step] = []
    # this process compiles: nothing of it may be interpreted
    with startup.suspended(), CompileProgress(stream, total=len(plan), desc="warming up") as progress:
        for i, (name, run) in enumerate(plan):
            progress.step(f"[{i + 1}/{len(plan)}] {name}")
            t = time.perf_counter()
            detail = run()
            progress.advance()
            steps.append(Step(name, time.perf_counter() - t, detail))
            if stream is not None:
                progress.write(f"{name}: {steps[-1].seconds:.2f} s ({detail})")
            if after is not None:
                after(steps[-1])
        if only is None:  # every entry point must be compiled after
            missed = numba_cache.not_compiled([n for names in numba_cache.ENTRY_POINTS.values() for n in names])
            if missed:
                raise RuntimeError(f"warm_up's games did not compile {', '.join(missed)}: extend its steps")
        numba_cache.write_record()
    if stream is not None:
        where = ", ".join(numba_cache.cache_dirs()) or "none (numba caching unavailable)"
        print(f"total: {time.perf_counter() - start:.2f} s; numba cache: {where}", file=stream, flush=True)
    return steps


def extra_steps() -> list[tuple[str, Callable[[], str]]]:
    """Other packages' warm-ups, entry points of the group ``numberdrop_env.warmup`` (this package
    may not import the agents): each called with no argument, maybe returning a line."""
    from importlib.metadata import entry_points

    return [(ep.name, _described(ep.load())) for ep in sorted(entry_points(group=EXTRA_GROUP), key=lambda e: e.name)]


EXTRA_GROUP = "numberdrop_env.warmup"


def _described(run: Callable[[], object]) -> Callable[[], str]:
    def step() -> str:
        out = run()
        return out if isinstance(out, str) else "compiled"

    return step


def _plan(
    only: Iterable[str] | None, extra: Sequence[tuple[str, Callable[[], object]]]
) -> list[tuple[str, Callable[[], str]]]:
    steps = list(_STEPS) + extra_steps()
    steps += [(name, _described(run)) for name, run in extra if name not in {n for n, _ in steps}]
    if only is None:
        return steps
    wanted = list(only)
    unknown = set(wanted) - {name for name, _ in steps}
    if unknown:
        raise ValueError(f"no warm-up step named {sorted(unknown)}; steps: {[name for name, _ in steps]}")
    return [(name, run) for name, run in steps if name in wanted]


def _decision_game() -> str:
    """A ``NumberDrop-v0`` game: random legal decisions, combinations grown and confirmed."""
    env = gym.make("NumberDrop-v0")
    layout = env.unwrapped.game.layout
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    phases, steps, combos, terminated = set(), 0, 0, False
    while not terminated:
        mask = info["action_mask"]
        phases.add(env.unwrapped.game.phase)
        if env.unwrapped.game.phase is Phase.COMBO:
            select = np.flatnonzero(mask[layout.select : layout.confirm])
            action = (
                layout.confirm
                if mask[layout.confirm]
                else layout.select + int(select[0])
                if len(select)
                else layout.pass_
            )
            combos += action == layout.confirm
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        _, _, terminated, _, info = env.step(action)
        steps += 1
    env.close()
    return f"{steps} decisions, {combos} combination(s) scored, score {info['score']}, phases {_names(phases)}"


def _turn_game() -> str:
    """A ``NumberDropTurn-v0`` game, candidate 0 (the greedy's choice) every turn."""
    env = gym.make("NumberDropTurn-v0")
    _, info = env.reset(seed=0)
    steps, terminated = 0, False
    while not terminated:
        _, _, terminated, _, info = env.step(0)
        steps += 1
    env.close()
    return f"{steps} turns, score {info['score']}"


def _entry_phases() -> str:
    """``TurnPlanner`` (compiled and reference) from every phase it accepts, reached by walking
    the greedy's turns decision by decision."""
    planner, reference = TurnPlanner(), TurnPlanner(reference=True)
    seen: dict[Any, int] = {}
    for seed in range(20):
        game = SoloGame(seed=seed)
        while not game.is_over and len(seen) < len(TURN_PHASES):
            best = planner.candidates(game, limit=1)[0]
            for action in best.actions:
                if game.phase in TURN_PHASES and game.phase not in seen:
                    seen[game.phase] = len(planner.candidates(game))
                    reference.candidates(game, limit=4)
                game.step(action)
        if len(seen) == len(TURN_PHASES):
            break
    missing = [p for p in TURN_PHASES if p not in seen]
    return f"phases {_names(seen)}" + (f"; not reached: {_names(missing)}" if missing else "")


def _table_game() -> str:
    """A 2-player ``Table`` game, each seat playing ``TurnPlanner``'s best candidate."""
    planner = TurnPlanner()
    table, turns, blocks = Table(2, seed=0), 0, 0
    while not table.over:
        p = table.to_act()[0]
        seat = table.seats[p]
        blocks += seat.phase is Phase.BLOCK
        for action in planner.candidates(seat, limit=1)[0].actions:
            table.step(p, action)
        turns += 1
    return f"{turns} seat turns ({blocks} block turns), scores {table.scores().tolist()}"


def _batch_entry_point() -> str:
    """A few steps of the native vector environment: the turn engine's batch entry points."""
    envs = gym.make_vec("NumberDropTurn-v0", num_envs=3, vectorization_mode="vector_entry_point")
    envs.reset(seed=0)
    for _ in range(3):
        envs.step(np.zeros(3, np.int64))  # candidate 0 of every game
    envs.close()
    return "the turn engine's batch functions (enumerate_many, finish_turns, ...) in the vector env, 3 games"


_STEPS: tuple[tuple[str, Callable[[], str]], ...] = (
    ("NumberDrop-v0 game", _decision_game),
    ("NumberDropTurn-v0 game", _turn_game),
    ("TurnPlanner entry phases", _entry_phases),
    ("multiplayer Table game", _table_game),
    ("turn engine batch entry point", _batch_entry_point),
)


def _names(phases: Iterable[Any]) -> str:
    order = list(Phase)
    return ",".join(p.value for p in sorted(phases, key=order.index))


def cli(
    argv: list[str] | None = None,
    extra: Sequence[tuple[str, Callable[[], object]]] = (),
    prog: str = "python -m numberdrop_env.warmup",
) -> int:
    """The command; ``extra``: another package's steps after this one's (``python -m agents.warmup``)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Compile numberdrop_env's numba code into numba's on-disk cache by playing a few small games, "
        "so that the environments' first steps do not compile (NUMBA_CACHE_DIR sets where it goes).",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="compile nothing: list the compiled functions not in the cache yet (exit 1 if any)",
    )
    parser.add_argument(
        "--clear",
        action="store_true",
        help="delete numberdrop_env's numba cache files first (numba does not notice edits to a "
        "compiled function that a cached one in another file calls)",
    )
    parser.add_argument("--only", help="run only these steps (names, comma-separated)")
    parser.add_argument(
        "--background",
        action="store_true",
        help="as the environments' background compile: quietly, and not while another one runs",
    )
    args = parser.parse_args(argv)
    only = None if args.only is None else [s.strip() for s in args.only.split(",") if s.strip()]
    if args.background:
        return _background(only, extra)
    if args.clear or args.check:
        for module in numba_cache.COMPILED_MODULES:
            importlib.import_module(f"{numba_cache.PACKAGE}.{module}")
    if args.clear:
        removed, folders = numba_cache.clear_cache(), ", ".join(numba_cache.cache_dirs()) or "nowhere"
        print(f"removed {removed} numba cache files from {folders}", flush=True)
    if args.check:
        missing, compiled = numba_cache.not_cached(), numba_cache.compiled_functions()
        for name in missing:
            print(f"not cached: {name}")
        print(
            f"{len(compiled) - len(missing)}/{len(compiled)} compiled functions cached; "
            f"numba cache: {', '.join(numba_cache.cache_dirs()) or 'none'}"
        )
        return 1 if missing else 0
    warm_up(sys.stdout, only=only, extra=extra)
    return 0


def _background(only: list[str] | None, extra: Sequence[tuple[str, Callable[[], object]]]) -> int:
    """The background compile: one at a time per cache (a lock file), nothing printed."""
    if not startup.take_lock():
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # let the lock go when stopped
    try:
        warm_up(None, only=only, extra=extra)
    finally:
        startup.release_lock()
    return 0


if __name__ == "__main__":
    sys.exit(cli())
