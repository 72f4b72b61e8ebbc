"""Lucky Numbers: an n-tuple afterstate value learned by TD(lambda) self-play, then measured.

``python -m benchmarks.lucky_ntuple --games 20000 --seed 0 --out results/lucky_ntuple.json
[--players 4] [--alpha 0.1] [--lam 0.5] [--epsilon 0] [--opponents greedy] [--mix 1]
[--families lines squares ...]
[--eval-players 4 2] [--against greedy search] [--eval-games 250] [--eval-seed 1000000]
[--workers 1] [--save agents/models/lucky_ntuple.npz] [--load value.npz]``

The value (``agents.luckynumbers.ntuple``) learns from ``--games`` games on seeds ``--seed``..,
every seat playing by the shared value (or, with ``--opponents``, a ``--mix`` share of the games
with one learner seat among those agents), printing one plain line every ``--report`` games.
Then the ``ntuple`` agent with the learned value sits at tables with each agent of ``--against``
through the project's evaluation
runner (``agents.evaluation.tables``: every seed of ``--eval-seed``.. under every rotation of
seats, half the seats each), and the run's settings, curve and tables go to ``--out`` as JSON:
per agent the win rate (a k-way tie counts 1/k), the mean tournament score, the mean finishing
place and, paired per seed, the difference of win shares and of scores against ``ntuple``.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents import registry
from agents.evaluation.stats import ci95
from agents.evaluation.tables import format_tables, run_tables, summarise
from agents.luckynumbers.ntuple import FAMILIES, NTupleSpec, NTupleValue, SelfPlay, play_and_learn

NAME = "ntuple"
ENTRY = "agents.luckynumbers.ntuple:NTuplePolicy"


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20000, help="self-play games to learn from (0: only evaluate --load)")
    p.add_argument("--seed", type=int, default=0, help="the first training game's seed")
    p.add_argument("--players", type=int, default=4, choices=[2, 3, 4], help="players of the training games")
    p.add_argument("--alpha", type=float, default=0.1, help="share of each TD error corrected")
    p.add_argument("--lam", type=float, default=0.5, help="TD(lambda)'s lambda")
    p.add_argument("--opponents", nargs="*", default=[], help="agents round the learner's seat (none: self-play)")
    p.add_argument("--mix", type=float, default=1.0, help="share of the games played against --opponents")
    p.add_argument("--epsilon", type=float, default=0.0, help="share of the learners' sources drawn at random")
    p.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES)
    p.add_argument("--share", type=float, default=1.0, help="weight of the greedy's board value under the tables")
    p.add_argument("--report", type=int, default=1000, help="games between progress lines")
    p.add_argument("--load", type=Path, help="start from this value (.npz)")
    p.add_argument("--save", type=Path, help="write the learned value here (.npz)")
    p.add_argument("--eval-players", type=int, nargs="*", default=[4], help="table sizes to evaluate at")
    p.add_argument("--against", nargs="*", default=["greedy", "search"], help="agents to evaluate against")
    p.add_argument("--eval-games", type=int, default=250, help="seeds per evaluation table")
    p.add_argument("--eval-seed", type=int, default=1_000_000, help="the first evaluation seed")
    p.add_argument("--workers", type=int, default=1, help="worker processes of the evaluation")
    p.add_argument("--out", type=Path, help="write the run as JSON here")
    return p.parse_args(argv)


def train(value: NTupleValue, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Self-play in blocks of ``--report`` games, one progress line and curve point each."""
    curve: list[dict[str, Any]] = []
    done, cpu = 0, 0.0
    while done < args.games:
        n = min(args.report, args.games - done)
        first = args.seed + done
        k = round(args.mix * n) if args.opponents else 0  # games against --opponents, then self-play
        r: SelfPlay = SelfPlay()
        for seeds, opponents in ((range(first, first + k), args.opponents), (range(first + k, first + n), ())):
            if len(seeds):
                part = play_and_learn(value, seeds, args.players, args.alpha, args.lam, opponents, epsilon=args.epsilon)
                for name in ("games", "seats", "sse", "afterstates", "wins", "score", "cpu_seconds"):
                    setattr(r, name, getattr(r, name) + getattr(part, name))
        done, cpu = done + n, cpu + r.cpu_seconds
        point = {
            "games": done,
            "cpu_seconds": round(cpu, 1),
            "win_rate": r.wins / r.seats,
            "mean_score": r.score / r.seats,
            "td_rmse": math.sqrt(r.sse / max(r.afterstates, 1)),
        }
        curve.append(point)
        print(
            f"games {done:>7}  cpu {cpu:7.1f}s  learner win rate {100 * point['win_rate']:5.1f}%  "
            f"score {point['mean_score']:+.2f}  td rmse {point['td_rmse']:.3f}",
            flush=True,
        )
    return curve


