"""Afterstate Q-iteration (``algorithm: q_iteration``): each generation the newest turn-level
network plays alone, its played logits (over ``planner_scale``) and value head fit lambda-returns,
and a paired gate keeps the best; resumed from its last generation (``q_state.json``). See
``docs/research/q-iteration.md``."""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import os
import shutil
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch

from numberdrop_env.envs.vector import NumberDropTurnVectorEnv

from ..evaluation.runner import Progress
from ..numberdrop.network import is_turn_model, load_model, turn_setup
from . import checkpoints, common
from .checkpoints import append_jsonl, atomic_path, read_arrays, resume_state, write_json, write_jsonl
from .common import gate_entry, paired_gate
from .config import Env
from .imitation import concatenate, pretrain
from .q_iteration_config import QIterationConfig, QLoop
from .resume import save_model
from .sb3 import build_model, ship
from .sb3_config import Network, PPOConfig
from .scalars import ScalarWriter
from .vec_env import NativeTurnVecEnv

_FREE = {"generations", "workers"}
"""The ``q`` settings a resumed run may change (the others decide its data and weights)."""
STATE = "q_state.json"


Q_FIELDS = {
    "state": np.float32,
    "candidates": np.float32,
    "mask": np.bool_,
    "reward": np.float32,
    "value": np.float32,
    "changed": np.bool_,
    "game": np.int64,
    "played": np.float32,
}
"""Self-play data, a row per turn (``played``: the feature row played, maybe beyond the slots)."""


_MODELS: dict[str, Any] = {}


def _model(path: str) -> Any:
    """The model at ``path``, loaded once per process and file content."""
    key = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    if key not in _MODELS:
        torch.set_num_threads(1)  # one process per core
        _MODELS.clear()
        _MODELS[key] = load_model(path)
    return _MODELS[key]


def q_self_play(
    path: str | Path, seeds: Sequence[int], epsilon: float, envs: int, seed: int, slots: int | None = None
) -> Iterator[dict[str, np.ndarray]]:
    """The games of ``seeds`` by the network at ``path`` alone, ``envs`` at a time, offered ``slots``
    candidates a turn: its highest logit, or with probability ``epsilon`` a drawn one. Yields each
    game as it ends (``Q_FIELDS``; ``value``: the best logit in points, ``changed``: drawn)."""
    model = _model(str(path))
    setup = turn_setup(model, slots)
    own = int(model.action_space.n)
    scale = float(model.policy.planner_scale)
    rng = np.random.default_rng(seed)
    queue = list(seeds)
    venv = NumberDropTurnVectorEnv(min(envs, len(queue)), candidates=setup.slots, width=setup.planner.width)
    n = venv.num_envs
    owner: list[int | None] = [int(queue.pop(0)) for _ in range(n)]  # each env's game's seed (None: idle)
    rows: list[dict[str, list[Any]]] = [{k: [] for k in Q_FIELDS} for _ in range(n)]
    obs, _ = venv.reset(seed=list(owner))
    while any(o is not None for o in owner):
        masks = venv.action_masks()
        with torch.no_grad():
            logits = model.policy.heads({k: torch.as_tensor(v) for k, v in obs.items()})[0].numpy()
        actions, best = _explore(np.where(masks, logits, -np.inf), epsilon, rng)
        values = np.where(masks, logits, -np.inf).max(axis=1) / scale
        obs_before = obs
        obs, reward, over, _, info = venv.step(actions)
        for i in (i for i in range(n) if owner[i] is not None):
            state, candidates = obs_before["state"][i], obs_before["candidates"][i]
            turn = (state, candidates[:own], masks[i, :own], reward[i], values[i], actions[i] != best[i], owner[i])
            for key, value in zip(Q_FIELDS, (*turn, candidates[actions[i]])):
                rows[i][key].append(value)
        ended = [i for i in range(n) if owner[i] is not None and over[i]]
        for i in ended:
            part = {k: np.array(rows[i][k], dtype) for k, dtype in Q_FIELDS.items()}
            yield {**part, "score": np.array([int(info["score"][i])], np.int64)}
            rows[i] = {k: [] for k in Q_FIELDS}
            owner[i] = int(queue.pop(0)) if queue else None
        restart = np.array([i in ended and owner[i] is not None for i in range(n)])
        if restart.any():
            obs, _ = venv.reset(
                seed=[owner[i] if restart[i] else None for i in range(n)], options={"reset_mask": restart}
            )


