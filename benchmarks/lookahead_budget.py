"""How the PPO agent's look-ahead should spend its budget: candidates, rolls, refinement.

``python -m benchmarks.lookahead_budget [--turns 60] [--top 16] [--rolls 32]``

The turns are those the shipped turn-level network meets in its own games (seeds 0, 1,
...). For each, its ``top`` most likely candidates are valued roll by roll, as the
look-ahead values them (points now plus the critic's value of the next turn), on
``rolls`` sampled next rolls. A budget ``KxS`` or ``KxSrR`` (``ppo.lookahead=K``,
``ppo.samples=S``, ``ppo.refine=R``) is replayed on that table: it draws its rolls from
one half of them and the candidate it chooses is scored by its mean over the other half,
so that lucky rolls cannot flatter a choice. The table gives, per turn, the mean gain over
the network's own choice in the critic's points, how often the choice differs from the
network's, and the valuations (enumerated next turns) the budget costs.
"""

from __future__ import annotations

import argparse
import re
import time

import numpy as np
from tqdm import tqdm

from agents.cli.common import HelpFormatter, plain_text
from agents.numberdrop.ppo import PPOPolicy, offer_turns
from agents.numberdrop.search import SearchPolicy
from numberdrop_env.engine.solo import SoloGame

from .pruning import sample_turns

BUDGETS = "2x16,4x8,8x4,8x4r3,8x8,12x4r3,16x4r3,16x8"


def parse_budget(text: str) -> tuple[int, int, int]:
    """``"8x4r3"`` -> (8, 4, 3); refine 0 when absent."""
    match = re.fullmatch(r"(\d+)x(\d+)(?:r(\d+))?", text.strip())
    if not match:
        raise ValueError(f"budget {text!r} is not KxS or KxSrR, e.g. 8x4r3")
    k, s, r = int(match[1]), int(match[2]), int(match[3] or 0)
    if k < 1 or s < 1 or r == 1:
        raise ValueError(f"budget {text!r}: K and S must be >= 1 and R 0 or >= 2")
    return k, s, r


def budget_name(k: int, s: int, r: int) -> str:
    return f"{k}x{s}" + (f"r{r}" if r else "")


def cost(k: int, s: int, r: int) -> int:
    """Valuations per turn (before the look-ahead's de-duplication)."""
    return k * s + (r * s if 2 <= r < k else 0)


def value_table(policy: PPOPolicy, search: SearchPolicy, game: SoloGame, top: int, seeds: np.ndarray) -> np.ndarray:
    """(candidates, rolls): the network's ``top`` most likely candidates, most likely first,
    each valued on each roll; a candidate repeating an earlier one's turn is -inf."""
    (offered,), batch, masks = offer_turns(policy.setup, [game])
    order = policy.most_likely(batch, masks, top)
    plans = [offered[j] for j in order]
    return np.array([search.lookahead(game, plans, [s]) for s in seeds]).T


def replay(table: np.ndarray, k: int, s: int, r: int, rng: np.random.Generator) -> tuple[float, bool]:
    """(gain over candidate 0 on the held-out rolls, whether the choice differs) of one
    draw of a budget."""
    n_rolls = table.shape[1]
    perm = rng.permutation(n_rolls)
    drawn, held = perm[: n_rolls // 2], perm[n_rolls // 2 :]
    rows = table[:k]
    first = rows[:, drawn[:s]].mean(1)
    choice = int(np.argmax(first))
    if 2 <= r < len(rows):
        keep = np.argsort(-first, kind="stable")[:r]
        choice = int(keep[np.argmax(rows[keep][:, drawn[: 2 * s]].mean(1))])
    return float(table[choice, held].mean() - table[0, held].mean()), choice != 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.lookahead_budget",
        description=plain_text(__doc__.splitlines()[0]),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--turns", type=int, default=60, help="turns measured (default 60)")
    parser.add_argument("--top", type=int, default=16, help="candidates valued per turn (default 16)")
    parser.add_argument("--rolls", type=int, default=32, help="sampled next rolls per candidate (default 32)")
    parser.add_argument("--budgets", default=BUDGETS, help=f"comma-separated KxS or KxSrR (default {BUDGETS})")
    parser.add_argument("--draws", type=int, default=300, help="replays of each budget per turn (default 300)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    if min(args.turns, args.top, args.rolls, args.draws) < 1:
        parser.error("--turns, --top, --rolls and --draws must be >= 1")
    try:
        budgets = [parse_budget(b) for b in args.budgets.split(",")]
    except ValueError as err:
        parser.error(str(err))
    for k, s, r in budgets:
        rolls = (2 if r else 1) * s
        if k > args.top or rolls > args.rolls // 2:
            parser.error(f"budget {budget_name(k, s, r)} needs --top >= {k} and --rolls >= {2 * rolls}")
    policy = PPOPolicy()
    search = SearchPolicy(value="learned", model=policy.path)
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    tables = [
        value_table(policy, search, game, args.top, rng.integers(0, 2**63 - 1, size=args.rolls))
        for game in tqdm(sample_turns(args.turns, policy), desc="turns", disable=args.no_progress, mininterval=5)
    ]
    print(
        f"{args.turns} turns, the network's {args.top} most likely candidates valued on {args.rolls} rolls "
        f"({time.perf_counter() - start:.0f} s)"
    )
    print(f"{'budget':>8} {'valuations':>10} {'gain/turn':>10} {'changed':>8}")
    for k, s, r in budgets:
        rng = np.random.default_rng(1)  # each budget replays the same draws, whatever the others
        gain, changed = np.mean([replay(t, k, s, r, rng) for t in tables for _ in range(args.draws)], axis=0)
        print(f"{budget_name(k, s, r):>8} {cost(k, s, r):>10} {gain:>10.3f} {changed:>8.0%}")


if __name__ == "__main__":
    main()
