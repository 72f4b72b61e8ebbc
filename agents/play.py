"""Play one solo game with an agent and print the sheet: ``numberdrop-play --agent greedy``
(or ``python -m agents.play --agent greedy``)."""

from __future__ import annotations

import argparse
import sys

from numberdrop_env.render import render_text
from numberdrop_env.solo import SoloGame

from .registry import AGENTS, HelpFormatter, describe_options, make_policy, parse_options, plain_text

PROG = "numberdrop-play"


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=plain_text(__doc__), epilog=describe_options(),
                                     formatter_class=HelpFormatter)
    parser.add_argument("--agent", default="greedy", choices=list(AGENTS), help="the agent that plays")
    parser.add_argument("--seed", type=int, default=0, help="game seed (tile mapping and dice)")
    parser.add_argument("--option", action="append", default=[], metavar="AGENT.NAME=VALUE",
                        help="agent option, e.g. greedy.width=8 (repeatable; options listed below)")
    parser.add_argument("--every-turn", action="store_true", help="print the sheet after every turn")
    return parser


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    """Plays the game and returns its score, for callers in Python; the console script is cli()."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        policy = make_policy(args.agent, parse_options(args.option, [args.agent])[args.agent])
    except ValueError as err:
        parser.error(str(err))
    policy.reset(args.seed)
    game = SoloGame(seed=args.seed)
    turn = game.turn
    while not game.is_over:
        game.step(policy.act(game, game.legal_mask()))
        if args.every_turn and game.turn != turn:
            turn = game.turn
            print(render_text(game))
    print(render_text(game))
    print(f"final score: {game.score()}")
    return game.score()


def cli(argv: list[str] | None = None, prog: str = PROG) -> int:
    """Exit status 0 on success: a console script would otherwise exit with the score as its status."""
    main(argv, prog)
    return 0


if __name__ == "__main__":
    sys.exit(cli(prog="python -m agents.play"))
