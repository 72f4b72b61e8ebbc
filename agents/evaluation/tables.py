"""Tables of either game: the agents cycled round the table, every seed played under every
rotation of seats, so the seat order biases nothing. Per agent: win rate (a tie of k players
counts 1/k), mean score and the paired difference against the first agent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# the games, also imported from here
from .runner import Match, lineup, play_lucky_table, play_table, run_matches  # noqa: F401
from .stats import ci95


def run_tables(
    agents: list[str],
    players: int,
    games: int,
    seed: int,
    workers: int = 1,
    options: dict[str, dict[str, Any]] | None = None,
    progress: bool = True,
    game: str = "numberdrop",
    setup: str = "standard",
    bruno: bool = False,
    backend: str = "local",
    address: str | None = None,
) -> dict[int, list]:
    """Every seed's games (one per rotation), in seed order, played by the runner."""
    seeds = tuple(range(seed, seed + games))
    match = Match(tuple(agents), seeds, game, players, options or {}, setup, bruno)
    return dict(zip(seeds, run_matches([match], workers, backend, address, progress)[0]))


def _seats(agent: str, games: list[dict[str, Any]]) -> list[tuple[dict[str, Any], int]]:
    """(game, seat) of every seat ``agent`` played in ``games``."""
    return [(g, p) for g in games for p, name in enumerate(g["seats"]) if name == agent]


def summarise_tables(results: dict[int, list], agents: list[str], players: int) -> dict[str, Any]:
    """Win rates, mean scores and paired differences per agent (JSON-safe); Lucky Numbers' games
    (they say how they ended) add the empty cells, how the games ended and the speed."""
    seeds = sorted(results)
    played = [g for s in seeds for g in results[s]]
    # paired by seed: the mean score of the agent's seats over the seed's rotations
    per_seed = {
        a: np.array([np.mean([g["scores"][p] for g, p in _seats(a, results[s])]) for s in seeds]) for a in agents
    }
    first, lucky = agents[0], "ended_by" in played[0]
    out: dict[str, Any] = {
        "players": players,
        "games": len(results) * players,
        "seeds": seeds,
        "turns": float(np.mean([g["turns"] for g in played])),
        "agents": {},
    }
    for a in agents:
        seats = _seats(a, played)
        wins = [1.0 / len(g["winners"]) if p in g["winners"] else 0.0 for g, p in seats]  # a k-way tie: 1/k
        scores = [g["scores"][p] for g, p in seats]
        diff = per_seed[a] - per_seed[first]
        out["agents"][a] = {
            "seats": len(scores),
            "win_rate": float(np.mean(wins)),
            "win_ci95": ci95(np.array(wins)),
            "mean": float(np.mean(scores)),
            "ci95": ci95(np.array(scores, float)),
            "paired_diff": {"vs": first, "mean": float(diff.mean()), "ci95": ci95(diff)},
        }
        if lucky:
            out["agents"][a]["empty_cells"] = sum(g["empty"][p] for g, p in seats) / len(seats)
    if lucky:
        seconds = sum(g["seconds"] for g in played)
        out["game"] = "luckynumbers"
        out["ended_by_full_board"] = sum(g["ended_by"] == "full" for g in played) / len(played)
        out["games_per_second"] = len(played) / seconds if seconds else float("nan")
        out["decisions_per_second"] = sum(g["decisions"] for g in played) / seconds if seconds else float("nan")
    return out


def format_tables(summary: dict[str, Any]) -> str:
    """The table of results, one row per agent (Lucky Numbers: two more lines)."""
    agents = summary["agents"]
    first = next(iter(agents))
    seeds = summary["seeds"]
    which = " (Lucky Numbers)" if summary.get("game") == "luckynumbers" else ""
    lines = [
        f"{summary['players']} players, {len(seeds)} seeds ({seeds[0]}..{seeds[-1]}) x {summary['players']} "
        f"seat rotations = {summary['games']} games, {summary['turns']:.1f} turns a game{which}",
        f"{'agent':<8} {'seats':>6} {'win rate ± ci95':>16} {'mean ± ci95':>14}  {'diff vs ' + first:>18}",
    ]
    for name, a in agents.items():
        whalf = (a["win_ci95"][1] - a["win_ci95"][0]) / 2
        half = (a["ci95"][1] - a["ci95"][0]) / 2
        d = a["paired_diff"]
        diff = "—" if name == first else f"{d['mean']:+.1f} ± {(d['ci95'][1] - d['ci95'][0]) / 2:.1f}"
        lines.append(
            f"{name:<8} {a['seats']:>6} {100 * a['win_rate']:>8.1f}% ± {100 * whalf:<4.1f} "
            f"{a['mean']:>6.1f} ± {half:<4.1f}  {diff:>18}"
        )
    if which:
        lines.append("empty cells at the end: " + ", ".join(f"{a} {v['empty_cells']:.2f}" for a, v in agents.items()))
        lines.append(
            f"{100 * summary['ended_by_full_board']:.0f}% of games ended by a full board; "
            f"{summary['games_per_second']:.1f} games/s per worker"
        )
    return "\n".join(lines)
