"""The table value's trainer: afterstate TD(lambda) from millions of self-play games
(``algorithm: ntuple``, section ``ntuple``; ``configs/ntuple.yaml``).

    python train.py --config configs/ntuple.yaml
    python train.py --config configs/ntuple.yaml --resume runs/ntuple

The value (``agents.values.ntuple``) is a sum of table lookups over what scores on a sheet;
each turn a game plays the candidate of the most points now plus value among the planner's
``ntuple.limit`` best (``agents.values.selfplay``). The run goes in *rounds*:

1. **Self-play**: the round's ``ntuple.round_games`` games (seeds ``ntuple.seed + i``) are cut
   into ``ntuple.shards`` shares, each played with the weights the round starts with and its
   own exploration seed, one after another here or as Ray tasks (``backend: ray``). A share's
   games depend only on the weights and its seeds, so both backends play the same games.
2. **Learning**: the learner takes every game's afterstates in seed order, each moved towards
   its lambda-return (``td_update``).
3. Every ``ntuple.gate_every`` games, **the paired gate**: the value alone plays the gate's
   seeds; the difference with the best so far (and with the greedy planner on the same seeds)
   is logged, and the value becomes ``best.npz`` unless the gate shows it worse than the best
   (``ntuple.keep: not_worse``), or only when the difference is above 0 (``keep: better``).

The run directory holds ``checkpoints/ntuple_<games>.npz`` (the weights and the learner's
memory at each gate; the two newest are kept), ``best.npz`` (what the closing table plays and
``ship_to`` ships, loadable as ``--option ntuple.path=...``), ``evals.jsonl`` and
``learning_curve.png`` (the gate's mean against self-play games), TensorBoard events
(``game/*``: self-play, ``eval/*``: the gate, ``train/*``: the TD errors), and
``ntuple_state.json``, written last at each gate: ``--resume`` continues from the last gate
and ends with the weights of a run never stopped. A resume keeps the settings that decide the
games (only ``ntuple.games``, ``ntuple.threads``, ``backend`` and ``ray`` may change).
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from numberdrop_env.planner.turns import TurnPlanner

from ..evaluation.solo import Progress
from ..evaluation.stats import ci95
from ..registry import require_extra
from ..values.ntuple import NTupleSpec, NTupleValue
from ..values.selfplay import Learner, Learning, Trajectory, play
from . import common, generations
from .checkpoints import append_jsonl, atomic_path, write_json
from .ntuple_config import NTupleConfig, NTupleLoop
from .scalars import ScalarWriter

STATE = "ntuple_state.json"
"""The run's progress, written last at each gate: what ``--resume`` continues from."""
_FREE = {"games", "threads"}
"""The ``ntuple`` settings a resumed run may change (the others decide its games and weights)."""
KEEP = 2
"""Checkpoints kept (the newest)."""

Share = tuple[np.ndarray, list[int], tuple[int, ...]]
"""What one self-play task plays: the weights, its seeds and its exploration seed."""


def find_state(path: str | Path) -> Path:
    """The run directory ``--resume`` names (the directory, or its ``ntuple_state.json``)."""
    return generations.find_state(path, STATE, "an n-tuple run")


def new_value(cfg: NTupleConfig) -> NTupleValue:
    """The run's first value: ``init_from``'s weights, else tables at 0."""
    x, threads = cfg.ntuple, cfg.ntuple.threads or os.cpu_count() or 1
    if cfg.init_from:
        return NTupleValue.load(cfg.init_from, threads=threads)
    return NTupleValue(NTupleSpec(tuple(x.families), x.stages), planner_share=x.planner_share, threads=threads)


_VALUES: dict[tuple[Any, ...], NTupleValue] = {}


def play_share(
    weights: np.ndarray, spec: tuple[Any, ...], x: dict[str, Any], seeds: Sequence[int], rng_seed: Sequence[int]
) -> tuple[list[Trajectory], np.ndarray, int]:
    """One share of a round: the games of ``seeds`` played by the value of ``weights`` (its
    ``spec``: families, stages, planner share), exploring by ``rng_seed``; returns each game's
    afterstates and score, in seed order, and the turns played. What a Ray task runs."""
    key = (tuple(spec[0]), *spec[1:], x["threads"])
    if key not in _VALUES:  # built once per process: the layout and its threads
        families, stages, share = spec
        _VALUES[key] = NTupleValue(NTupleSpec(tuple(families), stages), planner_share=share, threads=x["threads"])
    value = _VALUES[key]
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


def _spec(value: NTupleValue) -> tuple[Any, ...]:
    return (list(value.spec.families), value.spec.stages, value.planner_share)


def _share_settings(x: NTupleLoop, threads: int) -> dict[str, Any]:
    return {"limit": x.limit, "parallel": x.parallel, "width": x.width, "epsilon": x.epsilon, "threads": threads}


def round_shares(cfg: NTupleConfig, value: NTupleValue, first: int) -> list[Share]:
    """The shares of the round that starts at the run's game ``first``."""
    x = cfg.ntuple
    count = min(x.round_games, x.games - first)
    seeds = np.arange(x.seed + first, x.seed + first + count)
    parts = [p for p in np.array_split(seeds, min(x.shards, count)) if len(p)]
    return [(value.weights, p.tolist(), (cfg.seed, first, k)) for k, p in enumerate(parts)]


