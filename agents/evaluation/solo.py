"""Solo games: every agent plays the same seeded games (common random numbers, so differences
are paired), and one table compares them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numberdrop_env.engine.rules import DEFAULT_RULES

# the game, also imported from here (the README, the web app, the benchmarks)
from .runner import GameResult, Match, advance, play_game, run_matches  # noqa: F401
from .stats import ci95

HUMAN_SCORES = (13, 27, 34, 46, 55, 61, 75, 92, 99)
"""The rulebook's solo high-score table."""


def run(
    agents: list[str],
    games: int,
    seed: int,
    workers: int = 1,
    options: dict[str, dict[str, Any]] | None = None,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
) -> dict[str, list[GameResult]]:
    """Results per agent, in seed order, played by the runner (``agents.evaluation.runner``)."""
    seeds = tuple(range(seed, seed + games))
    matches = [Match((a,), seeds, options=options or {}) for a in agents]
    return dict(zip(agents, run_matches(matches, workers, backend, address, progress)))


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