def places(results: dict[int, list], agents: list[str]) -> dict[str, Any]:
    """Per agent the mean finishing place (1 for the winners, then by fewer empty cells; ties
    share the better place), and per seed the paired difference of win shares against the first."""
    place: dict[str, list[float]] = {a: [] for a in agents}
    share: dict[str, list[float]] = {a: [] for a in agents}
    for s in sorted(results):
        seed_share: dict[str, list[float]] = {a: [] for a in agents}
        for g in results[s]:
            winners, empty = g["winners"], g["empty"]
            key = [(0 if p in winners else 1, empty[p]) for p in range(len(empty))]
            for p, name in enumerate(g["seats"]):
                place[name].append(1.0 + sum(k < key[p] for k in key))
                seed_share[name].append(1.0 / len(winners) if p in winners else 0.0)
        for a in agents:
            share[a].append(float(np.mean(seed_share[a])))
    first = agents[0]
    out = {}
    for a in agents:
        diff = np.array(share[a]) - np.array(share[first])
        out[a] = {
            "mean_place": float(np.mean(place[a])),
            "place_ci95": ci95(np.array(place[a])),
            "paired_win_diff": {"vs": first, "mean": float(diff.mean()), "ci95": ci95(diff)},
        }
    return out


def evaluate(path: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The ``ntuple`` agent with the value at ``path`` at a table with each agent of ``--against``."""
    registry.LUCKY_AGENTS.setdefault(NAME, ENTRY)  # seat it by name in the runner, shipped or not
    tables = []
    for players in args.eval_players:
        for other in args.against:
            agents = [NAME, other]
            start = time.process_time()
            results = run_tables(
                agents,
                players,
                args.eval_games,
                args.eval_seed,
                args.workers,
                {NAME: {"path": str(path)}},
                progress=False,
                game="luckynumbers",
            )
            summary = summarise(results, agents, players)
            for a, extra in places(results, agents).items():
                summary["agents"][a].update(extra)
            seeds = summary.pop("seeds")
            summary["seed_range"] = [seeds[0], seeds[-1]]
            summary["main_process_cpu_seconds"] = round(time.process_time() - start, 1)
            tables.append(summary)
            print(format_tables({**summary, "seeds": seeds}), flush=True)
            for a, s in summary["agents"].items():
                d = s["paired_win_diff"]
                half = (d["ci95"][1] - d["ci95"][0]) / 2
                print(
                    f"  {a:<8} mean place {s['mean_place']:.2f}  win share minus {d['vs']}'s, paired per seed: "
                    f"{100 * d['mean']:+.1f} ± {100 * half:.1f} points",
                    flush=True,
                )
    return tables


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse(argv)
    spec = NTupleSpec(tuple(args.families))
    value = NTupleValue.load(args.load) if args.load else NTupleValue(spec, share=args.share)
    print(f"n-tuple value: {value.layout.size:,} weights, {value.layout.lookups} lookups a board", flush=True)
    curve = train(value, args) if args.games else []
    with tempfile.TemporaryDirectory() as tmp:
        path = args.save or Path(tmp) / "lucky_ntuple.npz"
        value.save(path)
        tables = evaluate(path, args) if args.eval_players and args.against else []
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    out = {"settings": settings, "weights": value.layout.size, "curve": curve, "tables": tables}
    if args.out:
        args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}", flush=True)
    return out


if __name__ == "__main__":
    main()
