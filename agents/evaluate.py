"""Play seeded solo games with one or more agents and compare them in one table.

``numberdrop-evaluate --agents random,greedy,search --games 1000 --seed 0``
(or ``python -m agents.evaluate ...``)

Game ``i`` uses seed ``SEED + i`` for every agent (common random numbers: same tile
mapping and, as long as the agents' choices do not change the number of rolls, the
same dice), so differences between agents are paired.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import numpy as np
from tqdm import tqdm

from numberdrop_env.multi import MAX_PLAYERS
from numberdrop_env.rules import DEFAULT_RULES
from numberdrop_env.solo import SoloGame

from .base import TurnPlayer
from .registry import (AGENTS, HelpFormatter, describe_options, make_policy, parse_options, plain_text,
                       policy_class)
from .stats import ci95
from .table_eval import format_tables, run_tables, summarise_tables

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


_POLICIES: dict[str, Any] = {}


def _play_chunk(agent: str, options: dict[str, Any], seeds: list[int]) -> tuple[str, list[GameResult]]:
    key = json.dumps([agent, AGENTS.get(agent), options], sort_keys=True, default=str)  # the class too
    if key not in _POLICIES:
        _POLICIES[key] = make_policy(agent, options)
    return agent, [play_game(_POLICIES[key], s) for s in seeds]


def run(agents: list[str], games: int, seed: int, workers: int = 1,
        options: dict[str, dict[str, Any]] | None = None, progress: bool = True) -> dict[str, list[GameResult]]:
    """Results per agent, in seed order."""
    options = options or {}
    for name in agents:  # fail fast, before any worker starts
        make_policy(name, options.get(name))
    seeds = list(range(seed, seed + games))
    chunk = max(1, min(25, games // max(1, 4 * workers)))
    tasks = [(a, options.get(a, {}), seeds[i : i + chunk]) for a in agents for i in range(0, games, chunk)]
    results: dict[str, list[GameResult]] = {a: [] for a in agents}
    bar = _Progress(games * len(agents), progress)
    if workers <= 1:
        done: Iterable[tuple[str, list[GameResult]]] = (_play_chunk(*t) for t in tasks)
        for agent, chunk_results in done:
            results[agent].extend(chunk_results)
            bar.update(len(chunk_results))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for agent, chunk_results in pool.map(_play_chunk, *zip(*tasks)):
                results[agent].extend(chunk_results)
                bar.update(len(chunk_results))
    bar.close()
    return results


class _Progress:
    """A tqdm bar in a terminal; elsewhere (a log file, CI) a plain line every 30 s and at the end."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.done, self.last = total, 0, time.monotonic()
        self.plain = enabled and not sys.stderr.isatty()
        self.bar = tqdm(total=total, desc="games", unit="game", disable=not enabled or self.plain)

    def update(self, n: int) -> None:
        self.bar.update(n)
        self.done += n
        if self.plain and (self.done == self.total or time.monotonic() - self.last >= 30):
            self.last = time.monotonic()
            print(f"games: {self.done}/{self.total}", file=sys.stderr, flush=True)

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
    head = (f"{'agent':<8} {'mean ± ci95':>13} {'median':>6} {'p10':>5} {'p90':>5} {'min':>4} {'max':>4} "
            f"{'turns':>5} {'lines':>5} {'boxes':>5} {'GO%':>4} {'dec/s':>7} "
            + " ".join(f">{h:<3}" for h in HUMAN_SCORES) + f" {'=100':>4}  {'diff vs ' + first:>20}")
    lines = [f"{summary['games']} games, seeds {summary['seed']}..{summary['seed'] + summary['games'] - 1}", head]
    for name, a in agents.items():
        half = (a["ci95"][1] - a["ci95"][0]) / 2
        d = a["paired_diff"]
        dhalf = (d["ci95"][1] - d["ci95"][0]) / 2
        diff = "—" if name == first else f"{d['mean']:+.1f} ± {dhalf:.1f}"
        lines.append(
            f"{name:<8} {a['mean']:>6.1f} ± {half:<4.1f} {a['median']:>6.1f} {a['p10']:>5.0f} {a['p90']:>5.0f} "
            f"{a['min']:>4} {a['max']:>4} {a['game_length']:>5.1f} {a['lines']:>5.2f} {a['boxes']:>5.2f} "
            f"{100 * a['game_over_share']:>4.0f} {a['decisions_per_second']:>7.0f} "
            + " ".join(f"{100 * a['beats'][str(h)]:>3.0f}%" for h in HUMAN_SCORES)
            + f" {100 * a['reach_100']:>3.0f}%  {diff:>20}"
        )
    return "\n".join(lines)


PROG = "numberdrop-evaluate"


