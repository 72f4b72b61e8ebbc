"""Expert iteration: the turn-level network trained on its own search's choices, generation
after generation (``algorithm: expert_iteration``; ``configs/expert_iteration.yaml``).

    python train.py --config configs/expert_iteration.yaml
    python train.py --config configs/expert_iteration.yaml --resume runs/expert_iteration

The network's look-ahead on its own critic plays better than the network alone; the network
does not learn that from PPO. Each generation:

1. **Self-play** (:mod:`agents.training.selfplay`): the best network so far plays
   ``expert.games`` games with Gumbel search at every turn, on every core.
2. **Targets**: the search's improved policy over the candidates, and as value the points the
   game still scored from each turn (``value_target: return``) or ``nstep`` turns of points
   plus the critic's value after them.
3. **Training**: the newest network fits the targets of the last ``expert.window``
   generations (the behaviour-cloning fit of :mod:`agents.training.imitation`, on
   distributions instead of actions).

With ``expert.targets: q`` (afterstate Q-iteration, ``configs/q_iteration.yaml``) the same
loop learns values instead: the newest network plays alone, exploring, in the native vector
env; each played candidate's logit over ``planner_scale`` is fitted to its lambda-return
(:func:`lambda_returns`), and so is the value head. ``init_from: null`` starts from a new
network whose logits are the planner's values. Steps 4 and after are the same:
4. **The paired gate**: the new network alone and the best one play the same
   ``expert.gate_games`` seeds; the new one becomes the best only when its mean paired
   difference is above 0. The difference and its 95 % interval are logged either way. In
   Q-iteration on more than one core the gate plays in a second process beside the next
   generation's self-play (which the newest network plays whatever the gate says).

The run directory holds ``generations/gen_<g>.zip`` (the network after generation ``g``;
``gen_000.zip`` is ``init_from``'s), ``best_model.zip`` (a copy of the best generation's: what
the closing table plays and ``ship_to`` ships), ``selfplay/gen_<g>.npz`` (the last ``expert.window``
generations': older ones are deleted),
``evals.jsonl`` and ``learning_curve.png`` (the gate's mean per generation, against self-play
turns), TensorBoard events (``game/*``: self-play, ``eval/*``: the gate, ``train/*``: the fit,
``search/*``: how far the search moved from the network), and ``expert_state.json``, written
last in each generation: a generation only adds files until the state takes them in, so
``--resume`` continues from the last finished generation, and a run resumed ends with the
same weights as one never stopped. A resume must keep the run's settings (only
``expert.generations`` and ``expert.workers`` may change); a new run in the same directory
starts afresh.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import shutil
import sys
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from stable_baselines3.common.logger import Logger, configure

from ..base import load_model
from ..evaluation.solo import Progress
from ..numberdrop.ppo import is_turn_model
from . import generations
from .checkpoints import append_jsonl, atomic_path, atomic_write
from .config import ExpertConfig, TrainConfig
from .generations import paired_gate
from .imitation import pretrain
from .resume import save_model
from .sb3 import build_model, close_out
from .selfplay import FIELDS, Q_FIELDS, Q_GRID_FIELDS, SearchSettings, concatenate, q_self_play, self_play
from .vec_env import NativeTurnVecEnv

_FREE = ("generations", "workers")
"""The ``expert`` settings a resumed run may change (the others decide its data and weights)."""
STATE = "expert_state.json"
"""The run's progress, written last in a generation: what ``--resume`` continues from."""


def find_state(path: str | Path) -> Path:
    """The run directory ``--resume`` names (the directory, or its ``expert_state.json``)."""
    return generations.find_state(path, STATE, "an expert-iteration run")


def value_targets(data: dict[str, np.ndarray], how: str, n: int) -> np.ndarray:
    """Each row's value target: the points its game still scored from that turn on (``return``),
    or ``n`` turns of them plus the recorded critic value ``n`` turns later (``nstep``; 0 past
    the end). Rows of a game are consecutive and in turn order."""
    reward, value, game = data["reward"].astype(np.float64), data["value"].astype(np.float64), data["game"]
    out = np.zeros(len(reward))
    starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
    for lo, hi in zip(starts, np.r_[starts[1:], len(reward)]):
        to_go = np.cumsum(reward[lo:hi][::-1])[::-1]
        if how == "return":
            out[lo:hi] = to_go
        else:
            later = np.r_[to_go[n:], np.zeros(min(n, hi - lo))]  # points from n turns on
            boot = np.r_[value[lo + n : hi], np.zeros(min(n, hi - lo))]
            out[lo:hi] = to_go - later + boot
    return out.astype(np.float32)


