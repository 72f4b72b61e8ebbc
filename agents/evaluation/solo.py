"""Solo games: every agent plays the same seeded games, and one table compares them.

Game ``i`` uses seed ``SEED + i`` for every agent (common random numbers: same tile
mapping and, as long as the agents' choices do not change the number of rolls, the
same dice), so differences between agents are paired. ``numberdrop-evaluate`` prints the
table (``agents.cli.evaluate``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from tqdm import tqdm

from numberdrop_env.engine.rules import DEFAULT_RULES
from numberdrop_env.engine.solo import SoloGame

from ..base import TurnPlayer
from ..registry import cached_policy, make_policy
from .stats import ci95

HUMAN_SCORES = (13, 27, 34, 46, 55, 61, 75, 92, 99)
"""The rulebook's solo high-score table."""


@dataclass(frozen=True)
class GameResult:
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


def play_chunk(agent: str, options: dict[str, Any], seeds: list[int]) -> tuple[str, list[GameResult]]:
    """One task of ``run`` (a worker process or a Ray task): ``agent``'s games on ``seeds``."""
    policy = cached_policy(agent, options)
    return agent, [play_game(policy, s) for s in seeds]


def chunks(
    agents: list[str], games: int, seed: int, parallel: int, options: dict[str, dict[str, Any]]
) -> list[tuple[str, dict[str, Any], list[int]]]:
    """(agent, options, seeds) per task, about four tasks per worker, at most 25 games each."""
    seeds = list(range(seed, seed + games))
    size = max(1, min(25, games // max(1, 4 * parallel)))
    return [(a, options.get(a, {}), seeds[i : i + size]) for a in agents for i in range(0, games, size)]


def run(
    agents: list[str],
    games: int,
    seed: int,
    workers: int = 1,
    options: dict[str, dict[str, Any]] | None = None,
    progress: bool = True,
) -> dict[str, list[GameResult]]:
    """Results per agent, in seed order."""
    options = options or {}
    for name in agents:  # fail fast, before any worker starts
        make_policy(name, options.get(name))
    tasks = chunks(agents, games, seed, workers, options)
    results: dict[str, list[GameResult]] = {a: [] for a in agents}
    bar = Progress(games * len(agents), progress)
    for agent, chunk_results in map_tasks(_play_task, tasks, workers, bar, lambda task: len(task[2])):
        results[agent].extend(chunk_results)
    bar.close()
    return results


def _play_task(task: tuple[str, dict[str, Any], list[int]]) -> tuple[str, list[GameResult]]:
    return play_chunk(*task)


Task = TypeVar("Task")
Result = TypeVar("Result")


def map_tasks(
    work: Callable[[Task], Result],
    tasks: Sequence[Task],
    workers: int,
    bar: Progress,
    size: Callable[[Task], int],
) -> list[Result]:
    """``work`` of each task, in order, on ``workers`` processes (one: in this process); the bar
    advances by ``size(task)`` as each result comes in. ``work`` must be a module-level function
    (a worker process imports it by name)."""
    results = []
    if workers <= 1:
        for task in tasks:
            results.append(work(task))
            bar.update(size(task))
        return results
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for task, result in zip(tasks, pool.map(work, tasks)):
            results.append(result)
            bar.update(size(task))
    return results


class Progress:
    """A tqdm bar in a terminal; elsewhere (a log file, CI) a plain line every 30 s and at the end."""

    def __init__(self, total: int, enabled: bool, desc: str = "games", unit: str = "game") -> None:
        self.total, self.done, self.last, self.desc = total, 0, time.monotonic(), desc
        self.plain = enabled and not sys.stderr.isatty()
        self.bar = tqdm(total=total, desc=desc, unit=unit, disable=not enabled or self.plain)

    def update(self, n: int) -> None:
        self.bar.update(n)
        self.done += n
        if self.plain and (self.done == self.total or time.monotonic() - self.last >= 30):
            self.last = time.monotonic()
            print(f"{self.desc}: {self.done}/{self.total}", file=sys.stderr, flush=True)

    def close(self) -> None:
        self.bar.close()


def summarise(results: dict[str, list[GameResult]], games: int, seed: int) -> dict[str, Any]:
    """The numbers of the table, as plain JSON-safe data."""
    first = next(iter(results))
    base = np.array([r.score for r in results[first]], float)
    out: dict[str, Any] = {"games": games, "seed": seed, "agents": {}}
    for name, rs in results.items():
        scores = np.array([r.score for r in rs], float)
        diff = scores - base
        seconds = sum(r.seconds for r in rs)
        out["agents"][name] = {
            "mean": float(scores.mean()),
            "ci95": ci95(scores),
            "median": float(np.median(scores)),
            "p10": float(np.percentile(scores, 10)),
            "p90": float(np.percentile(scores, 90)),
            "min": int(scores.min()),
            "max": int(scores.max()),
            "game_length": float(np.mean([r.turns for r in rs])),
            "lines": float(np.mean([r.lines for r in rs])),
            "boxes": float(np.mean([r.boxes for r in rs])),
            "game_over_share": float(np.mean([r.game_over_line for r in rs])),
            "decisions_per_second": sum(r.decisions for r in rs) / seconds if seconds else float("nan"),
            "beats": {str(h): float(np.mean(scores > h)) for h in HUMAN_SCORES},
            "reach_100": float(np.mean(scores >= DEFAULT_RULES.max_score)),
            "paired_diff": {"vs": first, "mean": float(diff.mean()), "ci95": ci95(diff)},
            "breakdown": {k: float(np.mean([r.breakdown[k] for r in rs])) for k in rs[0].breakdown},
            "scores": [int(s) for s in scores],
        }
    return out


def format_table(summary: dict[str, Any]) -> str:
    """One row per agent; the beat-columns are the share of games above each human score."""
    agents = summary["agents"]
    first = next(iter(agents))
    w = max(8, *map(len, agents))
    head = (
        f"{'agent':<{w}} {'mean ± ci95':>13} {'median':>6} {'p10':>5} {'p90':>5} {'min':>4} {'max':>4} "
        f"{'turns':>5} {'lines':>5} {'boxes':>5} {'GO%':>4} {'dec/s':>7} "
        + " ".join(f">{h:<3}" for h in HUMAN_SCORES)
        + f" {'=100':>4}  {'diff vs ' + first:>20}"
    )
    lines = [f"{summary['games']} games, seeds {summary['seed']}..{summary['seed'] + summary['games'] - 1}", head]
    for name, a in agents.items():
        half = (a["ci95"][1] - a["ci95"][0]) / 2
        d = a["paired_diff"]
        dhalf = (d["ci95"][1] - d["ci95"][0]) / 2
        diff = "—" if name == first else f"{d['mean']:+.1f} ± {dhalf:.1f}"
        lines.append(
            f"{name:<{w}} {a['mean']:>6.1f} ± {half:<4.1f} {a['median']:>6.1f} {a['p10']:>5.0f} {a['p90']:>5.0f} "
            f"{a['min']:>4} {a['max']:>4} {a['game_length']:>5.1f} {a['lines']:>5.2f} {a['boxes']:>5.2f} "
            f"{100 * a['game_over_share']:>4.0f} {a['decisions_per_second']:>7.0f} "
            + " ".join(f"{100 * a['beats'][str(h)]:>3.0f}%" for h in HUMAN_SCORES)
            + f" {100 * a['reach_100']:>3.0f}%  {diff:>20}"
        )
    return "\n".join(lines)