def _explore(scores: np.ndarray, epsilon: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(the moves played, the best moves): the best, or with probability ``epsilon`` a drawn legal one."""
    best = scores.argmax(axis=1)
    actions = best.copy()
    drawn = rng.random(len(scores)) < epsilon
    for i in np.flatnonzero(drawn & np.isfinite(scores).any(axis=1)):
        actions[i] = rng.choice(np.flatnonzero(np.isfinite(scores[i])))
    return actions, best


find_state = partial(checkpoints.find_state, state_file=STATE, what="a Q-iteration run")


def lambda_returns(data: dict[str, np.ndarray], lam: float) -> np.ndarray:
    """Each row's target: its points, plus ``1 - lam`` times the next row's value and ``lam`` times
    its target; after a drawn move the next value alone (Watkins's Q(lambda))."""
    reward, value, game = data["reward"].astype(np.float64), data["value"].astype(np.float64), data["game"]
    drawn = data["changed"]
    out = np.zeros(len(reward))
    after = 0.0
    for t in range(len(reward) - 1, -1, -1):
        if t == len(reward) - 1 or game[t + 1] != game[t]:
            after = 0.0
        else:
            after = value[t + 1] if drawn[t + 1] else (1 - lam) * value[t + 1] + lam * after
        out[t] = after = reward[t] + after
    return out.astype(np.float32)


def fit_data(parts: list[dict[str, np.ndarray]], x: QLoop) -> dict[str, np.ndarray]:
    """The fit's inputs (``imitation.pretrain``'s names) from self-play generations."""
    data = concatenate(parts)
    targets = np.concatenate([lambda_returns(p, x.td_lambda) for p in parts])
    return {
        "obs/state": data["state"],
        "obs/candidates": data["candidates"],
        "played": data["played"],
        "q_targets": targets,
        "returns": targets,
    }


def q_games(path: str | Path, envs: int, slots: int | None, seeds: list[int]) -> list[common.Result]:
    """The games of a Q network alone (its highest logit), ``envs`` at once."""
    games = q_self_play(path, seeds, 0.0, envs, seed=0, slots=slots)
    score = {int(g["game"][0]): float(g["score"][0]) for g in games}
    return [common.Result(s, score[s]) for s in seeds]


def gate_scores(path: str | Path, x: QLoop) -> np.ndarray:
    return common.gate_scores(partial(q_games, path, x.envs, x.slots), x)


def _selfplay_file(run_dir: Path, gen: int) -> Path:
    return run_dir / "selfplay" / f"gen_{gen:03d}.npz"


def _read_selfplay(path: Path) -> dict[str, np.ndarray]:
    """A generation's self-play data (``ValueError`` naming the file when it is damaged)."""
    return read_arrays(path, {*Q_FIELDS, "score"}, "self-play data")


def generate(run_dir: Path, gen: int, cfg: QIterationConfig, player: Path, progress: bool) -> dict[str, np.ndarray]:
    """Generation ``gen``'s self-play by the network at ``player`` (read back when played before)."""
    x, path = cfg.q, _selfplay_file(run_dir, gen)
    if path.is_file():
        try:
            return _read_selfplay(path)
        except ValueError as err:
            print(f"note: {err}; playing generation {gen + 1} again", file=sys.stderr)
    seeds = [x.seed + gen * x.games + i for i in range(x.games)]
    parts = []
    bar = Progress(x.games, progress, f"generation {gen + 1} self-play")
    for part in q_self_play(player, seeds, x.epsilon, x.envs, seed=x.seed + gen, slots=x.slots):
        parts.append(part)
        bar.update(len(part["score"]))
    bar.close()
    data = concatenate(parts)
    with atomic_path(path, ".npz") as tmp:
        np.savez(tmp, **data)
    return data


def _model_file(run_dir: Path, gen: int) -> Path:
    """The network after generation ``gen`` (0: the first one)."""
    return run_dir / "generations" / f"gen_{gen:03d}.zip"


def _start(
    cfg: QIterationConfig, run_dir: Path, resume: Path | None, pool: Executor | None, progress: bool
) -> dict[str, Any]:
    """The run's state: read back on ``--resume``, else a new run's from ``init_from``."""
    settings = {"seed": cfg.seed, **cfg.q.model_dump(exclude=_FREE)}
    if resume is not None:
        state = resume_state(run_dir, STATE, settings, "q", _FREE, "generation")
        _publish_best(run_dir, state)
        return state
    if cfg.init_from:
        model = load_model(cfg.init_from)
    else:  # a turn-level network of the config's ``network`` section, started from the planner
        network = Network(**cfg.network.model_dump())
        model = build_model(PPOConfig(seed=cfg.seed, env=Env(interface="turn"), network=network), NativeTurnVecEnv(1))
    if not is_turn_model(model) or "afterstates" in model.observation_space.spaces:
        raise ValueError(
            f"init_from {cfg.init_from!r}: Q-iteration needs a turn-level model (NumberDropTurn-v0) "
            "that does not read the candidates' grids"
        )
    model.turn_slots = cfg.q.slots  # saved with every generation: the ppo agent offers as many (null: its own)
    for stale in ("selfplay", "generations"):  # a new run never reads an earlier run's generations
        shutil.rmtree(run_dir / stale, ignore_errors=True)
    save_model(model, _model_file(run_dir, 0))
    scores = _gate_and_play_next(cfg, run_dir, -1, _model_file(run_dir, 0), pool, progress)
    write_jsonl(run_dir / "evals.jsonl", [gate_entry(0, scores, {"kept": True}, generation=0)])
    state = {"generation": 0, "turns": 0, "best_generation": 0, "best_scores": scores.tolist(), "settings": settings}
    write_json(run_dir / STATE, state)
    _publish_best(run_dir, state)
    start = cfg.init_from or "a new network"
    print(f"generation 0 ({start}): {scores.mean():.2f} alone on {len(scores)} gate games", file=sys.stderr)
    return state


def _publish_best(run_dir: Path, state: dict[str, Any]) -> None:
    """``best_model.zip``: a copy of the best generation's network, for the closing table and users."""
    with atomic_path(run_dir / "best_model.zip", ".zip") as tmp:
        shutil.copy2(_model_file(run_dir, state["best_generation"]), tmp)


def run_generation(
    cfg: QIterationConfig,
    run_dir: Path,
    state: dict[str, Any],
    logger: ScalarWriter,
    progress: bool,
    gate_pool: Executor | None = None,
) -> dict[str, Any]:
    """One generation: self-play by the newest network, targets, fit, gate; its files count once
    the state, written last, takes them in."""
    x, gen = cfg.q, state["generation"]
    start = time.perf_counter()
    data = generate(run_dir, gen, cfg, _model_file(run_dir, gen), progress)
    earlier = range(max(0, gen - x.window + 1), gen)
    window = [data] + [_read_selfplay(_selfplay_file(run_dir, g)) for g in earlier]
    model = load_model(_model_file(run_dir, gen))
    torch.manual_seed(cfg.seed * 1000 + gen)
    fitted = pretrain(model, fit_data(window, x), x, cfg.seed * 1000 + gen, progress, f"generation {gen + 1} fit")[-1]
    candidate = save_model(model, _model_file(run_dir, gen + 1))
    scores = _gate_and_play_next(cfg, run_dir, gen, candidate, gate_pool, progress)
    gate = paired_gate(scores, np.array(state["best_scores"]))
    turns = state["turns"] + len(data["reward"])
    entry = {
        **gate_entry(turns, scores, gate, generation=gen + 1),
        "selfplay_mean": float(data["score"].mean()),
        "drawn": float(data["changed"].mean()),
        "q_mae": fitted["q_mae"],
        "value_mae": fitted["value_mae"],
        "seconds": time.perf_counter() - start,
    }
    logger.write(turns, {name: entry[key] for key, name in _LOGGED.items()})
    append_jsonl(run_dir / "evals.jsonl", entry)
    best = (gen + 1, scores.tolist()) if gate["kept"] else (state["best_generation"], state["best_scores"])
    new_state = {**state, "generation": gen + 1, "turns": turns, "best_generation": best[0], "best_scores": best[1]}
    write_json(run_dir / STATE, new_state)  # last: the generation's files are now the run's
    for g in range(gen + 2 - x.window):  # the data no later generation reads (about 270 MB each)
        _selfplay_file(run_dir, g).unlink(missing_ok=True)
    if gate["kept"]:
        _publish_best(run_dir, new_state)
    lo, hi = gate["paired_ci95"]
    print(
        f"generation {gen + 1}: self-play {entry['selfplay_mean']:.2f}, alone {entry['score_mean']:.2f}, "
        f"paired {gate['paired_diff']:+.2f} [{lo:+.2f}, {hi:+.2f}] -> "
        f"{'kept' if gate['kept'] else 'not kept'}; drawn moves {entry['drawn']:.0%} of turns "
        f"({entry['seconds']:.0f} s)",
        file=sys.stderr,
    )
    return new_state


def _gate_and_play_next(
    cfg: QIterationConfig, run_dir: Path, gen: int, candidate: Path, pool: Executor | None, progress: bool
) -> np.ndarray:
    """The gate's scores of the network after generation ``gen`` (-1: the first), with a ``pool``
    played beside the next generation's self-play (the same data either way)."""
    if pool is None or gen + 1 >= cfg.q.generations:
        return gate_scores(candidate, cfg.q)
    gate = pool.submit(gate_scores, candidate, cfg.q)
    generate(run_dir, gen + 1, cfg, candidate, progress)  # read back by the next generation
    return gate.result()


_LOGGED = {
    "selfplay_mean": "game/score_mean",
    "drawn": "game/drawn_share",
    "score_mean": "eval/score_mean",
    "paired_diff": "eval/paired_diff",
    "kept": "eval/kept",
    "q_mae": "train/q_mae",
    "value_mae": "train/value_mae",
    "generation": "train/generation",
}


def train(cfg: QIterationConfig, args: argparse.Namespace) -> dict[str, Any]:
    """Run the generations (continuing a stopped run with ``--resume``), then the closing table."""
    torch.set_num_threads(cfg.network.torch_threads)
    run_dir, resume, progress = common.open_run(cfg, args)
    workers = cfg.q.workers or os.cpu_count() or 1
    start = time.perf_counter()
    # spawned, not forked: the worker starts without this process's torch and planner threads
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) if workers > 1 else None
    try:
        state = _start(cfg, run_dir, resume, pool, progress)  # a refused resume changes nothing
        common.write_config(cfg, run_dir)
        with ScalarWriter(run_dir) as logger:
            while state["generation"] < cfg.q.generations:
                state = run_generation(cfg, run_dir, state, logger, progress, pool)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    seconds = time.perf_counter() - start
    said = (
        f"{state['generation']} generations in {seconds:.0f} s; best: generation {state['best_generation']} "
        f"({np.mean(state['best_scores']):.2f} alone on {cfg.q.gate_games} gate games)"
    )
    best = run_dir / "best_model.zip"
    numbers = {
        "best_model": str(best),
        "generations": state["generation"],
        "best_generation": state["best_generation"],
        "seconds": seconds,
    }
    curve = f"{cfg.experiment}: mean score alone on {cfg.q.gate_games} gate games"
    return common.close_out(cfg, run_dir, best, said, numbers, progress, ship, curve)