def lambda_returns(data: dict[str, np.ndarray], lam: float) -> np.ndarray:
    """Afterstate Q-iteration's target of each row: its points, plus ``1 - lam`` times the
    recorded value of the next row and ``lam`` times the next row's target (nothing after a
    game's last turn). ``lam`` 1 gives the points the game still scored, 0 a one-turn
    bootstrap. Where the next move was drawn at random (``changed``) the target takes the
    next row's value alone (Watkins's Q(lambda)): the targets are the greedy policy's, not
    lowered by exploring moves. Rows of a game are consecutive and in turn order."""
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


def fit_data(parts: list[dict[str, np.ndarray]], x: ExpertConfig) -> dict[str, np.ndarray]:
    """The fit's inputs (:func:`imitation.pretrain`'s names) from self-play generations."""
    data = concatenate(parts)
    if x.targets == "q":
        targets = np.concatenate([lambda_returns(p, x.td_lambda) for p in parts])
        grids = {"obs/afterstates": "afterstates", "played_afterstate": "played_afterstate"}
        return {
            "obs/state": data["state"],
            "obs/candidates": data["candidates"],
            **{name: data[key] for name, key in grids.items() if key in data},
            "played": data["played"],
            "q_targets": targets,
            "returns": targets,
        }
    return {
        "obs/state": data["state"],
        "obs/candidates": data["candidates"],
        "masks": data["mask"],
        "policy": data["policy"],
        "returns": np.concatenate([value_targets(p, x.value_target, x.nstep) for p in parts]),
    }


def gate_scores(path: str | Path, x: ExpertConfig) -> np.ndarray:
    """The network alone (its highest logit, as ``play_games`` plays it) on the gate's seeds, in
    seed order: ``expert.envs`` games at once in the native vector env."""
    seeds = list(range(x.gate_seed, x.gate_seed + x.gate_games))
    games = q_self_play(path, seeds, 0.0, x.envs, seed=0, slots=x.slots)
    score = {int(g["game"][0]): float(g["score"][0]) for g in games}
    return np.array([score[s] for s in seeds])


def _settings(x: ExpertConfig) -> SearchSettings:
    return SearchSettings(lookahead=x.lookahead, samples=x.samples, c_visit=x.c_visit, c_scale=x.c_scale)


def _selfplay_file(run_dir: Path, gen: int) -> Path:
    return run_dir / "selfplay" / f"gen_{gen:03d}.npz"


def _read_selfplay(path: Path, x: ExpertConfig, grids: bool = False) -> dict[str, np.ndarray]:
    """A generation's self-play data (``ValueError`` naming the file when it is damaged);
    ``grids``: of a network that reads the candidates' grids."""
    fields = {*(Q_FIELDS if x.targets == "q" else FIELDS), *(Q_GRID_FIELDS if grids else ()), "score"}
    return generations.read_arrays(path, fields, "self-play data")


def generate(
    run_dir: Path, gen: int, cfg: TrainConfig, player: Path, workers: int, progress: bool
) -> dict[str, np.ndarray]:
    """Generation ``gen``'s self-play by the network at ``player`` (read back when a stopped run
    had finished it; a damaged file is played again)."""
    x, path = cfg.expert, _selfplay_file(run_dir, gen)
    if path.is_file():
        try:
            return _read_selfplay(path, x, cfg.env.afterstates)
        except ValueError as err:
            print(f"note: {err}; playing generation {gen + 1} again", file=sys.stderr)
    seeds = [x.seed + gen * x.games + i for i in range(x.games)]
    parts = []
    bar = Progress(x.games, progress, f"generation {gen + 1} self-play")
    games = (
        q_self_play(player, seeds, x.epsilon, x.envs, seed=x.seed + gen, slots=x.slots)
        if x.targets == "q"
        else self_play(player, seeds, _settings(x), workers)
    )
    for part in games:
        parts.append(part)
        bar.update(len(part["score"]))
    bar.close()
    data = concatenate(parts)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path, ".npz") as tmp:
        np.savez(tmp, **data)
    return data


def _model_file(run_dir: Path, gen: int) -> Path:
    """The network after generation ``gen`` (0: the one of ``init_from``)."""
    return run_dir / "generations" / f"gen_{gen:03d}.zip"


