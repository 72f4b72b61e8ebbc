"""How strong a table value gets from self-play, against games played and CPU time.

``python -m benchmarks.ntuple_prototype --name base --games 40000 [--families track rows ...]
[--stages 5] [--alpha 0.1] [--lam 0.0] [--coherence] [--epsilon 0.0] [--planner-share 0.0] [--limit 64]
[--width 12] [--load weights.npz]
[--eval-every 10000] [--eval-games 200] [--out results/ntuple_base.json]``

The value (``agents.values.ntuple``) learns by afterstate TD(lambda) from the games it plays
(``agents.values.selfplay``), on seeds from ``--train-seed`` on. Every ``--eval-every`` games
it plays the held-out seeds ``--eval-seed``.. without learning, and the same seeds' games of
the greedy planner (the ``greedy`` agent, played by the same loop) give the paired difference.
Each evaluation prints one plain line; the run's curve, settings and final breakdown go to
``--out`` as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from agents.values.ntuple import FAMILIES, NTupleSpec, NTupleValue
from agents.values.selfplay import Learner, Learning, Played, play
from numberdrop_env.engine.sheet import SCORE_PARTS
from numberdrop_env.planner.turns import TurnPlanner


def paired(ours: np.ndarray, theirs: np.ndarray) -> tuple[float, float]:
    """Mean paired difference and its 95 % half-width."""
    d = np.asarray(ours, float) - np.asarray(theirs, float)
    return float(d.mean()), float(1.96 * d.std(ddof=1) / math.sqrt(len(d)))


def evaluate(value: NTupleValue, seeds: list[int], limit: int, greedy: Played, planner: TurnPlanner) -> dict[str, Any]:
    """The value alone (no learning, no exploration) on ``seeds``, paired with the greedy."""
    r = play(value, seeds, limit=limit, planner=planner)
    diff, half = paired(r.scores, greedy.scores)
    return {
        "mean": float(r.scores.mean()),
        "paired_diff": diff,
        "paired_half95": half,
        "cpu_s_per_game": r.cpu_seconds / len(seeds),
        "parts": {p: float(r.part(p).mean()) for p in SCORE_PARTS},
    }


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--name", required=True, help="the run's name (results/ntuple_<name>.json by default)")
    p.add_argument("--games", type=int, default=40000, help="self-play games to learn from")
    p.add_argument("--families", nargs="+", default=list(NTupleSpec().families), choices=FAMILIES)
    p.add_argument("--stages", type=int, default=NTupleSpec().stages)
    p.add_argument("--alpha", type=float, default=0.1, help="share of each TD error corrected")
    p.add_argument("--lam", type=float, default=0.0, help="TD(lambda)'s lambda")
    p.add_argument("--coherence", action="store_true", help="temporal coherence: a step size per weight")
    p.add_argument("--epsilon", type=float, default=0.0, help="share of turns played by a drawn candidate")
    p.add_argument("--planner-share", type=float, default=0.0, help="share of the planner's value in the base")
    p.add_argument("--init", type=float, default=0.0, help="every track entry's start (optimistic when > 0)")
    p.add_argument("--limit", type=int, default=64, help="candidates valued per turn (the planner's best)")
    p.add_argument("--width", type=int, default=12, help="the planner's tetromino writings kept per sheet")
    p.add_argument("--parallel", type=int, default=64, help="games played at once")
    p.add_argument("--eval-every", type=int, default=10000)
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--eval-seed", type=int, default=1_000_000)
    p.add_argument("--train-seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--save", type=Path, default=None, help="write the learned weights here (.npz)")
    p.add_argument("--load", type=Path, default=None, help="start from these weights (.npz; its spec wins)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse(argv)
    value = NTupleValue(NTupleSpec(tuple(args.families), args.stages), planner_share=args.planner_share)
    if args.load:
        value = NTupleValue.load(args.load)
    spec = value.spec
    planner = TurnPlanner(width=args.width)
    if args.init and "track" in spec.families:
        lo = value.layout.starts["track/0"]
        value.weights[lo : lo + value.layout.tables[0][1]] = args.init
    learner = Learner(value, Learning(args.alpha, args.lam, args.epsilon, args.coherence))
    eval_seeds = list(range(args.eval_seed, args.eval_seed + args.eval_games))
    greedy = play(None, eval_seeds, limit=args.limit)  # the greedy agent's own planner
    print(f"greedy on {args.eval_games} held-out seeds: {greedy.scores.mean():.2f}", flush=True)
    out: dict[str, Any] = {
        "name": args.name,
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "spec": {"families": list(spec.families), "stages": spec.stages, "planner_share": value.planner_share},
        "weights": value.layout.size,
        "lookups": value.layout.max_lookups,
        "greedy_mean": float(greedy.scores.mean()),
        "greedy_cpu_s_per_game": greedy.cpu_seconds / args.eval_games,
        "curve": [],
    }
    played, cpu, wall, block = 0, 0.0, 0.0, []
    curve = out["curve"]

    def record() -> None:
        e = evaluate(value, eval_seeds, args.limit, greedy, planner)
        point = {"games": played, "cpu_s": cpu, "wall_s": wall, "selfplay_mean": float(np.mean(block or [0])), **e}
        curve.append(point)
        print(
            f"games {played:7d}  cpu {cpu:7.0f} s  self-play {point['selfplay_mean']:6.2f}  held-out {e['mean']:6.2f}"
            f"  vs greedy {e['paired_diff']:+.2f} ± {e['paired_half95']:.2f}  identical {e['parts']['identical']:.1f}"
            f"  ({e['cpu_s_per_game'] * 1000:.1f} ms a game)",
            flush=True,
        )

    record()
    while played < args.games:
        n = min(args.eval_every, args.games - played)
        seeds = range(args.train_seed + played, args.train_seed + played + n)
        r = play(value, seeds, learner, args.limit, args.parallel, played, planner=planner)
        played, cpu, wall = played + n, cpu + r.cpu_seconds, wall + r.wall_seconds
        block = r.scores.tolist()
        out["td_rmse_last"] = math.sqrt(r.sse / max(r.turns, 1))
        record()
    out["games_per_cpu_s"] = played / max(cpu, 1e-9)
    out["best"] = max(curve, key=lambda c: c["mean"])
    out["final"] = curve[-1]
    path = args.out or Path("results") / f"ntuple_{args.name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n")
    if args.save:
        value.save(args.save)
    print(f"learned {played} games at {out['games_per_cpu_s']:.1f} games per CPU-s; wrote {path}", flush=True)
    return out


if __name__ == "__main__":
    main()
