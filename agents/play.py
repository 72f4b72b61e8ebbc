"""Play one solo game with an agent and print the sheet: ``python -m agents.play --agent greedy``."""

from __future__ import annotations

import argparse

from numberdrop_env.render import render_text
from numberdrop_env.solo import SoloGame

from .registry import AGENTS, make_policy, parse_options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--agent", default="greedy", choices=list(AGENTS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--option", action="append", default=[], metavar="AGENT.NAME=VALUE")
    parser.add_argument("--every-turn", action="store_true", help="print the sheet after every turn")
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


if __name__ == "__main__":
    main()
