"""How far a value network's ranking of its best candidates is from its own look-ahead's.

``python -m benchmarks.agreement --model agents/models/q_turn.zip [--turns 300] [--top 8] [--samples 4] [--exact 64]``
(needs the ``train`` extra)

A network whose logits are values in points (afterstate Q-iteration, ``algorithm: q_iteration``)
plays alone; at each turn of its games its ``top`` best candidates are valued twice by the
one-turn look-ahead on its own critic with ``samples`` rolls each (two independent draws),
and once with ``exact`` rolls (close to the look-ahead's value without roll noise). Only
differences between candidates decide a choice, so each set of values is centred on its
mean over the turn's candidates before comparing. The table gives the mean absolute gap,
per candidate, between: the two ``samples``-roll look-aheads (their roll noise), the
network and a ``samples``-roll look-ahead, and the network and the ``exact`` one (what it
would have to learn to play as its look-ahead does). It also gives how often the network's
first choice is not the ``exact`` look-ahead's, and what that costs in its values. A PPO
turn network is read the same way (logits over ``planner_scale``), but its logits are not
points, so only a Q-iteration network's gaps are in points.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from tqdm import tqdm

from agents.cli.common import HelpFormatter, plain_text
from agents.numberdrop.ppo import LearnedValue, is_turn_model, load_model, masked_logits, offer_turns, turn_setup
from agents.numberdrop.search import SearchPolicy
from numberdrop_env.engine.solo import SoloGame


def centred_gap(a: np.ndarray, b: np.ndarray) -> float:
    """The mean absolute difference of two valuations of the same candidates, each centred on
    its mean: zero when they differ by a constant, as choices ignore constants."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.abs((a - a.mean()) - (b - b.mean())).mean())


def measure(model_path: str, turns: int, top: int, samples: int, exact: int, progress: bool) -> dict[str, float]:
    """The gaps of the module docstring over the first ``turns`` turns (with at least two
    distinct candidates) of the network's own games on seeds 0, 1, ..."""
    model = load_model(model_path)
    if not is_turn_model(model) or not hasattr(model.policy, "heads"):
        raise ValueError(f"{model_path}: the agreement benchmark needs a turn-level candidate-scoring network")
    setup = turn_setup(model, getattr(model, "turn_slots", None))
    scale = float(model.policy.planner_scale)
    search = SearchPolicy(width=top, samples=samples, critic=LearnedValue(model=model))
    gaps: dict[str, list[float]] = {"noise": [], "network": [], "exact": [], "differs": [], "regret": []}
    seed = 0
    bar = tqdm(total=turns, desc="turns", disable=not progress, mininterval=5)
    while len(gaps["exact"]) < turns:
        game = SoloGame(seed=seed)
        search.reset(seed)
        while not game.is_over and len(gaps["exact"]) < turns:
            (offered,), batch, masks = offer_turns(setup, [game])
            q = masked_logits(model, batch, masks) / scale  # values up to a constant, all a choice sees
            best = np.argsort(-q, kind="stable")[: min(top, int(masks[0].sum()))]
            plans = [offered[j] for j in best]
            one, two = (np.array(search.lookahead(game, plans, search.sample_rolls())) for _ in range(2))
            sure = np.array(search.lookahead(game, plans, search.rng.integers(0, 2**63 - 1, size=exact)))
            distinct = np.isfinite(sure)  # a repeated turn is valued once
            if distinct.sum() >= 2:
                mine, sure_d = q[best][distinct], sure[distinct]
                gaps["noise"].append(centred_gap(one[distinct], two[distinct]))
                gaps["network"].append(centred_gap(mine, one[distinct]))
                gaps["exact"].append(centred_gap(mine, sure_d))
                gaps["differs"].append(float(np.argmax(mine) != np.argmax(sure_d)))
                gaps["regret"].append(float(sure_d.max() - sure_d[np.argmax(mine)]))
                bar.update(1)
            offered[int(best[0])].play(game)
        seed += 1
    bar.close()
    return {k: float(np.mean(v)) for k, v in gaps.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.agreement",
        description=plain_text(__doc__.splitlines()[0]),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--model", required=True, help="a value network (Q-iteration), e.g. agents/models/q_turn.zip")
    parser.add_argument("--turns", type=int, default=300, help="turns measured (default 300)")
    parser.add_argument("--top", type=int, default=8, help="the network's best candidates compared (default 8)")
    parser.add_argument("--samples", type=int, default=4, help="rolls of each noisy look-ahead (default 4)")
    parser.add_argument("--exact", type=int, default=64, help="rolls of the near-exact look-ahead (default 64)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    if min(args.turns, args.samples, args.exact) < 1 or args.top < 2:
        parser.error("--turns, --samples and --exact must be >= 1 and --top >= 2")
    start = time.perf_counter()
    gaps = measure(args.model, args.turns, args.top, args.samples, args.exact, not args.no_progress)
    print(
        f"{args.turns} turns of the network's own games, its {args.top} best candidates "
        f"({time.perf_counter() - start:.0f} s); mean absolute gap per candidate, values centred per turn:"
    )
    rows = {
        f"two {args.samples}-roll look-aheads (roll noise)": gaps["noise"],
        f"network and a {args.samples}-roll look-ahead": gaps["network"],
        f"network and the {args.exact}-roll look-ahead": gaps["exact"],
    }
    for label, gap in rows.items():
        print(f"  {label:<44} {gap:.3f}")
    print(
        f"network's choice not the {args.exact}-roll look-ahead's: {gaps['differs']:.0%} of turns, "
        f"{gaps['regret']:.3f} points a turn by that look-ahead"
    )


if __name__ == "__main__":
    main()
