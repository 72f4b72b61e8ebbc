"""The one game runner of every evaluation and gate: ``run_matches`` plays ``Match``es in chunks,
in this process, on workers or as Ray tasks, the same results in seed order on any backend. An
agent with ``play_seeds(seeds)`` is a batched player (games in lockstep): a chunk per worker."""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from tqdm import tqdm

from luckynumbers_env import Game, Rules
from numberdrop_env import numba_cache
from numberdrop_env.engine.rules import DEFAULT_RULES
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.engine.table import Table

from ..base import TurnPlayer
from ..registry import cached_policy, make_policy, require_extra

SOLO, NUMBERDROP, LUCKYNUMBERS = "solo", "numberdrop", "luckynumbers"
"""The kinds of game a match plays: solo Number Drop, and tables of either game."""


@dataclass(frozen=True)
class GameResult:
    """One solo game, as the solo table reports it."""

    seed: int
    score: int
    turns: int
    decisions: int
    lines: int
    boxes: int
    game_over_line: bool
    seconds: float
    breakdown: dict[str, int]


def advance(policy: Any, game: SoloGame) -> int:
    """Play the pending decision, or the rest of the turn where the policy plays whole turns;
    returns the number of decisions played."""
    if isinstance(policy, TurnPlayer):
        played = policy.play_turn(game)
        if played:
            return played
    game.step(policy.act(game, game.legal_mask()))
    return 1


def play_game(policy: Any, seed: int) -> GameResult:
    """One full solo game; the policy is reset with the game's seed."""
    game = SoloGame(DEFAULT_RULES, seed=seed)
    policy.reset(seed)
    decisions = 0
    start = time.perf_counter()
    while not game.is_over:
        decisions += advance(policy, game)
    sheet = game.sheet
    return GameResult(
        seed=seed,
        score=game.score(),
        turns=game.turn,
        decisions=decisions,
        lines=int(sheet.lines.sum()),
        boxes=int(sheet.identical.sum() + sheet.consecutive.sum() + sheet.bonus),
        game_over_line=bool(sheet.penalties.any()),
        seconds=time.perf_counter() - start,
        breakdown=sheet.score_breakdown(),
    )


def lineup(agents: list[str], players: int) -> list[str]:
    """The agent of each seat before rotation: the agents cycled round the table."""
    return [agents[p % len(agents)] for p in range(players)]


def seat_policies(seats: list[str], seed: int, options: dict[str, dict[str, Any]], game: str) -> list[Any]:
    """One policy per seat (built once per process), reset for this game."""
    policies = []
    for p, name in enumerate(seats):
        policies.append(cached_policy(name, options.get(name), game, seat=p))
        policies[-1].reset(seed * 8 + p)
    return policies


