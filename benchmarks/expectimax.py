"""What expectimax over the next roll adds to the ``ntuple`` agent, against its CPU cost.

``python -m benchmarks.expectimax --value agents/models/ntuple.npz --games 200
[--configs 4x8,8x8,16x8,4x32,8x32,16x32,4xall] [--all-games 20] [--inner-limit 32]
[--out results/expectimax_sweep.json] [--resume]``

Each configuration ``TOPxROLLS`` (``all``: every distinct roll, weighted exactly) plays seeds
0.. with ``NTuplePolicy`` as ``numberdrop-evaluate`` does (``play_game``), in this process,
and is paired with the same agent without search on the same seeds: mean score, the paired
difference with its 95 % interval and CPU-s a game (process time, every thread). Rolls over
the whole table cost about 60 times 32 sampled ones, so those configurations play the first
``--all-games`` seeds only (their pairs are on those seeds). One plain line per
configuration; the JSON is rewritten after each, and ``--resume`` keeps the rows (and the
games without search) of an earlier run of the same value and settings, playing only the
configurations it lacks.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluation.solo import play_game
from agents.evaluation.stats import ci95
from agents.numberdrop.ntuple import ALL_ROLLS, NTuplePolicy


def parse_config(text: str) -> tuple[int, int]:
    """``"8x32"`` -> (8, 32); ``"4xall"`` -> (4, -1)."""
    top, sep, rolls = text.partition("x")
    if not sep:
        raise ValueError(f"a configuration reads TOPxROLLS (8x32, 4xall), got {text!r}")
    return int(top), ALL_ROLLS if rolls == "all" else int(rolls)


def games_of(policy: NTuplePolicy, seeds: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Scores and CPU-s of each seed's game."""
    scores, cpu = [], []
    for s in seeds:
        start = time.process_time()
        scores.append(play_game(policy, s).score)
        cpu.append(time.process_time() - start)
    return np.array(scores), np.array(cpu)


def row(
    top: int, rolls: int, scores: np.ndarray, cpu: np.ndarray, base: np.ndarray, base_cpu: np.ndarray
) -> dict[str, Any]:
    d = scores - base[: len(scores)]
    return {
        "top": top,
        "rolls": "all" if rolls == ALL_ROLLS else rolls,
        "games": len(scores),
        "mean": float(scores.mean()),
        "ci95": ci95(scores),
        "base_mean": float(base[: len(scores)].mean()),
        "paired_diff": float(d.mean()),
        "paired_ci95": ci95(d),
        "cpu_s_per_game": float(cpu.mean()),
        "base_cpu_s_per_game": float(base_cpu[: len(scores)].mean()),
        "scores": scores.tolist(),
    }


def earlier(path: Path, settings: dict[str, Any], games: int) -> dict[str, Any] | None:
    """The results of an earlier run of the same settings and games, if ``path`` holds one."""
    if not path.is_file():
        return None
    out = json.loads(path.read_text())
    same = all(out.get(k) == v for k, v in settings.items()) and out["base"]["games"] == games
    return out if same and "cpu" in out["base"] else None


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--value", required=True, help="the n-tuple value (.npz) the agent plays")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--configs", default="4x8,8x8,16x8,4x32,8x32,16x32,4xall")
    ap.add_argument("--all-games", type=int, default=20, help="games of the configurations over every roll")
    ap.add_argument("--limit", type=int, default=128)
    ap.add_argument("--inner-limit", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0, help="the agent's sampling seed")
    ap.add_argument("--out", default="results/expectimax_sweep.json")
    ap.add_argument("--resume", action="store_true", help="keep the rows of an earlier run of these settings")
    args = ap.parse_args(argv)
    configs = [parse_config(c) for c in args.configs.split(",") if c]
    seeds = list(range(args.games))
    settings = {"value": str(args.value), "limit": args.limit, "inner_limit": args.inner_limit, "seed": args.seed}
    out = earlier(Path(args.out), settings, len(seeds)) if args.resume else None
    if out is None:
        base, base_cpu = games_of(NTuplePolicy(args.value, limit=args.limit), seeds)
        out = {**settings, "base": {"games": len(seeds), "mean": float(base.mean()), "ci95": ci95(base)}, "rows": []}
        out["base"].update(cpu_s_per_game=float(base_cpu.mean()), scores=base.tolist(), cpu=base_cpu.tolist())
    base, base_cpu = np.array(out["base"]["scores"]), np.array(out["base"]["cpu"])
    print(f"no search: mean {base.mean():.2f} on {len(seeds)} games, {base_cpu.mean():.3f} CPU-s a game", flush=True)
    done = {(r["top"], ALL_ROLLS if r["rolls"] == "all" else r["rolls"]) for r in out["rows"]}
    for top, rolls in [c for c in configs if c not in done]:
        policy = NTuplePolicy(
            args.value, limit=args.limit, top=top, rolls=rolls, inner_limit=args.inner_limit, seed=args.seed
        )
        n = min(args.games, args.all_games) if rolls == ALL_ROLLS else args.games
        scores, cpu = games_of(policy, seeds[:n])
        r = row(top, rolls, scores, cpu, base, base_cpu)
        out["rows"].append(r)
        lo, hi = r["paired_ci95"]
        print(
            f"top {top:>2} rolls {r['rolls']:>4}: mean {r['mean']:.2f} on {n} games ({r['base_mean']:.2f} without),"
            f" paired {r['paired_diff']:+.2f} [{lo:+.2f}, {hi:+.2f}], {r['cpu_s_per_game']:.2f} CPU-s a game",
            flush=True,
        )
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(out, indent=1))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
