"""Play seeded solo games with one or more agents and compare them in one table.

``numberdrop-evaluate --agents random,greedy,search --games 1000 --seed 0``

Game ``i`` uses seed ``SEED + i`` for every agent (the same tile mapping and, as long as the
agents' choices do not change the number of rolls, the same dice), so differences between
agents are paired. ``--players N`` plays tables of either game instead; local worker processes
and ``--backend ray`` give the same numbers.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from agents.cli.common import Parser, refuse, run_command
from agents.evaluation import plots
from agents.evaluation.solo import format_table, run, summarise
from agents.evaluation.tables import format_tables, run_tables, summarise_tables
from agents.registry import AGENTS, describe_options, parse_options
from agents.training.checkpoints import write_json
from numberdrop_env.engine.table import MAX_PLAYERS

PROG = "numberdrop-evaluate"


def _options_help() -> str:
    lucky = "Lucky Numbers agents (--game luckynumbers), same --option syntax:"
    return describe_options() + "\n\n" + describe_options(game="luckynumbers", heading=lucky)


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = Parser(prog, __doc__, _options_help)
    parser.add_argument(
        "--agents",
        default="random,greedy",
        help=f"comma-separated, among {', '.join(AGENTS)} (Lucky Numbers: see below)",
    )
    parser.add_argument("--games", type=int, default=100, help="number of games per agent")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument(
        "--workers", type=int, default=0, help=f"worker processes; 0 = one per CPU ({os.cpu_count() or 1} here)"
    )
    parser.add_agent_options("search.samples=16 or ppo.path=model.zip")
    parser.add_argument(
        "--players",
        type=int,
        default=1,
        help="1: solo games; 2..6: multiplayer tables, each seed played under every "
        "rotation of seats (agents cycled round the table)",
    )
    parser.add_argument(
        "--game",
        choices=["numberdrop", "luckynumbers"],
        default="numberdrop",
        help="luckynumbers: Lucky Numbers tables of --players 2..4 (agents of agents/luckynumbers/)",
    )
    parser.add_argument(
        "--setup",
        choices=["standard", "michael"],
        default="standard",
        help="(luckynumbers) the setup: diagonal dealt ascending, or Michael's variant",
    )
    parser.add_argument("--bruno", action="store_true", help="(luckynumbers) play Bruno's variant")
    parser.add_argument("--json", type=Path, help="also write the numbers to this JSON file")
    parser.add_argument(
        "--plot",
        type=Path,
        help="also draw the score distributions, with the rulebook's "
        "human scores, to this picture (.png, .svg; needs matplotlib)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="local: worker processes on this machine; ray: Ray tasks (needs the `rllib` extra), "
        "on a local Ray of --workers CPUs or the cluster of --address",
    )
    parser.add_argument(
        "--address",
        help="(--backend ray) Ray cluster to join, e.g. HOST:6379; default "
        "RAY_ADDRESS, else a local Ray for this evaluation",
    )
    return parser


def main(argv: list[str] | None = None, prog: str = PROG) -> dict[str, Any]:
    """Runs the command and returns its summary, for callers in Python; the console script is cli()."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    try:
        _check(args, agents)
        workers = args.workers or os.cpu_count() or 1
        options = parse_options(args.option, list(dict.fromkeys(agents)))
        where = {"progress": not args.no_progress, "backend": args.backend, "address": args.address}
        if args.players == 1:
            summary = summarise(run(agents, args.games, args.seed, workers, options, **where), args.games, args.seed)
        else:
            variant = {"game": args.game, "setup": args.setup, "bruno": args.bruno}
            results = run_tables(agents, args.players, args.games, args.seed, workers, options, **variant, **where)
            summary = summarise_tables(results, list(dict.fromkeys(agents)), args.players)
            if args.game == "luckynumbers":
                summary |= {"setup": args.setup, "bruno": args.bruno}
    except (ValueError, ImportError) as err:  # an unknown agent fails in the runner, before any game
        refuse(parser, err)
    print((format_table if args.players == 1 else format_tables)(summary))
    if args.json:
        write_json(args.json, summary, indent=1)
    if args.plot:
        print(f"score distributions: {plots.plot_scores(summary, args.plot)}")
    return summary


def _check(args: argparse.Namespace, agents: list[str]) -> None:
    """Refuse what cannot be played, before any game."""
    lucky = args.game == "luckynumbers"
    if not agents or (len(set(agents)) != len(agents) and len(agents) != args.players):
        raise ValueError(
            "--agents must name one or more distinct agents (or, with --players N, exactly N agents, one per seat)"
        )
    if args.games < 1 or args.workers < 0 or args.seed < 0:
        raise ValueError("--games must be positive and --workers and --seed non-negative")
    if args.backend != "ray" and args.address:
        raise ValueError("--address needs --backend ray")
    if lucky and not 2 <= args.players <= 4:
        raise ValueError("--game luckynumbers needs --players 2..4")
    if not lucky and (args.setup != "standard" or args.bruno):
        raise ValueError("--setup and --bruno are Lucky Numbers variants: add --game luckynumbers")
    if not 1 <= args.players <= MAX_PLAYERS or (args.players > 1 and len(agents) > args.players):
        raise ValueError(f"--players must be 1..{MAX_PLAYERS}, and at least the number of agents")
    if args.plot and (lucky or args.players > 1):
        with_ = "--game luckynumbers" if lucky else "--players"
        raise ValueError(f"--plot draws solo score distributions; leave it out with {with_}")
    if args.plot:  # fail before the games, not after them
        plots.require_matplotlib()


def cli(argv: list[str] | None = None, prog: str = PROG) -> int:
    """Exit status 0 on success (a console script passes main's return value to sys.exit, and a
    dict exits 1), 141 when the output's reader left."""
    return run_command(lambda: main(argv, prog))


if __name__ == "__main__":
    sys.exit(cli(prog=f"python -m {__spec__.name if __spec__ else 'agents.cli.evaluate'}"))