def play_table(seats: list[str], seed: int, options: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One Number Drop game; ``seats[p]`` names the agent of seat ``p``."""
    table = Table(len(seats), seed=seed)
    policies = seat_policies(seats, seed, options, "numberdrop")
    while not table.over:
        p = table.to_act()[0]
        table.step(p, policies[p].act(table.seats[p], table.legal_mask(p)))
    return {"scores": table.scores().tolist(), "winners": table.winners(), "turns": table.turn}


def play_lucky_table(
    seats: list[str], seed: int, options: dict[str, dict[str, Any]], setup: str = "standard", bruno: bool = False
) -> dict[str, Any]:
    """One Lucky Numbers game; ``seats[p]`` names the agent of seat ``p``."""
    game = Game(Rules(players=len(seats), setup=setup, bruno=bruno), seed=seed)
    policies = seat_policies(seats, seed, options, "luckynumbers")
    decisions = 0
    start = time.perf_counter()
    while not game.over:
        p = game.player
        game.step(policies[p].act(game, game.legal_mask()))
        decisions += 1
    return {
        "scores": game.scores().tolist(),
        "winners": game.winners,
        "turns": game.turn,
        "empty": [game.empty_cells(p) for p in range(len(seats))],
        "ended_by": game.ended_by,
        "decisions": decisions,
        "seconds": time.perf_counter() - start,
    }


class Progress:
    """A tqdm bar in a terminal; elsewhere (a log file, CI) a plain line every 30 s and at the end."""

    def __init__(self, total: int, enabled: bool, desc: str = "games", unit: str = "game", initial: int = 0) -> None:
        self.total, self.done, self.last, self.desc, self.postfix = total, initial, time.monotonic(), desc, ""
        self.plain = enabled and not sys.stderr.isatty()
        self.bar = tqdm(total=total, initial=initial, desc=desc, unit=unit, disable=not enabled or self.plain)

    def update(self, n: int) -> None:
        self.bar.update(n)
        self.done += n
        if self.plain and (self.done >= self.total or time.monotonic() - self.last >= 30):
            self.last = time.monotonic()
            print(f"{self.desc}: {self.done}/{self.total}{self.postfix}", file=sys.stderr, flush=True)

    def close(self) -> None:
        self.bar.close()


class Local:
    """The tasks in this process (a policy object is used as it is), on threads, or on worker
    processes (``work`` must then be a module-level function: a worker imports it by name)."""

    def __init__(self, executor: Executor | None = None, workers: int = 1) -> None:
        self.executor, self.parallel = executor, workers

    def map(self, work: Callable, tasks: Sequence, bar: Progress, size: Callable) -> list:
        if isinstance(self.executor, ProcessPoolExecutor):
            work = partial(_recorded, work)
        played = map(work, tasks) if self.executor is None else self.executor.map(work, tasks)
        results = []
        for task, result in zip(tasks, played):
            results.append(result)
            bar.update(size(task))
        return results


def _recorded(work: Callable, task: Any) -> Any:
    """``work`` in a worker process, then numba's record of what it compiled: the next processes'
    quick start (``numberdrop_env.startup``) asks the record, not numba's cache, whether it may skip."""
    result = work(task)
    numba_cache.write_record()
    return result


class RayTasks:
    """The tasks as Ray tasks of one CPU each (``work`` must be a module-level function)."""

    def __init__(self, ray: Any) -> None:
        self.ray = ray
        self.parallel = max(1, int(ray.available_resources().get("CPU", 1)))

    def map(self, work: Callable, tasks: Sequence, bar: Progress, size: Callable) -> list:
        play = self.ray.remote(num_cpus=1)(work)
        refs = {play.remote(task): task for task in tasks}  # in task order
        pending = list(refs)
        while pending:
            ready, pending = self.ray.wait(pending, num_returns=1)
            bar.update(size(refs[ready[0]]))
        return self.ray.get(list(refs))


@contextmanager
def ray_pool(address: str | None = None, num_cpus: int | None = None) -> Iterator[RayTasks]:
    """The Ray running in this process, else the cluster at ``address`` (or ``RAY_ADDRESS``), else
    a local Ray of ``num_cpus`` CPUs (None: all). Every node needs this project installed."""
    require_extra("rllib", "the Ray backend")
    import ray

    started = not ray.is_initialized()
    if started:
        address = address or os.environ.get("RAY_ADDRESS")
        if address:
            print(f"joining the Ray cluster at {address}", file=sys.stderr)
            ray.init(address=address, logging_level=logging.WARNING)
        else:
            ray.init(num_cpus=num_cpus, include_dashboard=False, logging_level=logging.WARNING)
    try:
        yield RayTasks(ray)
    finally:
        if started:
            ray.shutdown()


@contextmanager
def pool(workers: int, backend: str = "local", address: str | None = None) -> Iterator[Local | RayTasks]:
    """``backend="local"``: ``workers`` processes (one or fewer: this process); ``"threads"``:
    ``workers`` threads of this process (for work that releases the GIL); ``"ray"``: Ray tasks,
    on the cluster at ``address`` or a local Ray of ``workers`` CPUs (0: all)."""
    if backend == "ray":
        with ray_pool(address, workers or None) as tasks:
            yield tasks
    elif backend not in ("local", "threads"):
        raise ValueError(f"unknown backend {backend!r}: 'local', 'threads' or 'ray'")
    elif workers <= 1:
        yield Local()
    else:
        if backend == "local":  # the workers' quick start asks numba's record: what this process compiled is cached
            numba_cache.write_record()
        if backend == "threads":
            executor: Executor = ThreadPoolExecutor(max_workers=workers)
        else:
            executor = ProcessPoolExecutor(max_workers=workers, mp_context=worker_context())
        with executor:
            yield Local(executor, workers)


def worker_context() -> multiprocessing.context.BaseContext | None:
    """How worker processes start: the platform's way (forked on Linux up to Python 3.13: they
    inherit this process's compiled planner), but spawned where JAX runs here, since a forked
    child inherits its threads' locks held and hangs."""
    return multiprocessing.get_context("spawn") if "jax" in sys.modules else None


@dataclass(frozen=True)
class Match:
    """Games to play: solo, ``agents`` is one agent (a name or a policy object); tables,
    ``agents`` are names cycled round ``players`` seats. ``options`` by name; ``setup`` and
    ``bruno`` are Lucky Numbers' variants."""

    agents: tuple[Any, ...]
    seeds: tuple[int, ...]
    game: str = SOLO
    players: int = 1
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    setup: str = "standard"
    bruno: bool = False

    def check(self) -> None:
        """Build each named agent once, here, so that a bad name fails before any game starts."""
        if self.game not in (SOLO, NUMBERDROP, LUCKYNUMBERS):
            raise ValueError(f"unknown game {self.game!r}: {SOLO!r}, {NUMBERDROP!r} or {LUCKYNUMBERS!r}")
        game = NUMBERDROP if self.game == SOLO else self.game
        for name in dict.fromkeys(a for a in self.agents if isinstance(a, str)):
            make_policy(name, self.options.get(name), game)


def play_seeds(task: tuple[Match, tuple[int, ...]]) -> list[Any]:
    """One chunk of a match: a ``GameResult`` per solo seed, or a table seed's games (one per
    rotation, each with its ``seats``)."""
    match, seeds = task
    if match.game == SOLO:
        agent = match.agents[0]
        policy = cached_policy(agent, match.options.get(agent)) if isinstance(agent, str) else agent
        if hasattr(policy, "play_seeds"):  # a batched player: the chunk's games in lockstep
            return policy.play_seeds(list(seeds))
        return [play_game(policy, s) for s in seeds]
    play: Any = play_table
    if match.game == LUCKYNUMBERS:
        play = partial(play_lucky_table, setup=match.setup, bruno=match.bruno)
    base = lineup(list(match.agents), match.players)
    rotations = [base[r:] + base[:r] for r in range(match.players)]
    return [[{"seats": seats, **play(seats, s, match.options)} for seats in rotations] for s in seeds]


def run_matches(
    matches: Sequence[Match],
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    progress: bool = True,
) -> list[list[Any]]:
    """Each match's results, in seed order (see ``play_seeds``)."""
    for match in matches:  # fail fast, before any worker starts
        match.check()
    solo = not matches or matches[0].game == SOLO
    players = 1 if solo else matches[0].players
    desc, unit = ("games", "game") if solo else (f"{players}-player games x{players} rotations", "seed")
    with pool(workers, backend, address) as where:
        owners, tasks = [], []
        for i, match in enumerate(matches):
            size = max(1, min(25, len(match.seeds) // (4 * where.parallel)))  # about 4 chunks a worker
            if hasattr(match.agents[0], "play_seeds"):  # a batched player: one chunk a worker
                size = max(1, -(-len(match.seeds) // where.parallel))
            for start in range(0, len(match.seeds), size):
                owners.append(i)
                tasks.append((match, tuple(match.seeds[start : start + size])))
        bar = Progress(sum(len(m.seeds) for m in matches), progress, desc, unit)
        try:
            parts = where.map(play_seeds, tasks, bar, lambda task: len(task[1]))
        finally:
            bar.close()
    results: list[list[Any]] = [[] for _ in matches]
    for i, part in zip(owners, parts):
        results[i].extend(part)
    return results


def play_policy(agent: Any, seeds: Sequence[int], workers: int = 1) -> list[GameResult]:
    """Solo games of one agent on ``seeds``, in seed order: a name, ``(name, options)`` or a policy
    object (reset with each game's seed; copied to each worker, so it must pickle)."""
    name, options = agent if isinstance(agent, tuple) else (agent, {})
    match = Match((name,), tuple(seeds), options={name: dict(options or {})} if isinstance(name, str) else {})
    return run_matches([match], workers, progress=False)[0]