def _options_help() -> str:
    from .lucky.registry import AGENTS as LUCKY_AGENTS

    return describe_options() + "\n\n" + describe_options(
        agents=LUCKY_AGENTS, heading="Lucky Numbers agents (--game luckynumbers), same --option syntax:")


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=plain_text(__doc__), epilog=_options_help(),
                                     formatter_class=HelpFormatter)
    parser.add_argument("--agents", default="random,greedy", help=f"comma-separated, among {', '.join(AGENTS)} (Lucky Numbers: see below)")
    parser.add_argument("--games", type=int, default=100, help="number of games per agent")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument("--workers", type=int, default=0,
                        help=f"worker processes; 0 = one per CPU ({os.cpu_count() or 1} here)")
    parser.add_argument("--option", action="append", default=[], metavar="AGENT.NAME=VALUE",
                        help="agent option, e.g. search.samples=16 or ppo.path=model.zip (repeatable; "
                             "options listed below)")
    parser.add_argument("--players", type=int, default=1,
                        help="1: solo games; 2..6: multiplayer tables, each seed played under every "
                             "rotation of seats (agents cycled round the table)")
    parser.add_argument("--game", choices=["numberdrop", "luckynumbers"], default="numberdrop",
                        help="luckynumbers: Lucky Numbers tables of --players 2..4 (agents of agents/lucky/)")
    parser.add_argument("--setup", choices=["standard", "michael"], default="standard",
                        help="(luckynumbers) the setup: diagonal dealt ascending, or Michael's variant")
    parser.add_argument("--bruno", action="store_true", help="(luckynumbers) play Bruno's variant")
    parser.add_argument("--json", type=Path, help="also write the numbers to this JSON file")
    parser.add_argument("--plot", type=Path, help="also draw the score distributions, with the rulebook's "
                                                  "human scores, to this picture (.png, .svg; needs matplotlib)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument("--backend", choices=["local", "ray"], default="local",
                        help="local: worker processes on this machine; ray: Ray tasks (needs the `rllib` extra), "
                             "on a local Ray or the cluster of --address")
    parser.add_argument("--address", help="(--backend ray) Ray cluster to join, e.g. HOST:6379; default "
                                          "RAY_ADDRESS, else a local Ray for this evaluation")
    return parser


def main(argv: list[str] | None = None, prog: str = PROG) -> dict[str, Any]:
    """Runs the command and returns its summary, for callers in Python; the console script is cli()."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    try:
        if not agents or (len(set(agents)) != len(agents) and len(agents) != args.players):
            raise ValueError("--agents must name one or more distinct agents (or, with --players N, "
                             "exactly N agents, one per seat)")
        for name in agents:
            policy_class(name)
        if args.games < 1 or args.workers < 0 or args.seed < 0:
            raise ValueError("--games must be positive and --workers and --seed non-negative")
        workers = args.workers or os.cpu_count() or 1
        if args.game == "luckynumbers":  # Lucky Numbers tables (agents/lucky/evaluate.py)
            from .lucky.evaluate import main_tables

            return main_tables(args, agents, workers, parse_options(args.option, list(dict.fromkeys(agents))))
        if args.setup != "standard" or args.bruno:
            raise ValueError("--setup and --bruno are Lucky Numbers variants: add --game luckynumbers")
        if args.plot:  # fail before the games, not after them
            from .plots import require_matplotlib

            try:
                require_matplotlib()
            except ImportError as err:
                raise ValueError(str(err)) from err
        if not 1 <= args.players <= MAX_PLAYERS or (args.players > 1 and len(agents) > args.players):
            raise ValueError(f"--players must be 1..{MAX_PLAYERS}, and at least the number of agents")
        if args.backend != "ray" and args.address:
            raise ValueError("--address needs --backend ray")
        if args.backend == "ray" and args.players > 1:
            raise ValueError("--backend ray plays solo games; leave it out with --players")
        if args.players > 1 and args.plot:
            raise ValueError("--plot draws solo score distributions; leave it out with --players")
        options = parse_options(args.option, list(dict.fromkeys(agents)))
        if args.players > 1:
            return _tables(args, agents, workers, options)
        if args.backend == "ray":
            from .ray_eval import run_on_ray

            results = run_on_ray(agents, args.games, args.seed, options, address=args.address,
                                 progress=not args.no_progress)
        else:
            results = run(agents, args.games, args.seed, workers, options, progress=not args.no_progress)
    except ValueError as err:
        parser.error(str(err))
    summary = summarise(results, args.games, args.seed)
    print(format_table(summary))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=1))
    if args.plot:
        from .plots import plot_scores

        print(f"score distributions: {plot_scores(summary, args.plot)}")
    return summary


def _tables(args: argparse.Namespace, agents: list[str], workers: int, options: dict[str, Any]) -> dict[str, Any]:
    results = run_tables(agents, args.players, args.games, args.seed, workers, options, not args.no_progress)
    summary = summarise_tables(results, list(dict.fromkeys(agents)), args.players)
    print(format_tables(summary))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=1))
    return summary


def cli(argv: list[str] | None = None, prog: str = PROG) -> int:
    """Exit status 0 on success: a console script passes main's return value to sys.exit, and a dict exits 1."""
    main(argv, prog)
    return 0


if __name__ == "__main__":
    sys.exit(cli(prog="python -m agents.evaluate"))
