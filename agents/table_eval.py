"""Multiplayer evaluation: agents at one table, every game played under every rotation of seats.

``numberdrop-evaluate --players 4 --agents greedy,random`` seats the agents round the table
(cycled when there are fewer agents than seats; ``--agents ppo,greedy,greedy,greedy`` names
every seat) and plays each seed once per rotation, so
the seat order biases nothing. Per agent: win rate (a tie of k players counts 1/k), mean
score, and the paired difference of mean scores against the first agent (per seed).
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
from tqdm import tqdm

from numberdrop_env.multi import Table

from .registry import AGENTS, make_policy
from .stats import ci95

_POLICIES: dict[str, Any] = {}


def lineup(agents: list[str], players: int) -> list[str]:
    """The agent of each seat before rotation: the agents cycled round the table."""
    return [agents[p % len(agents)] for p in range(players)]


def play_table(seats: list[str], seed: int, options: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One game; ``seats[p]`` names the agent of seat ``p`` (one policy instance per seat)."""
    table = Table(len(seats), seed=seed)
    policies = []
    for p, name in enumerate(seats):
        key = json.dumps([name, AGENTS.get(name), options.get(name, {}), p], sort_keys=True, default=str)
        if key not in _POLICIES:
            _POLICIES[key] = make_policy(name, options.get(name))
        policies.append(_POLICIES[key])
        policies[-1].reset(seed * 8 + p)
    while not table.over:
        p = table.to_act()[0]
        table.step(p, policies[p].act(table.seats[p], table.legal_mask(p)))
    return {"scores": table.scores().tolist(), "winners": table.winners(), "turns": table.turn}


def _play_rotations(agents: list[str], players: int, seed: int,
                    options: dict[str, dict[str, Any]]) -> tuple[int, list[dict[str, Any]]]:
    base = lineup(agents, players)
    games = []
    for r in range(players):
        seats = [base[(p + r) % players] for p in range(players)]
        games.append({"seats": seats, **play_table(seats, seed, options)})
    return seed, games


def run_tables(agents: list[str], players: int, games: int, seed: int, workers: int = 1,
               options: dict[str, dict[str, Any]] | None = None, progress: bool = True) -> dict[int, list]:
    """Every seed's games (one per rotation), in seed order."""
    options = options or {}
    for name in set(agents):  # fail fast, before any worker starts
        make_policy(name, options.get(name))
    seeds = list(range(seed, seed + games))
    out: dict[int, list] = {}
    bar = tqdm(total=games, desc=f"{players}-player games x{players} rotations", unit="seed", disable=not progress)
    if workers <= 1:
        for s in seeds:
            out[s] = _play_rotations(agents, players, s, options)[1]
            bar.update()
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            jobs = pool.map(_play_rotations, *zip(*[(agents, players, s, options) for s in seeds]))
            for s, played in jobs:
                out[s] = played
                bar.update()
    bar.close()
    return out


def summarise_tables(results: dict[int, list], agents: list[str], players: int) -> dict[str, Any]:
    """Win rates, mean scores and paired differences per agent (JSON-safe)."""
    per_seed = {a: [] for a in agents}  # mean score of the agent's seats over a seed's rotations
    wins = {a: [] for a in agents}  # per seat played: 1/k for a k-way shared win
    scores = {a: [] for a in agents}
    turns = []
    for s in sorted(results):
        seed_scores = {a: [] for a in agents}
        for game in results[s]:
            turns.append(game["turns"])
            share = 1.0 / len(game["winners"])
            for p, name in enumerate(game["seats"]):
                wins[name].append(share if p in game["winners"] else 0.0)
                scores[name].append(game["scores"][p])
                seed_scores[name].append(game["scores"][p])
        for a in agents:
            per_seed[a].append(float(np.mean(seed_scores[a])))
    first = agents[0]
    out: dict[str, Any] = {"players": players, "games": len(results) * players, "seeds": sorted(results),
                           "turns": float(np.mean(turns)), "agents": {}}
    for a in agents:
        diff = np.array(per_seed[a]) - np.array(per_seed[first])
        out["agents"][a] = {
            "seats": len(scores[a]),
            "win_rate": float(np.mean(wins[a])),
            "win_ci95": ci95(np.array(wins[a])),
            "mean": float(np.mean(scores[a])),
            "ci95": ci95(np.array(scores[a], float)),
            "paired_diff": {"vs": first, "mean": float(diff.mean()), "ci95": ci95(diff)},
        }
    return out


def format_tables(summary: dict[str, Any]) -> str:
    agents = summary["agents"]
    first = next(iter(agents))
    seeds = summary["seeds"]
    lines = [f"{summary['players']} players, {len(seeds)} seeds ({seeds[0]}..{seeds[-1]}) x {summary['players']} "
             f"seat rotations = {summary['games']} games, {summary['turns']:.1f} turns a game",
             f"{'agent':<8} {'seats':>6} {'win rate ± ci95':>16} {'mean ± ci95':>14}  {'diff vs ' + first:>18}"]
    for name, a in agents.items():
        whalf = (a["win_ci95"][1] - a["win_ci95"][0]) / 2
        half = (a["ci95"][1] - a["ci95"][0]) / 2
        d = a["paired_diff"]
        diff = "—" if name == first else f"{d['mean']:+.1f} ± {(d['ci95'][1] - d['ci95'][0]) / 2:.1f}"
        lines.append(f"{name:<8} {a['seats']:>6} {100 * a['win_rate']:>8.1f}% ± {100 * whalf:<4.1f} "
                     f"{a['mean']:>6.1f} ± {half:<4.1f}  {diff:>18}")
    return "\n".join(lines)

