"""Play one solo game with an agent and print the sheet: ``python -m agents.play``."""

from __future__ import annotations

import argparse

from numberdrop_env.render import render_text
from numberdrop_env.solo import SoloGame

from .base import RandomPolicy


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--agent", default="random", choices=["random"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    policy = RandomPolicy()
    policy.reset(args.seed)
    game = SoloGame(seed=args.seed)
    while not game.is_over:
        game.step(policy.act(game, game.legal_mask()))
    print(render_text(game))
    print(f"final score: {game.score()}")


if __name__ == "__main__":
    main()
