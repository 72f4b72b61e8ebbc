"""What a value network's critic still misses: its errors, explained on held-out games.

``python -m benchmarks.critic_residual --model agents/models/q_turn.zip [--rerank agents/models/q_rerank.pt]
[--games 1000] [--seed 200000] [--workers 2]``
(needs the ``train`` extra)

The look-ahead values each candidate by its points plus the critic's value of sampled next
turns, so a better critic is the way to a stronger look-ahead. The network (with the
re-ranker, if one is given) plays ``games`` games alone; at each turn the critic's value and
the points the game still scored from there are kept, with the turn's state row and the
structure counts of the sheet (``numberdrop_env.planner.structures``). Ridge fits of the
critic's error (points still scored less its value) on the first games, measured on the last
``holdout`` share, say how much of it each set of inputs predicts: by the turn alone, the
turn and the state row (what the critic reads already), and with the structure counts too.
What a fit predicts beyond the turn is what a corrected critic could gain; the rest is the
luck of the rolls to come. Within a turn only differences decide a choice, so the spread of
each fit's correction within a turn is given as well.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence

import numpy as np

from agents.cli.common import HelpFormatter, plain_text
from agents.evaluation.solo import Progress, map_tasks
from agents.networks.reranker import load_reranker
from agents.numberdrop.ppo import (
    LearnedValue,
    best_candidates,
    is_turn_model,
    load_model,
    offer_turns,
    reranked,
    turn_setup,
)
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.structures import structure_features

FIELDS = ("state", "structures", "value", "to_come", "game", "turn")
"""Per recorded turn: the state row, the sheet's structure counts, the critic's value, the
points the game still scored from there, the game's seed and the turn number."""
CHUNK = 50
"""Games per task of the worker processes."""
TURNS = 16
"""Turn numbers told apart by the fits (a later turn counts as the last)."""


def sheet_structures(game: SoloGame) -> np.ndarray:
    """The structure counts of the game's sheet as it stands."""
    s = game.sheet
    flat = s.values.ravel(), s.used.ravel(), s.heights
    return structure_features(*flat, s.identical, s.consecutive, s.bonus, game.rules)


def record(model_path: str, rerank_path: str | None, seeds: Sequence[int]) -> dict[str, np.ndarray]:
    """The turns of the network's games of ``seeds`` (see ``FIELDS``); a game depends only
    on its seed, the network and the re-ranker."""
    import torch

    torch.set_num_threads(1)
    model = load_model(model_path)
    if not is_turn_model(model) or not hasattr(model.policy, "heads"):
        raise ValueError(f"{model_path}: the critic benchmark needs a turn-level candidate-scoring network")
    setup = turn_setup(model, getattr(model, "turn_slots", None))
    critic = LearnedValue(model=model)
    reranker = load_reranker(rerank_path) if rerank_path else None
    top = reranker.top if reranker is not None else 1
    out: dict[str, list] = {k: [] for k in FIELDS}
    for seed in seeds:
        game, scores = SoloGame(seed=int(seed)), []
        while not game.is_over:
            (offered,), batch, masks = offer_turns(setup, [game])
            for key, value in zip(FIELDS, (batch["state"][0], sheet_structures(game), critic.values([game])[0])):
                out[key].append(value)
            out["game"].append(int(seed))
            out["turn"].append(game.turn)
            scores.append(game.score())
            slots, values = best_candidates(model, batch, masks, top)
            choice, _ = reranked(reranker, game, offered, batch, slots, values)
            offered[int(slots[choice])].play(game)
        out["to_come"].extend(game.score() - s for s in scores)
    types = {"game": np.int64, "turn": np.int64}
    return {k: np.array(v, types.get(k, np.float64)) for k, v in out.items()}


def _record_chunk(args: tuple[str, str | None, list[int]]) -> dict[str, np.ndarray]:
    return record(*args)


def record_games(
    model_path: str, rerank_path: str | None, seeds: Sequence[int], workers: int, progress: bool
) -> dict[str, np.ndarray]:
    """``record`` of ``seeds`` on ``workers`` processes (the same data for any number)."""
    tasks = [(model_path, rerank_path, list(seeds[i : i + CHUNK])) for i in range(0, len(seeds), CHUNK)]
    bar = Progress(len(seeds), progress)
    parts = map_tasks(_record_chunk, tasks, workers, bar, lambda task: len(task[2]))
    bar.close()
    return {k: np.concatenate([p[k] for p in parts]) for k in FIELDS}


