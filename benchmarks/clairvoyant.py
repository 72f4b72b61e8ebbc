"""A clairvoyant benchmark of solo Number Drop: how much a player who knew every roll would score.

``python -m benchmarks.clairvoyant [--seeds 0..199] [--beams 1,8,32,128,512,1024] [--limit 8]
[--out results/clairvoyant_200.json]``; ``--gaps-only`` recomputes only the gaps of the agents
recorded in ``results/`` since, against the widest beam of the report ``--out`` already holds.

A game seed's rolls are fixed before it starts: ``SoloGame(seed=seed)`` with the starting
number in the first column, then ``roll_faces`` of the game's generator, the dice every agent
meets on that seed (``agents.values.selfplay.play``). Knowing them, a player can search the
whole game instead of one turn. The search is a beam over packed games: each turn every
kept game's ``limit`` best candidates (``TurnPlanner.candidate_arrays``, one call for all the
games of all the seeds) are ranked by the score so far plus the candidate's planner value
(its points plus the planner's heuristic of the sheet it leaves); identical games are kept
once, the ``width`` best go on, and the best final score found is the answer. Width 1 is the
greedy agent's game.

Widths run in increasing order, and each wider beam keeps the narrower one's best game among
its own (one of its ``width`` places), so a seed's score never falls as the beam widens. The
answer is a game that can be played, so it is a lower bound on the best score the rolls allow;
that best score bounds every agent on the seed from above. What an agent scores below the
widest beam is its gap to clairvoyance; an agent may beat the beam on a seed where the
search missed the best game, and the share of such seeds says how far the beam is from the
true bound.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.cli.common import HelpFormatter, plain_text
from agents.evaluation.stats import ci95
from agents.values.selfplay import MAX_TURNS, play
from numberdrop_env.engine.rules import DEFAULT_RULES, Rules
from numberdrop_env.engine.sheet import SCORE_PARTS
from numberdrop_env.engine.solo import SoloGame, roll_faces
from numberdrop_env.planner.packing import MAX_ACTIONS, TurnArrays
from numberdrop_env.planner.turns import TurnPlanner

BEAMS = "1,8,32,128,512,1024"
MAX_STATES = 4096
"""Games enumerated in one call at most: a group of seeds holds ``MAX_STATES // width`` of them."""
RESULTS = Path(__file__).resolve().parents[1] / "results"
"""The recorded evaluations whose agents' per-seed scores the report compares with the bound."""
THRESHOLDS = (61, 75)
"""Scores of the rulebook's high-score table that the report counts games above."""


@dataclass(frozen=True)
class GamePath:
    """The game a search chose on one seed: its final score and parts, and each turn's candidate
    (its index among the planner's ``limit`` best) with its micro-actions (``engine.actions``)."""

    seed: int
    limit: int
    score: int
    parts: tuple[int, ...]
    candidates: tuple[int, ...]
    actions: tuple[tuple[int, ...], ...]

    @property
    def turns(self) -> int:
        return len(self.candidates)


@dataclass
class Search:
    """What a beam of ``width`` found on ``seeds``: per seed (in seed order) its best game, and the
    cost: candidate enumerations (games times turns) and seconds."""

    width: int
    limit: int
    paths: list[GamePath]
    enumerated: int
    cpu_seconds: float
    wall_seconds: float

    @property
    def scores(self) -> np.ndarray:
        return np.array([p.score for p in self.paths], np.int64)

    @property
    def parts(self) -> np.ndarray:
        return np.array([p.parts for p in self.paths], np.int64).reshape(len(self.paths), len(SCORE_PARTS))


def opening(seed: int, planner: TurnPlanner, limit: int, rules: Rules = DEFAULT_RULES) -> tuple[np.ndarray, np.ndarray]:
    """Seed ``seed``'s game at its first turn as a packed row, and the faces of its later rolls
    (``MAX_TURNS`` rows of ``roll_faces``): what ``agents.values.selfplay.play`` deals it."""
    game = SoloGame(rules, seed=seed)
    game.step(game.layout.start)  # the starting number in the first column, as the greedy writes it
    return planner.pack_batch([game], limit)[0], roll_faces(game.rng, rules, MAX_TURNS)


