"""The clairvoyant bound of solo Number Drop: a beam search over each seed's known rolls (each
width keeping the narrower one's best game), paired with the agents recorded in ``results/``
on those seeds (``docs/research/clairvoyant.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluation.stats import ci95
from agents.values.selfplay import MAX_TURNS
from numberdrop_env.engine.rules import DEFAULT_RULES
from numberdrop_env.engine.sheet import SCORE_PARTS
from numberdrop_env.engine.solo import SoloGame, roll_faces
from numberdrop_env.planner.packing import TurnArrays
from numberdrop_env.planner.turns import TurnPlanner

MAX_STATES = 4096
"""Games enumerated in one call at most: a group of seeds holds ``MAX_STATES // width`` of them."""
RESULTS = Path(__file__).resolve().parents[1] / "results"


@dataclass(frozen=True)
class GamePath:
    """The best game a beam found on one seed: its score, score parts and each turn's candidate."""

    seed: int
    limit: int
    score: int
    parts: tuple[int, ...]
    candidates: tuple[int, ...]


def beam_search(
    seeds: list[int], width: int, limit: int = 8, keep: list[GamePath] | None = None, max_states: int = MAX_STATES
) -> list[GamePath]:
    """The best game a beam of ``width`` finds on each seed; ``keep`` (a narrower search's paths,
    one per seed) are games the beam keeps among its own, so that it never scores less."""
    if width < 1 or limit < 1 or not seeds:
        raise ValueError("width and limit must be >= 1, and seeds not empty")
    planner, group = TurnPlanner(), max(1, max_states // width)
    paths: list[GamePath] = []
    for start in range(0, len(seeds), group):
        kept = None if keep is None else keep[start : start + group]
        paths += _search_group(seeds[start : start + group], width, limit, planner, kept)
    return paths


def _search_group(
    seeds: list[int], width: int, limit: int, planner: TurnPlanner, keep: list[GamePath] | None
) -> list[GamePath]:
    """A few seeds at once: all their kept games enumerated in one call a turn."""
    games = [SoloGame(DEFAULT_RULES, seed=s) for s in seeds]
    for game in games:
        game.step(game.layout.start)  # the starting number in the first column, as the greedy writes it
    faces = np.stack([roll_faces(g.rng, DEFAULT_RULES, MAX_TURNS) for g in games])
    forced = np.full((len(seeds), MAX_TURNS), -1, np.int64)
    for i, p in enumerate(keep or []):
        forced[i, : len(p.candidates)] = p.candidates
    states, seed = planner.pack_batch(games, limit), np.arange(len(seeds))
    on_keep, history = np.full(len(seeds), keep is not None), np.full((len(seeds), MAX_TURNS), -1, np.int64)
    best: list[GamePath | None] = [None] * len(seeds)
    for turn in range(MAX_TURNS):
        if not len(states):
            break
        totals = planner.packed_scores(states, DEFAULT_RULES)[0][:, -1]
        offered, arrays, _ = planner.candidate_arrays(states, DEFAULT_RULES, limit)
        cols = np.arange(limit)[None, :]
        valid = cols < offered[:, None]
        must = on_keep[:, None] & (cols == forced[seed, turn][:, None])
        rank = totals[:, None] + arrays.points + (arrays.value - arrays.points)  # score + points + heuristic
        rank = np.where(must, np.inf, np.where(valid, rank, -np.inf))
        parent, cand = np.nonzero(valid)
        order = np.lexsort((parent * limit + cand, -rank[parent, cand], seed[parent]))
        parent, cand = parent[order], cand[order]
        room = _place_in_seed(seed[parent]) < 2 * width + 1  # room for the duplicates dropped below
        parent, cand = parent[room], cand[room]
        children = states[parent]
        chosen = TurnArrays(*(f[parent, cand].reshape((len(parent), 1) + f.shape[2:]) for f in arrays))
        n = len(parent)
        over = planner.finish_turns(children, DEFAULT_RULES, np.arange(n), np.zeros(n, np.int64), chosen)
        keys = np.concatenate([seed[parent][:, None], over[:, None].astype(np.int64), children], axis=1)
        rows = np.sort(np.unique(keys, axis=0, return_index=True)[1])
        rows = rows[_place_in_seed(seed[parent][rows]) < width]
        parent, cand, children, over = parent[rows], cand[rows], children[rows], over[rows]
        on_keep = on_keep[parent] & (cand == forced[seed[parent], turn])
        history, seed, states = history[parent], seed[parent], children
        history[:, turn] = cand
        if over.any():
            parts, _ = planner.packed_scores(states[over], DEFAULT_RULES)
            for j, row in zip(np.flatnonzero(over).tolist(), parts):
                s = seed[j]
                if best[s] is None or row[-1] > best[s].score:  # the first game found of the best score stays
                    path = tuple(history[j, : turn + 1].tolist())
                    best[s] = GamePath(seeds[s], limit, int(row[-1]), tuple(row.tolist()), path)
        live = np.flatnonzero(~over)
        states, seed, on_keep, history = states[live], seed[live], on_keep[live], history[live]
        planner.start_turns(states, DEFAULT_RULES, np.arange(len(states)), faces[seed, turn])
    if len(states):
        raise RuntimeError(f"a game outlasted {MAX_TURNS} turns")
    return best  # type: ignore[return-value]


def _place_in_seed(seed: np.ndarray) -> np.ndarray:
    """Each row's place among the rows of its seed (rows grouped by seed, in order)."""
    starts = np.flatnonzero(np.r_[True, seed[1:] != seed[:-1]])
    return np.arange(len(seed)) - np.repeat(starts, np.diff(np.r_[starts, len(seed)]))


def paired(ours: np.ndarray, theirs: np.ndarray) -> dict[str, Any]:
    """Mean of ``ours - theirs`` with its 95 % interval, and the share of seeds each side wins."""
    d = np.asarray(ours, float) - np.asarray(theirs, float)
    return {"mean": float(d.mean()), "ci95": ci95(d), "above": float(np.mean(d > 0)), "below": float(np.mean(d < 0))}


def summary(width: int, paths: list[GamePath], cpu: float) -> dict[str, Any]:
    """One width's line of the report."""
    scores, parts = np.array([p.score for p in paths]), np.array([p.parts for p in paths])
    return {
        "width": width,
        "mean": float(scores.mean()),
        "ci95": ci95(scores),
        "median": float(np.median(scores)),
        "min": int(scores.min()),
        "max": int(scores.max()),
        "turns": float(np.mean([len(p.candidates) for p in paths])),
        "breakdown": {k: float(v) for k, v in zip(SCORE_PARTS, parts.mean(axis=0))},
        **{f"over_{h}": float(np.mean(scores > h)) for h in (61, 75)},
        "reach_100": float(np.mean(scores >= DEFAULT_RULES.max_score)),
        "cpu_seconds": round(cpu, 1),
        "scores": scores.tolist(),
    }


def recorded_agents(results: Path, seeds: list[int]) -> list[dict[str, Any]]:
    """Per-seed scores of the agents in ``results/*.json`` (``numberdrop-evaluate --json``) that
    played every one of ``seeds``."""
    found = []
    for f in sorted(results.glob("*.json")):
        data = json.loads(f.read_text())
        if not isinstance(data.get("agents"), dict) or not isinstance(data.get("seed"), int) or "games" not in data:
            continue
        first, games = data["seed"], data["games"]
        for name, agent in data["agents"].items():
            scores = agent.get("scores") if isinstance(agent, dict) else None
            if isinstance(scores, list) and len(scores) == games and all(first <= s < first + games for s in seeds):
                found.append({"file": f"results/{f.name}", "agent": name, "scores": [scores[s - first] for s in seeds]})
    return found


def run(seeds: list[int], widths: list[int], limit: int, results: Path = RESULTS) -> dict[str, Any]:
    """Every width in turn, each keeping the previous one's games, and the recorded agents' gaps."""
    agents = recorded_agents(results, seeds)
    rows: list[dict[str, Any]] = []
    keep: list[GamePath] | None = None
    for width in widths:
        cpu = time.process_time()
        paths = beam_search(seeds, width, limit, keep)
        row = summary(width, paths, time.process_time() - cpu)
        if keep is not None:
            row["vs_previous"] = paired(row["scores"], [p.score for p in keep])
        print(
            f"width {width:>5}: mean {row['mean']:.2f}  > 61: {row['over_61']:.0%}  cpu {row['cpu_seconds']:.0f} s",
            flush=True,
        )
        rows.append(row)
        keep = paths
    gaps = [{**a, "mean": float(np.mean(a["scores"])), "gap": paired(rows[-1]["scores"], a["scores"])} for a in agents]
    return {
        "about": "mean final score of a player who knows every roll, by beam search over the known rolls",
        "seeds": f"{seeds[0]}..{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1)) else seeds,
        "games": len(seeds),
        "limit": limit,
        "headline": {k: rows[-1][k] for k in ("width", "mean", "ci95", "over_61", "over_75", "reach_100")},
        "cpu_seconds": round(sum(r["cpu_seconds"] for r in rows), 1),
        "widths": rows,
        "gaps": sorted(({k: g[k] for k in ("file", "agent", "mean", "gap")} for g in gaps), key=lambda g: -g["mean"]),
        "paths": [list(p.candidates) for p in keep or []],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.clairvoyant", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0..199", help="game seeds: A..B (both included) or a comma-separated list")
    parser.add_argument("--beams", default="1,8,32,128,512,1024", help="beam widths, comma-separated")
    parser.add_argument("--limit", type=int, default=8, help="candidates of each kept game expanded per turn")
    parser.add_argument("--out", type=Path, default=None, help="write the report here as JSON")
    args = parser.parse_args(argv)
    try:
        a, _, b = args.seeds.partition("..")
        seeds = list(range(int(a), int(b) + 1)) if b else [int(x) for x in args.seeds.split(",")]
        widths = sorted({int(x) for x in args.beams.split(",")})
    except ValueError:
        parser.error("--seeds is A..B or a list of ints, --beams a list of ints")
    if not seeds or min(seeds) < 0 or len(set(seeds)) != len(seeds) or widths[0] < 1 or args.limit < 1:
        parser.error("need seeds (none negative or repeated), widths >= 1 and a limit >= 1")
    report = run(seeds, widths, args.limit)
    for g in report["gaps"][:12]:
        print(f"{g['agent']:>8} {g['file']:<45} mean {g['mean']:6.2f}  gap {g['gap']['mean']:6.2f}")
    if args.out is not None:
        command = "python -m benchmarks.clairvoyant " + " ".join(sys.argv[1:] if argv is None else argv)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"command": command, **report}, indent=1) + "\n")


if __name__ == "__main__":
    main()