class LocalPlayer:
    """Plays a round's shares in this process, side by side in threads on more than one core
    (the compiled enumeration and valuation hold no GIL, so one share's Python runs while the
    other's kernels do; each share's games are the same either way)."""

    def __init__(self, cfg: NTupleConfig, value: NTupleValue) -> None:
        self.spec, self.x = _spec(value), _share_settings(cfg.ntuple, value.threads)
        side_by_side = min(cfg.ntuple.shards, value.threads)
        self.pool = ThreadPoolExecutor(side_by_side) if side_by_side > 1 else None

    def __call__(self, shares: list[Share]) -> list[tuple[list[Trajectory], np.ndarray, int]]:
        if self.pool is None:
            return [play_share(w, self.spec, self.x, seeds, rng) for w, seeds, rng in shares]
        jobs = [self.pool.submit(play_share, w, self.spec, self.x, seeds, rng) for w, seeds, rng in shares]
        return [job.result() for job in jobs]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


class RayPlayer:
    """Plays a round's shares as Ray tasks (a CPU each), the weights sent once per round;
    the results come back in share order, as ``LocalPlayer`` gives them."""

    def __init__(self, cfg: NTupleConfig, value: NTupleValue) -> None:
        self.spec, self.x = _spec(value), _share_settings(cfg.ntuple, 1)  # a task has one CPU
        require_extra("rllib", "backend 'ray'")
        import ray  # the rllib extra: checked above, imported only by runs that use it

        self.ray = ray
        self.started = not ray.is_initialized()
        if self.started:
            address = cfg.ray.address or os.environ.get("RAY_ADDRESS")
            kwargs = {"address": address} if address else {"num_cpus": cfg.ray.num_cpus, "include_dashboard": False}
            ray.init(logging_level=logging.WARNING, **kwargs)
        self.task = ray.remote(num_cpus=1)(play_share)

    def __call__(self, shares: list[Share]) -> list[tuple[list[Trajectory], np.ndarray, int]]:
        weights = self.ray.put(shares[0][0])
        refs = [self.task.remote(weights, self.spec, self.x, seeds, rng) for _, seeds, rng in shares]
        return self.ray.get(refs)

    def close(self) -> None:
        if self.started:
            self.ray.shutdown()


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


def gate_scores(value: NTupleValue, x: NTupleLoop) -> np.ndarray:
    """The value alone (no exploration) on the gate's seeds, in seed order."""
    seeds = range(x.gate_seed, x.gate_seed + x.gate_games)
    return play(value, seeds, limit=x.limit, parallel=x.parallel, planner=_planner(x.width)).scores.astype(float)


def greedy_scores(x: NTupleLoop) -> np.ndarray:
    """The greedy planner on the gate's seeds (the same loop with no value: its games exactly)."""
    seeds = range(x.gate_seed, x.gate_seed + x.gate_games)
    return play(None, seeds, limit=x.limit, parallel=x.parallel, planner=_planner(x.width)).scores.astype(float)


def _checkpoint(run_dir: Path, games: int) -> Path:
    return run_dir / "checkpoints" / f"ntuple_{games:09d}.npz"


def save_checkpoint(path: Path, learner: Learner) -> None:
    """The weights, what they mean and the learner's memory (temporal coherence's sums)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path, ".npz") as tmp:
        learner.value.save(tmp, errors=learner.errors, sizes=learner.sizes)


def load_checkpoint(path: Path, learner: Learner) -> None:
    """Bring the learner back to a checkpoint (``ValueError`` naming a damaged one)."""
    data = generations.read_arrays(path, {"weights", "errors", "sizes"}, "n-tuple checkpoint")
    if data["weights"].shape != learner.value.weights.shape or data["errors"].shape != learner.errors.shape:
        raise ValueError(f"{path}: weights of another layout than this run's")
    learner.value.weights[:] = data["weights"]
    learner.errors[:], learner.sizes[:] = data["errors"], data["sizes"]


def _publish_best(run_dir: Path, value: NTupleValue) -> None:
    with atomic_path(run_dir / "best.npz", ".npz") as tmp:
        value.save(tmp)


def _settings(cfg: NTupleConfig) -> dict[str, Any]:
    return {"seed": cfg.seed, "init_from": cfg.init_from, **cfg.ntuple.model_dump(exclude=_FREE)}


def _start(cfg: NTupleConfig, run_dir: Path, learner: Learner, resume: Path | None) -> dict[str, Any]:
    """A resumed run's state (its learner brought back), or a new run's, gated once."""
    if resume is not None:
        state = generations.resume_state(run_dir, STATE, _settings(cfg), "ntuple", tuple(sorted(_FREE)), "games")
        load_checkpoint(run_dir / state["checkpoint"], learner)
        return state
    for stale in ("checkpoints", "best.npz", "evals.jsonl"):
        target = run_dir / stale
        shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
    greedy = greedy_scores(cfg.ntuple)
    scores = gate_scores(learner.value, cfg.ntuple)
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
    """Checkpoint the learner, then write the state that names it (last), then drop old checkpoints."""
    path = _checkpoint(run_dir, state["games"])
    save_checkpoint(path, learner)
    state = {**state, "checkpoint": str(path.relative_to(run_dir))}
    write_json(run_dir / STATE, state)
    for old in sorted((run_dir / "checkpoints").glob("ntuple_*.npz"))[:-KEEP]:
        old.unlink()
    return state


def _gate_entry(
    games: int, scores: np.ndarray, state: dict[str, Any], gate: dict[str, Any], play_stats: dict[str, float]
) -> dict[str, Any]:
    vs_greedy = generations.paired_gate(scores, np.array(state["greedy_scores"]))
    return {
        "step": games,
        "games": games,
        "score_mean": float(scores.mean()),
        "score_ci95": ci95(scores),
        **gate,
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
    scores = gate_scores(learner.value, cfg.ntuple)
    gate = generations.paired_gate(scores, np.array(state["best_scores"]), cfg.ntuple.keep)
    stats = {
        "selfplay_mean": window["score_sum"] / max(window["games"], 1),
        "td_rmse": math.sqrt(window["sse"] / max(window["turns"], 1)),
    }
    entry = _gate_entry(state["games"], scores, state, gate, stats)
    _log(logger, entry)
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
"""The gate entry's numbers TensorBoard shows, by their names there."""


