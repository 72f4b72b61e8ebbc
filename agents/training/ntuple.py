"""The table value's trainer (``algorithm: ntuple``, what ``make train`` runs): afterstate
TD(lambda) from self-play in rounds of shares, learnt in seed order, a paired gate every
``ntuple.gate_every`` games; resumed from its last gate (``ntuple_state.json``). See
``docs/research/ntuple.md``."""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import threading
import time
from collections.abc import Sequence
from functools import cache, partial
from pathlib import Path
from typing import Any

import numpy as np

from numberdrop_env.planner.turns import TurnPlanner

from ..evaluation.runner import Progress, pool
from ..values.ntuple import NTupleSpec, NTupleValue
from ..values.selfplay import Learner, Trajectory, play
from . import checkpoints, common
from .checkpoints import append_jsonl, atomic_path, read_arrays, resume_state, write_json
from .ntuple_config import NTupleConfig, NTupleLoop
from .scalars import ScalarWriter

STATE = "ntuple_state.json"
_FREE = {"games", "threads"}
"""The ``ntuple`` settings a resumed run may change (the others decide its games and weights)."""
KEEP = 2
"""Checkpoints kept (the newest)."""

find_state = partial(checkpoints.find_state, state_file=STATE, what="an n-tuple run")


def ship(best: Path, target: Path) -> None:
    shutil.copy2(best, target)
    print(f"shipped {best} -> {target}", file=sys.stderr)


def new_value(cfg: NTupleConfig) -> NTupleValue:
    """The run's first value: ``init_from``'s weights, else tables at 0."""
    x, threads = cfg.ntuple, cfg.ntuple.threads or os.cpu_count() or 1
    if cfg.init_from:
        return NTupleValue.load(cfg.init_from, threads=threads)
    return NTupleValue(NTupleSpec(tuple(x.families), x.stages), planner_share=x.planner_share, threads=threads)


@cache
def _value(families: tuple[str, ...], stages: int, share: float, threads: int) -> NTupleValue:
    """A value of this layout and threads, built once per process (its weights set per share)."""
    return NTupleValue(NTupleSpec(families, stages), planner_share=share, threads=threads)


def play_share(
    weights: np.ndarray, spec: tuple[Any, ...], x: dict[str, Any], seeds: Sequence[int], rng_seed: Sequence[int]
) -> tuple[list[Trajectory], np.ndarray, int]:
    """One share of a round (a task): the games of ``seeds`` by the value of ``weights`` (``spec``:
    families, stages, planner share); each game's afterstates and score, and the turns played."""
    value = _value(tuple(spec[0]), *spec[1:], x["threads"])
    value.weights = np.ascontiguousarray(weights)
    r = play(
        value,
        seeds,
        limit=x["limit"],
        parallel=x["parallel"],
        rng_seed=list(rng_seed),
        planner=_planner(x["width"]),
        record=True,
        epsilon=x["epsilon"],
    )
    return r.games or [], r.scores, r.turns


_PLANNERS: dict[tuple[int, int], TurnPlanner] = {}


def _planner(width: int) -> TurnPlanner:
    """This thread's planner (a planner keeps its rules' arrays; shares in threads keep apart)."""
    key = (width, threading.get_ident())
    if key not in _PLANNERS:
        _PLANNERS[key] = TurnPlanner(width=width)
    return _PLANNERS[key]


def share_tasks(cfg: NTupleConfig, value: NTupleValue, first: int, threads: int) -> list[tuple[Any, ...]]:
    """The tasks (``play_share``'s arguments: the round's weights, a share of its seeds, its
    exploration seed) of the round that starts at the run's game ``first``."""
    x, spec = cfg.ntuple, (list(value.spec.families), value.spec.stages, value.planner_share)
    settings = {"limit": x.limit, "parallel": x.parallel, "width": x.width, "epsilon": x.epsilon, "threads": threads}
    count = min(x.round_games, x.games - first)
    seeds = np.arange(x.seed + first, x.seed + first + count)
    parts = [p for p in np.array_split(seeds, min(x.shards, count)) if len(p)]
    return [(value.weights, spec, settings, p.tolist(), (cfg.seed, first, k)) for k, p in enumerate(parts)]


def _play_task(task: tuple[Any, ...]) -> tuple[list[Trajectory], np.ndarray, int]:
    return play_share(*task)


