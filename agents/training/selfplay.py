"""Self-play games of afterstate Q-iteration: the network alone, exploring, in the native vector
env (``q_self_play``).

A game depends only on its seed, the network and the seed of the exploring draws, so a
generation's data is the same however it is played.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from numberdrop_env.envs.vector import NumberDropTurnVectorEnv

from ..numberdrop.network import load_model, turn_setup

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
"""The arrays of self-play data and their types, one row per turn: ``candidates`` the network's
own slots, ``played`` the feature row of the candidate played (which may lie beyond them),
``game`` the row's game (for the returns)."""


_MODELS: dict[str, Any] = {}


def _model(path: str) -> Any:
    """The model at ``path``, loaded once per process and file content (``best_model.zip``
    changes between generations)."""
    key = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    if key not in _MODELS:
        torch.set_num_threads(1)  # one process per core
        _MODELS.clear()
        _MODELS[key] = load_model(path)
    return _MODELS[key]


def concatenate(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def q_self_play(
    path: str | Path, seeds: Sequence[int], epsilon: float, envs: int, seed: int, slots: int | None = None
) -> Iterator[dict[str, np.ndarray]]:
    """The games of ``seeds`` (game i from ``seeding.np_random(seeds[i])``, as the native vector
    env's ``reset(seed=...)``) by the network at ``path`` alone, ``envs`` at a time in one
    native vector env, offered ``slots`` candidates a turn (default: as many as it has slots):
    each turn it plays its highest logit, or with probability ``epsilon`` a uniformly drawn
    candidate (the draws from ``seed``). Yields each game as it ends, rows in turn order
    (``Q_FIELDS``: ``candidates`` the network's own number of slots, ``played`` the
    candidate played, ``value`` the best logit over ``planner_scale`` (the network's value of
    the turn in points), ``changed`` whether the move was drawn). The same data for the same
    arguments."""
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
        for i in range(n):
            if owner[i] is None:
                continue
            row = rows[i]
            row["state"].append(obs_before["state"][i])
            row["candidates"].append(obs_before["candidates"][i, :own])
            row["mask"].append(masks[i, :own])
            row["played"].append(obs_before["candidates"][i, actions[i]])
            row["reward"].append(reward[i])
            row["value"].append(values[i])
            row["changed"].append(actions[i] != best[i])
            row["game"].append(owner[i])
        ended = [i for i in range(n) if owner[i] is not None and over[i]]
        for i in ended:
            part = {k: np.array(rows[i][k], dtype) for k, dtype in Q_FIELDS.items()}
            yield {**part, "score": np.array([int(info["score"][i])], np.int64)}
            rows[i] = {k: [] for k in Q_FIELDS}
            owner[i] = int(queue.pop(0)) if queue else None
        if ended:
            restart = np.zeros(n, bool)
            restart[[i for i in ended if owner[i] is not None]] = True
            if restart.any():
                obs, _ = venv.reset(
                    seed=[owner[i] if restart[i] else None for i in range(n)], options={"reset_mask": restart}
                )


def _explore(scores: np.ndarray, epsilon: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(the moves played, the best moves): each game's highest score, or with probability
    ``epsilon`` a uniformly drawn legal move (games with none legal: move 0)."""
    best = scores.argmax(axis=1)
    actions = best.copy()
    drawn = rng.random(len(scores)) < epsilon
    for i in np.flatnonzero(drawn & np.isfinite(scores).any(axis=1)):
        actions[i] = rng.choice(np.flatnonzero(np.isfinite(scores[i])))
    return actions, best