def _log(logger: ScalarWriter, entry: dict[str, Any]) -> None:
    logger.write(entry["games"], {name: entry[key] for key, name in _LOGGED.items()})


def _player(cfg: NTupleConfig, value: NTupleValue) -> LocalPlayer | RayPlayer:
    return RayPlayer(cfg, value) if cfg.backend == "ray" else LocalPlayer(cfg, value)


def run_rounds(
    cfg: NTupleConfig,
    run_dir: Path,
    learner: Learner,
    state: dict[str, Any],
    logger: ScalarWriter,
    progress: bool,
    should_stop: Callable[[], bool] = lambda: False,
) -> dict[str, Any]:
    """Rounds until ``ntuple.games``, a gate every ``ntuple.gate_every`` games and at the end."""
    x = cfg.ntuple
    player = _player(cfg, learner.value)
    bar = Progress(x.games - state["games"], progress, "self-play games")
    window = {"games": 0, "turns": 0, "score_sum": 0.0, "sse": 0.0}
    try:
        while state["games"] < x.games and not should_stop():
            cpu = time.process_time()
            played = learn_round(learner, player(round_shares(cfg, learner.value, state["games"])))
            games = state["games"] + played["games"]
            cpu_s = state["cpu_s"] + time.process_time() - cpu
            state = {**state, "games": games, "turns": state["turns"] + played["turns"], "cpu_s": cpu_s}
            window = {k: window[k] + played[k] for k in window}
            bar.update(played["games"])
            if games // x.gate_every > (games - played["games"]) // x.gate_every or games >= x.games:
                state = run_gate(cfg, run_dir, learner, state, window, logger)
                window = dict.fromkeys(window, 0)
    finally:
        bar.close()
        player.close()
    return state


def train(cfg: NTupleConfig, args: argparse.Namespace) -> dict[str, Any]:
    """Run the rounds the config asks for (continuing a stopped run with ``--resume``), then
    the closing table of the best weights."""
    run_dir, resume, progress = common.open_run(cfg, args)
    x = cfg.ntuple
    learner = Learner(new_value(cfg), Learning(x.alpha, x.lam, x.epsilon, x.coherence))
    start = time.perf_counter()
    state = _start(cfg, run_dir, learner, resume)  # a refused resume changes nothing
    common.write_config(cfg, run_dir)
    with ScalarWriter(run_dir) as logger:
        state = run_rounds(cfg, run_dir, learner, state, logger, progress)
    seconds = time.perf_counter() - start
    best = run_dir / "best.npz"
    print(
        f"{state['games']:,} games in {seconds:.0f} s ({state['cpu_s'] / 3600:.2f} CPU-h); best after "
        f"{state['best_games']:,} games ({np.mean(state['best_scores']):.2f} on {x.gate_games} gate games); "
        f"run dir {run_dir}",
        file=sys.stderr,
    )
    curve = f"{cfg.experiment}: mean score alone on {x.gate_games} gate games"
    common.write_learning_curve(run_dir, curve, "self-play games")
    options = {"path": str(best), "limit": x.limit, "width": x.width}
    summary = common.final_evaluation(cfg, cfg.model_agent, options, run_dir, progress)
    if cfg.ship_to:
        shutil.copy2(best, cfg.ship_to)
        print(f"shipped {best} -> {cfg.ship_to}", file=sys.stderr)
    return {
        "run_dir": str(run_dir),
        "best": str(best),
        "games": state["games"],
        "best_games": state["best_games"],
        "cpu_hours": state["cpu_s"] / 3600,
        "seconds": seconds,
        "final_eval": summary,
    }