def learn_round(learner: Learner, results: list[tuple[list[Trajectory], np.ndarray, int]]) -> dict[str, float]:
    """Take a round's games in seed order; returns the round's self-play numbers."""
    sse, turns, scores = 0.0, 0, []
    for games, share_scores, share_turns in results:
        for game in games:
            sse += learner.learn(game)
        turns += share_turns
        scores.append(share_scores)
    score = np.concatenate(scores)
    return {"games": len(score), "turns": turns, "score_sum": float(score.sum()), "sse": sse}


def value_games(value: NTupleValue | None, x: NTupleLoop, seeds: list[int]) -> list[common.Result]:
    """The games of a value alone (``None``: the greedy planner's), in lockstep."""
    played = play(value, seeds, limit=x.limit, parallel=x.parallel, planner=_planner(x.width))
    return [common.Result(s, float(v)) for s, v in zip(seeds, played.scores)]


def _publish_best(run_dir: Path, value: NTupleValue) -> None:
    with atomic_path(run_dir / "best.npz", ".npz") as tmp:
        value.save(tmp)


def _settings(cfg: NTupleConfig) -> dict[str, Any]:
    return {"seed": cfg.seed, "init_from": cfg.init_from, **cfg.ntuple.model_dump(exclude=_FREE)}


def _start(cfg: NTupleConfig, run_dir: Path, learner: Learner, resume: Path | None) -> dict[str, Any]:
    """A resumed run's state (its learner brought back to its checkpoint), or a new run's, gated once."""
    if resume is not None:
        state = resume_state(run_dir, STATE, _settings(cfg), "ntuple", _FREE, "games")
        path = run_dir / state["checkpoint"]
        data = read_arrays(path, {"weights", "errors", "sizes"}, "n-tuple checkpoint")
        if data["weights"].shape != learner.value.weights.shape or data["errors"].shape != learner.errors.shape:
            raise ValueError(f"{path}: weights of another layout than this run's")
        learner.value.weights[:] = data["weights"]
        learner.errors[:], learner.sizes[:] = data["errors"], data["sizes"]
        return state
    for stale in ("checkpoints", "best.npz", "evals.jsonl"):
        target = run_dir / stale
        shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
    greedy = common.gate_scores(partial(value_games, None, cfg.ntuple), cfg.ntuple)
    scores = common.gate_scores(partial(value_games, learner.value, cfg.ntuple), cfg.ntuple)
    state = {
        "games": 0,
        "turns": 0,
        "best_games": 0,
        "best_scores": scores.tolist(),
        "greedy_scores": greedy.tolist(),
        "cpu_s": 0.0,
        "settings": _settings(cfg),
    }
    entry = _gate_entry(0, scores, state, {"kept": True}, {})
    append_jsonl(run_dir / "evals.jsonl", entry)
    _publish_best(run_dir, learner.value)
    return _commit(run_dir, learner, state)


def _commit(run_dir: Path, learner: Learner, state: dict[str, Any]) -> dict[str, Any]:
    """Checkpoint the learner (the weights, what they mean, temporal coherence's sums), write the
    state that names it (last), drop old checkpoints."""
    path = run_dir / "checkpoints" / f"ntuple_{state['games']:09d}.npz"
    with atomic_path(path, ".npz") as tmp:
        learner.value.save(tmp, errors=learner.errors, sizes=learner.sizes)
    state = {**state, "checkpoint": str(path.relative_to(run_dir))}
    write_json(run_dir / STATE, state)
    for old in sorted((run_dir / "checkpoints").glob("ntuple_*.npz"))[:-KEEP]:
        old.unlink()
    return state


def _gate_entry(
    games: int, scores: np.ndarray, state: dict[str, Any], gate: dict[str, Any], play_stats: dict[str, float]
) -> dict[str, Any]:
    vs_greedy = common.paired_gate(scores, state["greedy_scores"])
    return {
        **common.gate_entry(games, scores, gate, games=games),
        "turns": state["turns"],
        "cpu_s": state["cpu_s"],
        "diff_vs_greedy": vs_greedy["paired_diff"],
        "diff_vs_greedy_ci95": vs_greedy["paired_ci95"],
        **play_stats,
    }


