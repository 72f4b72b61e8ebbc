"""Lucky Numbers tables: agents round the table, every seed played under every rotation of seats.

``python -m agents.evaluate --game luckynumbers --players 4 --agents search,greedy`` seats the
agents round the table (cycled, or one name per seat) and plays each seed once per rotation,
so seat order biases nothing. The table of results is Number Drop's: win rate (a tie of k
players counts 1/k), mean tournament score, and the paired difference against the first
agent per seed.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from tqdm import tqdm

from luckynumbers_env import Game, Rules
from luckynumbers_env.rules import SETUPS

from ..table_eval import format_tables, lineup, summarise_tables
from .registry import AGENTS, make_policy

_POLICIES: dict[str, Any] = {}


def play_table(seats: list[str], seed: int, options: dict[str, dict[str, Any]], setup: str = "standard",
               bruno: bool = False) -> dict[str, Any]:
    """One game; ``seats[p]`` names the agent of seat ``p`` (one policy instance per seat)."""
    game = Game(Rules(players=len(seats), setup=setup, bruno=bruno), seed=seed)
    policies = []
    for p, name in enumerate(seats):
        key = json.dumps([name, AGENTS.get(name), options.get(name, {}), p], sort_keys=True, default=str)
        if key not in _POLICIES:
            _POLICIES[key] = make_policy(name, options.get(name))
        policies.append(_POLICIES[key])
        policies[-1].reset(seed * 8 + p)
    decisions = 0
    start = time.perf_counter()
    while not game.over:
        p = game.player
        game.step(policies[p].act(game, game.legal_mask()))
        decisions += 1
    return {"scores": game.scores().tolist(), "winners": game.winners, "turns": game.turn,
            "empty": [game.empty_cells(p) for p in range(len(seats))], "ended_by": game.ended_by,
            "decisions": decisions, "seconds": time.perf_counter() - start}


def _play_rotations(agents: list[str], players: int, seed: int, options: dict[str, dict[str, Any]],
                    setup: str, bruno: bool) -> tuple[int, list[dict[str, Any]]]:
    base = lineup(agents, players)
    games = []
    for r in range(players):
        seats = [base[(p + r) % players] for p in range(players)]
        games.append({"seats": seats, **play_table(seats, seed, options, setup, bruno)})
    return seed, games


def run_tables(agents: list[str], players: int, games: int, seed: int, workers: int = 1,
               options: dict[str, dict[str, Any]] | None = None, progress: bool = True,
               setup: str = "standard", bruno: bool = False) -> dict[int, list]:
    """Every seed's games (one per rotation), in seed order."""
    options = options or {}
    for name in set(agents):  # fail fast, before any worker starts
        make_policy(name, options.get(name))
    seeds = list(range(seed, seed + games))
    out: dict[int, list] = {}
    bar = tqdm(total=games, desc=f"{players}-player games x{players} rotations", unit="seed", disable=not progress)
    if workers <= 1:
        for s in seeds:
            out[s] = _play_rotations(agents, players, s, options, setup, bruno)[1]
            bar.update()
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            args = [(agents, players, s, options, setup, bruno) for s in seeds]
            for s, played in pool.map(_play_rotations, *zip(*args), chunksize=max(1, games // (8 * workers))):
                out[s] = played
                bar.update()
    bar.close()
    return out


def summarise(results: dict[int, list], agents: list[str], players: int) -> dict[str, Any]:
    """Number Drop's table summary, plus how games ended and the speed of play."""
    summary = summarise_tables(results, agents, players)
    played = [g for s in sorted(results) for g in results[s]]
    summary["game"] = "luckynumbers"
    summary["ended_by_full_board"] = sum(g["ended_by"] == "full" for g in played) / len(played)
    for a in agents:
        empty = [g["empty"][p] for g in played for p, name in enumerate(g["seats"]) if name == a]
        summary["agents"][a]["empty_cells"] = sum(empty) / len(empty)
    seconds = sum(g["seconds"] for g in played)
    summary["games_per_second"] = len(played) / seconds if seconds else float("nan")
    summary["decisions_per_second"] = sum(g["decisions"] for g in played) / seconds if seconds else float("nan")
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    lines = [format_tables(summary).replace("turns a game", "turns a game (Lucky Numbers)")]
    lines.append("empty cells at the end: " + ", ".join(f"{a} {v['empty_cells']:.2f}"
                                                       for a, v in summary["agents"].items()))
    lines.append(f"{100 * summary['ended_by_full_board']:.0f}% of games ended by a full board; "
                 f"{summary['games_per_second']:.1f} games/s per worker")
    return "\n".join(lines)


def main_tables(args: argparse.Namespace, agents: list[str], workers: int,
                options: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``agents.evaluate --game luckynumbers``: the checks and the table."""
    for name in agents:
        if name not in AGENTS:
            raise ValueError(f"unknown Lucky Numbers agent {name!r}; known agents: {', '.join(AGENTS)}")
    if getattr(args, "backend", "local") != "local":
        raise ValueError("--game luckynumbers plays on local worker processes; leave out --backend")
    if not 2 <= args.players <= 4:
        raise ValueError("--game luckynumbers needs --players 2..4")
    if len(agents) > args.players:
        raise ValueError("--players must be at least the number of agents")
    if args.plot:
        raise ValueError("--plot draws solo score distributions; leave it out with --game luckynumbers")
    setup = getattr(args, "setup", "standard")
    if setup not in SETUPS:
        raise ValueError(f"--setup must be one of {SETUPS}")
    results = run_tables(agents, args.players, args.games, args.seed, workers, options, not args.no_progress,
                         setup, bool(getattr(args, "bruno", False)))
    summary = summarise(results, list(dict.fromkeys(agents)), args.players)
    summary["setup"], summary["bruno"] = setup, bool(getattr(args, "bruno", False))
    print(format_summary(summary))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=1))
    return summary