def check_settings(width: object, limit: object) -> None:
    """Refuse a width or a limit that is not a positive int."""
    for name, v in (("width", width), ("limit", limit)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")


def beam_search(
    seeds: Sequence[int],
    width: int,
    limit: int = 8,
    planner: TurnPlanner | None = None,
    rules: Rules = DEFAULT_RULES,
    keep: Sequence[GamePath] | None = None,
    max_states: int = MAX_STATES,
    on_group: Callable[[int, int], None] | None = None,
    scale: float = 1.0,
) -> Search:
    """The best game a beam of ``width`` finds on each of ``seeds``, knowing its rolls.

    ``keep`` (one path per seed, of the same ``limit``): games the beam must keep among its own,
    so that it scores at least as much on every seed (a narrower beam's ``Search.paths``).
    Seeds are searched in groups of ``max_states // width`` (at least one);
    ``on_group(done, total)`` is called as each group ends."""
    check_settings(width, limit)
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("seeds must not be empty")
    if keep is not None and [p.seed for p in keep] != seeds:
        raise ValueError("keep must hold one path per seed, in the order of seeds")
    if keep is not None and any(p.limit != limit for p in keep):
        raise ValueError(f"keep's paths must come from a search of the same limit ({limit})")
    if not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale < 0:
        raise ValueError(f"scale must be a finite number >= 0, got {scale!r}")
    if not isinstance(max_states, int) or max_states < 1:
        raise ValueError(f"max_states must be a positive int, got {max_states!r}")
    planner = planner or TurnPlanner()
    cpu, wall = time.process_time(), time.perf_counter()
    group = max(1, max_states // width)
    paths: list[GamePath] = []
    enumerated = 0
    for start in range(0, len(seeds), group):
        chunk = seeds[start : start + group]
        kept = None if keep is None else keep[start : start + group]
        found, n = _search_group(chunk, width, limit, planner, rules, kept, scale)
        paths += found
        enumerated += n
        if on_group is not None:
            on_group(len(paths), len(seeds))
    return Search(width, limit, paths, enumerated, time.process_time() - cpu, time.perf_counter() - wall)


class _Beam:
    """The kept games of a group of seeds, one row each, best first within a seed: packed rows,
    seed (position in the group), each turn's candidate and actions so far, and whether the row
    is on the path the beam must keep."""

    def __init__(self, states: np.ndarray, seed: np.ndarray, on_keep: np.ndarray) -> None:
        n = len(states)
        self.states, self.seed, self.on_keep = states, seed, on_keep
        self.candidates = np.full((n, MAX_TURNS), -1, np.int64)
        self.actions = np.full((n, MAX_TURNS, MAX_ACTIONS), -1, np.int16)

    def take(self, rows: np.ndarray) -> None:
        """Keep only ``rows`` (their histories follow them)."""
        self.states, self.seed, self.on_keep = self.states[rows], self.seed[rows], self.on_keep[rows]
        self.candidates, self.actions = self.candidates[rows], self.actions[rows]


def _search_group(
    seeds: list[int],
    width: int,
    limit: int,
    planner: TurnPlanner,
    rules: Rules,
    keep: Sequence[GamePath] | None,
    scale: float,
) -> tuple[list[GamePath], int]:
    """``beam_search`` of a few seeds at once, all their games in each turn's one enumeration."""
    dealt = [opening(s, planner, limit, rules) for s in seeds]
    faces = np.stack([f for _, f in dealt])
    g = len(seeds)
    forced = np.full((g, MAX_TURNS), -1, np.int64)
    if keep is not None:
        for i, p in enumerate(keep):
            forced[i, : p.turns] = p.candidates
    beam = _Beam(np.stack([row for row, _ in dealt]), np.arange(g), np.full(g, keep is not None))
    best = np.full(g, -(10**9), np.int64)
    best_parts = np.zeros((g, len(SCORE_PARTS)), np.int64)
    best_candidates = np.full((g, MAX_TURNS), -1, np.int64)
    best_actions = np.full((g, MAX_TURNS, MAX_ACTIONS), -1, np.int16)
    best_turns = np.zeros(g, np.int64)
    enumerated = 0
    for turn in range(MAX_TURNS):
        if not len(beam.states):
            break
        enumerated += len(beam.states)
        parent, cand, arrays = _expand(beam, turn, width, limit, planner, rules, forced, scale)
        children = beam.states[parent]
        chosen = TurnArrays(*(f[parent, cand].reshape((len(parent), 1) + f.shape[2:]) for f in arrays))
        over = planner.finish_turns(children, rules, np.arange(len(parent)), np.zeros(len(parent), np.int64), chosen)
        kept = _distinct_best(children, beam.seed[parent], over, width)
        parent, cand, children, over = parent[kept], cand[kept], children[kept], over[kept]
        on_keep = beam.on_keep[parent] & (cand == forced[beam.seed[parent], turn])
        beam.take(parent)
        beam.states, beam.on_keep = children, on_keep
        beam.candidates[:, turn] = cand
        beam.actions[:, turn] = chosen.actions[kept, 0]
        if over.any():
            parts, _ = planner.packed_scores(children[over], rules)
            for j, row in zip(np.flatnonzero(over).tolist(), parts):
                s = beam.seed[j]
                if row[-1] > best[s]:  # the first game found of the best score stays
                    best[s], best_parts[s], best_turns[s] = row[-1], row, turn + 1
                    best_candidates[s], best_actions[s] = beam.candidates[j], beam.actions[j]
        beam.take(np.flatnonzero(~over))
        planner.start_turns(beam.states, rules, np.arange(len(beam.states)), faces[beam.seed, turn])
    else:
        if len(beam.states):
            raise RuntimeError(f"a game outlasted {MAX_TURNS} turns")
    paths = []
    for i, seed in enumerate(seeds):
        t = int(best_turns[i])
        acts = tuple(tuple(int(a) for a in row[row >= 0]) for row in best_actions[i, :t])
        paths.append(
            GamePath(
                seed, limit, int(best[i]), tuple(best_parts[i].tolist()), tuple(best_candidates[i, :t].tolist()), acts
            )
        )
    return paths, enumerated


def _expand(
    beam: _Beam,
    turn: int,
    width: int,
    limit: int,
    planner: TurnPlanner,
    rules: Rules,
    forced: np.ndarray,
    scale: float,
) -> tuple[np.ndarray, np.ndarray, TurnArrays]:
    """The children worth playing out this turn, best first within each seed: (parent row,
    candidate, the candidate arrays). Ranked by score so far plus planner value (ties by
    parent, then candidate order); a seed's forced child comes first; ``2 * width + 1`` per
    seed at most, room for the duplicates that ``_distinct_best`` drops."""
    totals = planner.packed_scores(beam.states, rules)[0][:, -1]
    count, arrays, _ = planner.candidate_arrays(beam.states, rules, limit)
    rank = totals[:, None] + arrays.points + scale * (arrays.value - arrays.points)
    cols = np.arange(limit)[None, :]
    valid = cols < count[:, None]
    must = beam.on_keep[:, None] & (cols == forced[beam.seed, turn][:, None])
    if (beam.on_keep & ~must.any(axis=1)).any() or (must & ~valid).any():
        raise ValueError("a kept path is not among this search's candidates (another limit or planner?)")
    rank = np.where(must, np.inf, np.where(valid, rank, -np.inf))
    parent, cand = np.nonzero(valid)
    seed = beam.seed[parent]
    order = np.lexsort((parent * limit + cand, -rank[parent, cand], seed))
    parent, cand, seed = parent[order], cand[order], seed[order]
    room = _place_in_seed(seed) < 2 * width + 1
    return parent[room], cand[room], arrays


def _place_in_seed(seed: np.ndarray) -> np.ndarray:
    """Each row's place among the rows of its seed (rows grouped by seed, in order)."""
    n = len(seed)
    starts = np.flatnonzero(np.r_[True, seed[1:] != seed[:-1]])
    return np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))