def run_gate(
    cfg: NTupleConfig,
    run_dir: Path,
    learner: Learner,
    state: dict[str, Any],
    window: dict[str, float],
    logger: ScalarWriter,
) -> dict[str, Any]:
    """The gate after the rounds since the last one (``window``: their self-play sums)."""
    scores = common.gate_scores(partial(value_games, learner.value, cfg.ntuple), cfg.ntuple)
    gate = common.paired_gate(scores, state["best_scores"], cfg.ntuple.keep)
    stats = {
        "selfplay_mean": window["score_sum"] / max(window["games"], 1),
        "td_rmse": math.sqrt(window["sse"] / max(window["turns"], 1)),
    }
    entry = _gate_entry(state["games"], scores, state, gate, stats)
    logger.write(entry["games"], {name: entry[key] for key, name in _LOGGED.items()})
    append_jsonl(run_dir / "evals.jsonl", entry)
    if gate["kept"]:
        state = {**state, "best_games": state["games"], "best_scores": scores.tolist()}
        _publish_best(run_dir, learner.value)
    lo, hi = entry["diff_vs_greedy_ci95"]
    print(
        f"games {state['games']:,}: self-play {stats['selfplay_mean']:.2f}, alone {entry['score_mean']:.2f}, "
        f"{entry['diff_vs_greedy']:+.2f} [{lo:+.2f}, {hi:+.2f}] over greedy, paired with the best "
        f"{gate['paired_diff']:+.2f} -> {'kept' if gate['kept'] else 'not kept'} ({state['cpu_s']:.0f} CPU-s)",
        file=sys.stderr,
    )
    return _commit(run_dir, learner, state)


_LOGGED = {
    "selfplay_mean": "game/score_mean",
    "score_mean": "eval/score_mean",
    "diff_vs_greedy": "eval/diff_vs_greedy",
    "paired_diff": "eval/paired_diff",
    "kept": "eval/kept",
    "td_rmse": "train/td_rmse",
    "cpu_s": "train/cpu_seconds",
}


def run_rounds(
    cfg: NTupleConfig,
    run_dir: Path,
    learner: Learner,
    state: dict[str, Any],
    logger: ScalarWriter,
    progress: bool,
) -> dict[str, Any]:
    """Rounds until ``ntuple.games``, gated every ``ntuple.gate_every`` games and at the end; the
    shares run in threads (the compiled code holds no GIL) or as Ray tasks of a CPU each."""
    x, value = cfg.ntuple, learner.value
    ray = cfg.backend == "ray"
    workers = (cfg.ray.num_cpus or 0) if ray else min(x.shards, value.threads)
    bar = Progress(x.games - state["games"], progress, "self-play games")
    window = {"games": 0, "turns": 0, "score_sum": 0.0, "sse": 0.0}
    try:
        with pool(workers, "ray" if ray else "threads", cfg.ray.address) as where:
            while state["games"] < x.games:
                cpu = time.process_time()
                tasks = share_tasks(cfg, value, state["games"], 1 if ray else value.threads)
                played = learn_round(learner, where.map(_play_task, tasks, bar, lambda task: len(task[3])))
                games = state["games"] + played["games"]
                cpu_s = state["cpu_s"] + time.process_time() - cpu
                state = {**state, "games": games, "turns": state["turns"] + played["turns"], "cpu_s": cpu_s}
                window = {k: window[k] + played[k] for k in window}
                if games // x.gate_every > (games - played["games"]) // x.gate_every or games >= x.games:
                    state = run_gate(cfg, run_dir, learner, state, window, logger)
                    window = dict.fromkeys(window, 0)
    finally:
        bar.close()
    return state


def train(cfg: NTupleConfig, args: argparse.Namespace) -> dict[str, Any]:
    """Run the rounds (continuing a stopped run with ``--resume``), then the closing table."""
    run_dir, resume, progress = common.open_run(cfg, args)
    x = cfg.ntuple
    learner = Learner(new_value(cfg), x.alpha, x.lam, x.coherence)
    start = time.perf_counter()
    state = _start(cfg, run_dir, learner, resume)  # a refused resume changes nothing
    common.write_config(cfg, run_dir)
    with ScalarWriter(run_dir) as logger:
        state = run_rounds(cfg, run_dir, learner, state, logger, progress)
    seconds = time.perf_counter() - start
    said = (
        f"{state['games']:,} games in {seconds:.0f} s ({state['cpu_s'] / 3600:.2f} CPU-h); best after "
        f"{state['best_games']:,} games ({np.mean(state['best_scores']):.2f} on {x.gate_games} gate games)"
    )
    best = run_dir / "best.npz"
    numbers = {
        "best": str(best),
        "games": state["games"],
        "best_games": state["best_games"],
        "cpu_hours": state["cpu_s"] / 3600,
        "seconds": seconds,
    }
    curve = f"{cfg.experiment}: mean score alone on {x.gate_games} gate games"
    return common.close_out(
        cfg, run_dir, best, said, numbers, progress, ship, curve, "self-play games", limit=x.limit, width=x.width
    )