def _start(
    cfg: TrainConfig, run_dir: Path, resume: Path | None, pool: Executor | None, workers: int, progress: bool
) -> dict[str, Any]:
    """The run's state: read back on ``--resume`` (what a stopped generation left after the
    state is dropped), else a new run from ``init_from`` (with a ``pool``, its gate beside the
    first self-play)."""
    settings = {"seed": cfg.seed, **{k: v for k, v in dataclasses.asdict(cfg.expert).items() if k not in _FREE}}
    if cfg.env.afterstates:
        settings["afterstates"] = True
    if resume is not None:
        state = generations.resume_state(run_dir, STATE, settings, "expert")
        _publish_best(run_dir, state)
        return state
    model = load_model(cfg.init_from) if cfg.init_from else _new_network(cfg)
    if not is_turn_model(model):
        raise ValueError(f"init_from {cfg.init_from!r}: expert iteration needs a turn-level model (NumberDropTurn-v0)")
    if cfg.expert.targets == "q":  # saved with every generation: the ppo agent offers as many (null: its own)
        model.turn_slots = cfg.expert.slots
    for stale in ("selfplay", "generations"):  # a new run never reads an earlier run's generations
        shutil.rmtree(run_dir / stale, ignore_errors=True)
    save_model(model, _model_file(run_dir, 0))
    scores = _gate_and_play_next(cfg, run_dir, -1, _model_file(run_dir, 0), pool, workers, progress)
    state = generations.first_state(run_dir, STATE, scores, settings)
    _publish_best(run_dir, state)
    start = cfg.init_from or "a new network"
    print(f"generation 0 ({start}): {scores.mean():.2f} alone on {len(scores)} gate games", file=sys.stderr)
    return state


def _new_network(cfg: TrainConfig) -> Any:
    """A turn-level network of the config's ``network`` section, started from the planner."""
    turn = dataclasses.replace(cfg, env=dataclasses.replace(cfg.env, interface="turn"))
    return build_model(turn, NativeTurnVecEnv(1, afterstates=cfg.env.afterstates))


def _publish_best(run_dir: Path, state: dict[str, Any]) -> None:
    """``best_model.zip``: a copy of the best generation's network, for the closing table and users."""
    with atomic_path(run_dir / "best_model.zip", ".zip") as tmp:
        shutil.copy2(_model_file(run_dir, state["best_generation"]), tmp)


def run_generation(
    cfg: TrainConfig,
    run_dir: Path,
    state: dict[str, Any],
    logger: Logger,
    workers: int,
    progress: bool,
    gate_pool: Executor | None = None,
) -> dict[str, Any]:
    """One generation: self-play, targets, fit, gate. Its files are new ones (the generation's
    self-play and network, and with ``gate_pool`` the next generation's self-play) until the
    state, written last, takes them in."""
    x, gen = cfg.expert, state["generation"]
    start = time.perf_counter()
    # Q-iteration learns the values of the policy it plays: the newest network plays (the gate
    # still decides which generation is the best); the search plays with the best network
    player = gen if x.targets == "q" else state["best_generation"]
    data = generate(run_dir, gen, cfg, _model_file(run_dir, player), workers, progress)
    earlier = range(max(0, gen - x.window + 1), gen)
    window = [data] + [_read_selfplay(_selfplay_file(run_dir, g), x, cfg.env.afterstates) for g in earlier]
    model = load_model(_model_file(run_dir, gen))
    torch.manual_seed(cfg.seed * 1000 + gen)
    fitted = pretrain(
        model,
        fit_data(window, x),
        x.epochs,
        x.batch_size,
        x.learning_rate,
        x.value_coef,
        seed=cfg.seed * 1000 + gen,
        progress=progress,
        desc=f"generation {gen + 1} fit",
    )[-1]
    candidate = save_model(model, _model_file(run_dir, gen + 1))
    scores = _gate_and_play_next(cfg, run_dir, gen, candidate, gate_pool, workers, progress)
    gate = paired_gate(scores, np.array(state["best_scores"]))
    turns = state["turns"] + len(data["reward"])
    entry = {
        **generations.gate_entry(gen + 1, turns, scores, gate),
        "selfplay_mean": float(data["score"].mean()),
        "search_changed": float(data["changed"].mean()),
        **_fit_entry(data, fitted, x),
        "seconds": time.perf_counter() - start,
    }
    _log(logger, entry, turns)
    append_jsonl(run_dir / "evals.jsonl", entry)
    new_state = generations.next_state(run_dir, STATE, state, scores, gate, turns)
    _drop_old_selfplay(run_dir, gen + 1, x.window)
    if gate["kept"]:
        _publish_best(run_dir, new_state)
    lo, hi = gate["paired_ci95"]
    changed = "drawn moves" if x.targets == "q" else "search changed"
    print(
        f"generation {gen + 1}: self-play {entry['selfplay_mean']:.2f}, alone {entry['score_mean']:.2f}, "
        f"paired {gate['paired_diff']:+.2f} [{lo:+.2f}, {hi:+.2f}] -> "
        f"{'kept' if gate['kept'] else 'not kept'}; {changed} {entry['search_changed']:.0%} of turns "
        f"({entry['seconds']:.0f} s)",
        file=sys.stderr,
    )
    return new_state