def _distinct_best(children: np.ndarray, seed: np.ndarray, over: np.ndarray, width: int) -> np.ndarray:
    """Rows of the ``width`` best distinct children of each seed (the first of identical ones)."""
    keys = np.concatenate([seed[:, None], over[:, None].astype(np.int64), children], axis=1)
    _, first = np.unique(keys, axis=0, return_index=True)
    rows = np.sort(first)
    return rows[_place_in_seed(seed[rows]) < width]


def replay(path: GamePath, rules: Rules = DEFAULT_RULES) -> tuple[int, int]:
    """Play a path's actions through the engine (``SoloGame.step``) on its seed: (final score,
    sum of the score changes). Raises ValueError if an action is illegal or the game does not end."""
    game = SoloGame(rules, seed=path.seed)
    gained = game.step(game.layout.start)
    for turn in path.actions:
        if game.is_over:
            raise ValueError(f"seed {path.seed}: the game ended before its path did")
        for a in turn:
            gained += game.step(a)
    if not game.is_over:
        raise ValueError(f"seed {path.seed}: the path ends before the game does")
    return game.score(), gained


def reference_beam(
    seed: int, width: int, limit: int = 8, planner: TurnPlanner | None = None, rules: Rules = DEFAULT_RULES
) -> GamePath:
    """``beam_search`` of one seed in plain Python on ``SoloGame`` objects (clones), for the tests."""
    check_settings(width, limit)
    planner = planner or TurnPlanner()
    game = SoloGame(rules, seed=seed)
    game.step(game.layout.start)
    beam: list[tuple[SoloGame, list[int], list[tuple[int, ...]]]] = [(game, [], [])]
    best: GamePath | None = None
    while beam:
        ranked = []
        for p, (g, _, _) in enumerate(beam):
            offered = planner.candidates(g, limit)
            for k in range(len(offered)):
                ranked.append((-(g.score() + offered.arrays.value[k]), p, k, offered))
        ranked.sort(key=lambda r: r[:3])
        seen, kept = set(), []
        for _, p, k, offered in ranked[: 2 * width + 1]:
            g, cands, acts = beam[p]
            child = g.clone()
            offered.play(k, child)
            key = _game_key(child)
            if key not in seen and len(kept) < width:
                seen.add(key)
                n = int(offered.arrays.n_actions[k])
                kept.append((child, cands + [k], acts + [tuple(offered.arrays.actions[k, :n].tolist())]))
        beam = []
        for child, cands, acts in kept:
            if not child.is_over:
                beam.append((child, cands, acts))
            elif best is None or child.score() > best.score:
                parts = tuple(child.sheet.score_breakdown().values())
                best = GamePath(seed, limit, child.score(), parts, tuple(cands), tuple(acts))
    assert best is not None
    return best


