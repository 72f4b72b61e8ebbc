"""What keeping only the K best-ranked candidates of a turn costs.

``python -m benchmarks.pruning [--turns 40] [--top 128] [--samples 4] [--model PATH]``

The turns are those the greedy agent meets in its games (seeds 0, 1, ...). For each, the
``top`` best-ranked candidates are valued by a one-turn look-ahead (the search agent's:
points now plus the greedy's best value of the next turn, averaged over ``samples``
sampled rolls, the same rolls for every candidate). With ``--model`` (a turn-level model,
the ``train`` extra) the turns are those the model meets playing alone, and the look-ahead
values the next turn with the model's critic, as its own search does. For each K the table gives the mean
*regret* of offering only the first K — how much look-ahead value the best of the top
``top`` has over the best of the first K — and how often the best lies beyond K. K = 1
is the greedy's own choice.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from tqdm import tqdm

from agents import registry
from agents.base import Policy
from agents.cli.common import HelpFormatter, plain_text
from agents.numberdrop.greedy import GreedyPolicy
from agents.numberdrop.search import LEARNED_VALUE, SearchPolicy
from agents.registry import make_policy
from numberdrop_env.engine.actions import Phase
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.turns import TurnPlanner


def sample_turns(n: int, policy: Policy | None = None) -> list[SoloGame]:
    """The first ``n`` rolled turns of ``policy``'s games (the greedy's by default) on seeds 0, 1, ..."""
    policy = policy or GreedyPolicy()
    out: list[SoloGame] = []
    seed = 0
    while len(out) < n:
        game = SoloGame(seed=seed)
        policy.reset(seed)
        while not game.is_over and len(out) < n:
            if game.phase is Phase.SLIDE:
                out.append(game.clone())
            game.step(policy.act(game, game.legal_mask()))
        seed += 1
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.pruning",
        description=plain_text(__doc__.splitlines()[0]),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--turns", type=int, default=40, help="turns measured (default 40)")
    parser.add_argument("--top", type=int, default=128, help="candidates valued per turn (default 128)")
    parser.add_argument("--samples", type=int, default=4, help="sampled next rolls per candidate (default 4)")
    parser.add_argument("--model", help="a turn-level model: its games' turns, valued with its critic")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    ks = [k for k in (1, 4, 8, 16, 32, 64, 128) if k < args.top] + [args.top]
    planner, search, player = TurnPlanner(), SearchPolicy(samples=args.samples), None
    if args.model:
        player = make_policy("ppo", {"path": args.model})
        search = SearchPolicy(samples=args.samples, critic=registry.load(LEARNED_VALUE, "--model")(model=player.model))
    rng = np.random.default_rng(0)
    regret = {k: [] for k in ks}
    outside = {k: [] for k in ks}
    counts = []
    start = time.perf_counter()
    for game in tqdm(sample_turns(args.turns, player), desc="turns", disable=args.no_progress, mininterval=5):
        cands = planner.candidates(game, limit=args.top)
        counts.append(len(cands))
        values = np.array(search.lookahead(game, cands, rng.integers(0, 2**63 - 1, size=args.samples)))
        best = values.max()
        for k in ks:
            regret[k].append(best - values[:k].max())
            outside[k].append(int(np.argmax(values)) >= k)
    print(
        f"{args.turns} turns, {args.top} candidates valued by a {args.samples}-roll look-ahead "
        f"({time.perf_counter() - start:.0f} s); candidates per turn: median {np.median(counts):.0f}"
    )
    print(f"{'K':>5} {'mean regret':>12} {'best beyond K':>14}")
    for k in ks:
        print(f"{k:>5} {np.mean(regret[k]):>12.3f} {np.mean(outside[k]):>13.0%}")


if __name__ == "__main__":
    main()