def _gate_and_play_next(
    cfg: TrainConfig, run_dir: Path, gen: int, candidate: Path, pool: Executor | None, workers: int, progress: bool
) -> np.ndarray:
    """The gate's scores of the network after generation ``gen`` (-1: the first network). With a
    ``pool`` (Q-iteration on more than one core) the gate plays in the pool's process while this
    one plays the next generation's self-play, which the newest network plays whatever the gate
    says: one process alone leaves about a third of two cores idle. The data are the same either
    way."""
    if pool is None or gen + 1 >= cfg.expert.generations:
        return gate_scores(candidate, cfg.expert)
    gate = pool.submit(gate_scores, candidate, cfg.expert)
    generate(run_dir, gen + 1, cfg, candidate, workers, progress)  # read back by the next generation
    return gate.result()


def _drop_old_selfplay(run_dir: Path, generation: int, window: int) -> None:
    """Delete the self-play data that no later generation reads (it is the bulk of a run: a
    Q-iteration generation's is about 270 MB). Done after the state is written, so a resume
    finds every file it reads."""
    for g in range(generation - window + 1):
        _selfplay_file(run_dir, g).unlink(missing_ok=True)


def _fit_entry(data: dict[str, np.ndarray], fitted: dict[str, float], x: ExpertConfig) -> dict[str, float]:
    """What the fit logs: the held-out errors, and for search targets their entropy."""
    if x.targets == "q":
        return {"q_mae": fitted["q_mae"], "value_mae": fitted["value_mae"]}
    policy = data["policy"].astype(np.float64)
    entropy = float(-(policy * np.log(np.where(policy > 0, policy, 1.0))).sum(axis=1).mean())
    return {"target_entropy": entropy, "policy_loss": fitted["nll"], "value_mae": fitted["value_mae"]}


def _log(logger: Logger, entry: dict[str, Any], turns: int) -> None:
    for key, name in (
        ("selfplay_mean", "game/score_mean"),
        ("score_mean", "eval/score_mean"),
        ("paired_diff", "eval/paired_diff"),
        ("kept", "eval/kept"),
        ("policy_loss", "train/policy_loss"),
        ("q_mae", "train/q_mae"),
        ("value_mae", "train/value_mae"),
        ("target_entropy", "search/target_entropy"),
        ("search_changed", "search/changed_share"),
    ):
        if key in entry:
            logger.record(name, float(entry[key]))
    logger.record("train/generation", entry["generation"])
    logger.dump(turns)


def train(cfg: TrainConfig, args: argparse.Namespace) -> dict[str, Any]:
    """Run the generations the config asks for (continuing a stopped run with ``--resume``),
    then the closing table of the best network."""
    torch.set_num_threads(cfg.network.torch_threads)
    resume: Path | None = getattr(args, "resume", None)
    progress = cfg.progress_bar and not getattr(args, "no_progress", False)
    run_dir = cfg.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    workers = cfg.expert.workers or os.cpu_count() or 1
    start = time.perf_counter()
    overlap = cfg.expert.targets == "q" and workers > 1
    # spawned, not forked: the worker starts without this process's torch and planner threads
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) if overlap else None
    try:
        state = _start(cfg, run_dir, resume, pool, workers, progress)  # a refused resume changes nothing
        atomic_write(run_dir / "config.yaml", yaml.safe_dump(cfg.to_dict(), sort_keys=False))
        logger = configure(str(run_dir), ["tensorboard"])
        try:
            while state["generation"] < cfg.expert.generations:
                state = run_generation(cfg, run_dir, state, logger, workers, progress, pool)
        finally:
            logger.close()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    seconds = time.perf_counter() - start
    best = run_dir / "best_model.zip"
    print(
        f"{state['generation']} generations in {seconds:.0f} s; best: generation {state['best_generation']} "
        f"({np.mean(state['best_scores']):.2f} alone on {cfg.expert.gate_games} gate games); run dir {run_dir}",
        file=sys.stderr,
    )
    curve = f"{cfg.experiment}: mean score alone on {cfg.expert.gate_games} gate games"
    summary = close_out(cfg, run_dir, best, curve, progress)
    return {
        "run_dir": str(run_dir),
        "best_model": str(best),
        "generations": state["generation"],
        "best_generation": state["best_generation"],
        "seconds": seconds,
        "final_eval": summary,
    }