def _game_key(game: SoloGame) -> tuple:
    s = game.sheet
    fields = (s.values, s.used, s.heights, game.notches, s.circled, s.identical, s.consecutive, s.crossed)
    return (game.is_over, s.bonus, *(f.tobytes() for f in (*fields, s.lines, s.penalties)), game.dice, game.shape_face)


def summary(search: Search) -> dict[str, Any]:
    """One width's line of the report: mean and interval, breakdown, shares above the
    thresholds, cost and the per-seed scores."""
    scores = search.scores
    return {
        "width": search.width,
        "mean": float(scores.mean()),
        "ci95": ci95(scores),
        "median": float(np.median(scores)),
        "min": int(scores.min()),
        "max": int(scores.max()),
        "turns": float(np.mean([p.turns for p in search.paths])),
        "breakdown": {k: float(v) for k, v in zip(SCORE_PARTS, search.parts.mean(axis=0))},
        **{f"over_{h}": float(np.mean(scores > h)) for h in THRESHOLDS},
        "reach_100": float(np.mean(scores >= DEFAULT_RULES.max_score)),
        "enumerated": search.enumerated,
        "cpu_seconds": round(search.cpu_seconds, 1),
        "wall_seconds": round(search.wall_seconds, 1),
        "scores": scores.tolist(),
    }


def paired(ours: np.ndarray, theirs: np.ndarray) -> dict[str, Any]:
    """Mean of ``ours - theirs`` with its 95 % interval, and the share of seeds each side wins."""
    d = np.asarray(ours, float) - np.asarray(theirs, float)
    return {"mean": float(d.mean()), "ci95": ci95(d), "above": float(np.mean(d > 0)), "below": float(np.mean(d < 0))}