def ridge(x: np.ndarray, y: np.ndarray, fit: np.ndarray, penalty: float) -> np.ndarray:
    """Predictions of ``y`` for every row of ``x`` by a ridge regression on the rows ``fit``
    (inputs standardised on them, an unpenalised intercept)."""
    mean, spread = x[fit].mean(0), x[fit].std(0)
    spread[spread < 1e-9] = 1.0
    z = (x - mean) / spread
    a = z[fit]
    w = np.linalg.solve(a.T @ a + penalty * np.eye(a.shape[1]), a.T @ (y[fit] - y[fit].mean()))
    return z @ w + y[fit].mean()


def explain(data: dict[str, np.ndarray], holdout: float = 0.1, penalty: float = 10.0) -> dict[str, dict[str, float]]:
    """For each set of inputs: the held-out mean squared error of the critic corrected by a
    ridge fit of its error, and the spread of the correction within a turn (its standard
    deviation). ``critic`` is the critic as it is (no correction)."""
    error = data["to_come"] - data["value"]
    seeds = np.unique(data["game"])
    held = np.isin(data["game"], seeds[len(seeds) - max(1, int(round(holdout * len(seeds)))) :])
    fit = ~held
    if not fit.any():
        raise ValueError("too few games to hold some out: record more (--games)")
    turn = np.eye(TURNS)[np.clip(data["turn"], 0, TURNS - 1)]
    inputs = {
        "turn": turn,
        "turn + state row": np.concatenate([turn, data["state"]], 1),
        "turn + state row + structure counts": np.concatenate([turn, data["state"], data["structures"]], 1),
    }
    out = {"critic": {"held_out_mse": float(np.mean(error[held] ** 2)), "within_turn_sd": 0.0}}
    for name, x in inputs.items():
        correction = ridge(x, error, fit, penalty)
        spread = [correction[data["turn"] == t].std() for t in np.unique(data["turn"])]
        out[name] = {
            "held_out_mse": float(np.mean((error[held] - correction[held]) ** 2)),
            "within_turn_sd": float(np.mean(spread)),
        }
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.critic_residual",
        description=plain_text(__doc__.splitlines()[0]),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--model", required=True, help="a value network (Q-iteration), e.g. agents/models/q_turn.zip")
    parser.add_argument("--rerank", default=None, help="its re-ranker, e.g. agents/models/q_rerank.pt (default: none)")
    parser.add_argument("--games", type=int, default=1000, help="games played (default 1000)")
    parser.add_argument("--seed", type=int, default=200_000, help="seed of the first game (default 200000)")
    parser.add_argument("--holdout", type=float, default=0.1, help="share of the games held out (default 0.1)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1; the same data for any number)")
    parser.add_argument("--json", default=None, help="also write the table to this file")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    if args.games < 2 or args.workers < 1 or not 0 < args.holdout < 1:
        parser.error("--games must be >= 2, --workers >= 1 and --holdout between 0 and 1")
    start = time.perf_counter()
    seeds = list(range(args.seed, args.seed + args.games))
    data = record_games(args.model, args.rerank, seeds, args.workers, not args.no_progress)
    table = explain(data, args.holdout)
    print(
        f"{len(data['turn'])} turns of {args.games} games ({time.perf_counter() - start:.0f} s); the critic's error "
        f"(points still scored less its value), mean {np.mean(data['to_come'] - data['value']):+.2f}:"
    )
    print(f"  {'corrected by a fit of':<40} {'held-out MSE':>12} {'sd within a turn':>17}")
    for name, row in table.items():
        print(f"  {name:<40} {row['held_out_mse']:>12.3f} {row['within_turn_sd']:>17.3f}")
    if args.json:
        with open(args.json, "w") as f:
            about = {"model": args.model, "rerank": args.rerank, "games": args.games, "seed": args.seed}
            json.dump({**about, "turns": int(len(data["turn"])), "fits": table}, f, indent=1)


if __name__ == "__main__":
    main()