def recorded_agents(results: Path, seeds: list[int]) -> list[dict[str, Any]]:
    """Per-seed scores of the agents in ``results/*.json`` (``numberdrop-evaluate``'s files) that
    played every one of ``seeds``: file, agent and the scores in seed order."""
    found = []
    for f in sorted(results.glob("*.json")):
        try:
            data = json.loads(f.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if not isinstance(data, dict) or not isinstance(data.get("agents"), dict):
            continue
        first, games = data.get("seed"), data.get("games")
        if not isinstance(first, int) or not isinstance(games, int):
            continue
        for name, agent in data["agents"].items():
            scores = agent.get("scores") if isinstance(agent, dict) else None
            if not isinstance(scores, list) or len(scores) != games:
                continue
            if all(first <= s < first + games for s in seeds):
                found.append(
                    {"file": f"{results.name}/{f.name}", "agent": name, "scores": [scores[s - first] for s in seeds]}
                )
    return found


def gaps(bound: np.ndarray, agents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each recorded agent's mean and its paired gap to the clairvoyant ``bound`` (bound minus agent)."""
    out = []
    for a in agents:
        s = np.asarray(a["scores"], float)
        out.append({"file": a["file"], "agent": a["agent"], "mean": float(s.mean()), "gap": paired(bound, s)})
    return sorted(out, key=lambda r: -r["mean"])


def parse_seeds(text: str) -> list[int]:
    """``"0..199"`` (both ends included) or ``"3,5,8"``."""
    try:
        if ".." in text:
            a, b = (int(x) for x in text.split(".."))
            seeds = list(range(a, b + 1))
        else:
            seeds = [int(x) for x in text.split(",")]
    except ValueError as err:
        raise ValueError(f"seeds {text!r} are not A..B or a comma-separated list of ints") from err
    if not seeds or min(seeds) < 0 or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds {text!r}: need at least one, none negative, none repeated")
    return seeds


def parse_beams(text: str) -> list[int]:
    """``"1,8,32"``: distinct positive widths, run in increasing order."""
    try:
        widths = sorted({int(x) for x in text.split(",")})
    except ValueError as err:
        raise ValueError(f"beams {text!r} are not a comma-separated list of ints") from err
    if not widths or widths[0] < 1:
        raise ValueError(f"beams {text!r}: widths must be >= 1")
    return widths


def run(
    seeds: list[int],
    widths: list[int],
    limit: int,
    scale: float = 1.0,
    results: Path = RESULTS,
    log: Callable[[str], None] = print,
    on_width: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Every width on ``seeds``, each keeping the previous one's games, and the gaps of the agents
    recorded in ``results``; the report as JSON-safe data, also handed to ``on_width`` as each
    width ends (the widest so far its headline)."""
    planner = TurnPlanner()
    greedy = play(None, seeds, limit=limit, planner=planner).scores.tolist()
    agents = recorded_agents(results, seeds)
    rows: list[dict[str, Any]] = []
    keep: list[GamePath] | None = None
    report: dict[str, Any] = {}
    for width in widths:

        def progress(done: int, total: int, width: int = width) -> None:
            log(f"width {width}: {done}/{total} seeds")

        search = beam_search(seeds, width, limit, planner, keep=keep, on_group=progress, scale=scale)
        row = summary(search)
        if keep is not None:
            row["vs_previous"] = paired(search.scores, np.array([p.score for p in keep]))
        log(
            f"width {width:>5}: mean {row['mean']:.2f} [{row['ci95'][0]:.2f}, {row['ci95'][1]:.2f}]  "
            f"> 61: {row['over_61']:.0%}  > 75: {row['over_75']:.0%}  100: {row['reach_100']:.0%}  "
            f"cpu {search.cpu_seconds:.0f} s"
        )
        rows.append(row)
        keep = search.paths
        report = _report(seeds, widths, limit, scale, planner, rows, search, greedy, agents)
        if on_width is not None:
            on_width(report)
    return report


def _report(
    seeds: list[int],
    widths: list[int],
    limit: int,
    scale: float,
    planner: TurnPlanner,
    rows: list[dict[str, Any]],
    headline: Search,
    greedy: list[int],
    agents: list[dict[str, Any]],
) -> dict[str, Any]:
    width_1 = rows[0]["scores"] if rows[0]["width"] == 1 else None
    return {
        "about": "mean final score of a player who knows every roll, by beam search over the known rolls",
        "seeds": f"{seeds[0]}..{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1)) else seeds,
        "games": len(seeds),
        "limit": limit,
        "planner": {"width": planner.width, "block_width": planner.block_width},
        "ranking": "score so far + the candidate's points + scale * the planner's heuristic",
        "scale": scale,
        "width_1_is_greedy": None if width_1 is None else width_1 == greedy,
        "recorded_greedy_is_width_1": {
            a["file"]: a["scores"] == width_1 for a in agents if a["agent"] == "greedy" and width_1 is not None
        },
        "widths_asked": widths,
        "complete": len(rows) == len(widths),
        "headline": {k: rows[-1][k] for k in ("width", "mean", "ci95", "over_61", "over_75", "reach_100")},
        "cpu_seconds": round(sum(r["cpu_seconds"] for r in rows), 1),
        "widths": rows,
        "gaps": gaps(headline.scores, agents),
        "paths": [list(p.candidates) for p in headline.paths],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.clairvoyant",
        description=plain_text(__doc__.split("\n\n")[0]),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--seeds", default="0..199", help="game seeds: A..B or a comma-separated list")
    parser.add_argument("--beams", default=BEAMS, help="beam widths, comma-separated")
    parser.add_argument("--limit", type=int, default=8, help="candidates of each kept game expanded per turn")
    parser.add_argument("--scale", type=float, default=1.0, help="weight of the planner's heuristic in the ranking")
    parser.add_argument("--out", type=Path, default=None, help="write the report here as JSON")
    parser.add_argument(
        "--gaps-only", action="store_true", help="recompute the gaps of the report in --out, searching nothing"
    )
    args = parser.parse_args(argv)
    if args.gaps_only:
        if args.out is None or not args.out.is_file():
            parser.error("--gaps-only needs --out naming an existing report")
        report = regap(json.loads(args.out.read_text()))
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        _print_gaps(report)
        return
    try:
        seeds, widths = parse_seeds(args.seeds), parse_beams(args.beams)
        check_settings(1, args.limit)
    except ValueError as err:
        parser.error(str(err))
    if not math.isfinite(args.scale) or args.scale < 0:
        parser.error(f"--scale must be a finite number >= 0, got {args.scale}")
    command = "python -m benchmarks.clairvoyant " + " ".join(sys.argv[1:] if argv is None else argv)

    def write(report: dict[str, Any]) -> None:
        if args.out is not None:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps({"command": command, **report}, indent=1) + "\n")

    report = run(seeds, widths, args.limit, args.scale, log=lambda line: print(line, flush=True), on_width=write)
    _print_gaps(report)


def regap(report: dict[str, Any], results: Path = RESULTS) -> dict[str, Any]:
    """``report`` with its gaps recomputed against its widest beam, for the agents recorded in
    ``results`` now (results written after the search are then paired with it too)."""
    seeds = report["seeds"]
    seeds = parse_seeds(seeds) if isinstance(seeds, str) else [int(s) for s in seeds]
    bound = np.asarray(report["widths"][-1]["scores"], float)
    if len(bound) != len(seeds):
        raise ValueError(f"the report's widest beam has {len(bound)} scores for {len(seeds)} seeds")
    return {**report, "gaps": gaps(bound, recorded_agents(results, seeds))}


def _print_gaps(report: dict[str, Any]) -> None:
    for g in report["gaps"][:12]:
        gap = g["gap"]
        print(f"{g['agent']:>8} {g['file']:<45} mean {g['mean']:6.2f}  gap {gap['mean']:6.2f} ± {_half(gap):.2f}")


def _half(d: dict[str, Any]) -> float:
    lo, hi = d["ci95"]
    return (hi - lo) / 2


if __name__ == "__main__":
    main()
