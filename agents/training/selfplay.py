"""Self-play games of expert iteration: the network with Gumbel search at every turn's root
(:func:`self_play`), or alone, exploring, for afterstate Q-iteration (:func:`q_self_play`).

Each turn of a solo game is offered as ``NumberDropTurn-v0`` offers it; the network gives its
logits over the candidates and the critic's value of the position; the search
(:func:`agents.numberdrop.gumbel.sequential_halving`) samples ``lookahead`` candidates by
Gumbel top-k and values them by the one-turn look-ahead of :class:`SearchPolicy` on the
same network's critic. The search's choice is played; the improved policy is recorded as the
policy target, with the points of the turn and the critic's value for the value targets.

A game depends only on its seed and the network (the rolls of the look-ahead and the Gumbel
noise are drawn from generators seeded by the game's seed), so a generation's data is the
same whatever the number of worker processes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch

from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.turn import pack_afterstates
from numberdrop_env.envs.vector import NumberDropTurnVectorEnv

from ..numberdrop.gumbel import sequential_halving
from ..numberdrop.ppo import LearnedValue, load_model, logits_and_value, look_ahead, offer_turns, turn_setup
from ..numberdrop.search import SearchPolicy

FIELDS = {
    "state": np.float32,
    "candidates": np.float32,
    "mask": np.bool_,
    "policy": np.float32,
    "reward": np.float32,
    "value": np.float32,
    "changed": np.bool_,
    "game": np.int64,
}
"""The arrays of self-play data and their types, one row per turn (``game``: the row's game,
for the returns)."""
Q_FIELDS = {**{k: v for k, v in FIELDS.items() if k != "policy"}, "played": np.float32}
"""The arrays of Q-iteration's self-play: ``played`` is the feature row of the candidate played,
which may lie beyond the slots the network is trained on (``candidates``)."""
Q_GRID_FIELDS = {"afterstates": np.uint8, "played_afterstate": np.uint8}
"""Q-iteration's self-play of a network that reads the candidates' grids (``env.afterstates``):
the grids of its own slots and of the candidate played (:func:`pack_afterstates`)."""


@dataclass(frozen=True)
class SearchSettings:
    lookahead: int = 8
    """Candidates sampled (Gumbel top-k) and then halved."""
    samples: int = 4
    """Sampled next rolls per candidate and round."""
    c_visit: float = 50.0
    c_scale: float = 0.1


def play_game(model: Any, seed: int, settings: SearchSettings) -> dict[str, np.ndarray]:
    """One self-play game: a row per turn (:data:`FIELDS`) and its final score."""
    setup = turn_setup(model)
    slots = setup.slots
    look = SearchPolicy(width=settings.lookahead, samples=settings.samples, critic=LearnedValue(model=model))
    look.reset(seed)
    noise = np.random.default_rng([seed, 1])  # the Gumbel noise on the logits: exploration
    game = SoloGame(seed=seed)
    rows: dict[str, list[Any]] = {k: [] for k in FIELDS}
    while not game.is_over:
        (offered,), batch, masks = offer_turns(setup, [game])
        logits, value = logits_and_value(model, batch, masks)
        gumbel = noise.gumbel(size=slots)
        found = sequential_halving(
            logits,
            masks[0],
            value,
            partial(look_ahead, look, game, offered),
            settings.lookahead,
            gumbel,
            settings.c_visit,
            settings.c_scale,
        )
        reward = offered.play(found.choice, game)
        row = {
            "state": batch["state"][0],
            "candidates": batch["candidates"][0],
            "mask": masks[0],
            "policy": found.policy,
            "reward": reward,
            "value": value,
            "changed": found.choice != found.prior_choice,
            "game": seed,
        }
        for key, item in row.items():
            rows[key].append(item)
    return {**{k: np.array(rows[k], dtype) for k, dtype in FIELDS.items()}, "score": np.array([game.score()], np.int64)}


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


def _play_chunk(path: str, seeds: list[int], settings: SearchSettings) -> dict[str, np.ndarray]:
    return concatenate([play_game(_model(path), s, settings) for s in seeds])


def concatenate(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def self_play(
    path: str | Path, seeds: Sequence[int], settings: SearchSettings, workers: int = 1, chunk: int = 4
) -> Iterator[dict[str, np.ndarray]]:
    """The games of ``seeds`` by the model at ``path``, a chunk of games at a time in seed order
    (the same data for any ``workers``)."""
    chunks = [list(seeds[i : i + chunk]) for i in range(0, len(seeds), chunk)]
    if workers <= 1:
        for part in chunks:
            yield _play_chunk(str(path), part, settings)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_play_chunk, [str(path)] * len(chunks), chunks, [settings] * len(chunks))


def q_self_play(
    path: str | Path, seeds: Sequence[int], epsilon: float, envs: int, seed: int, slots: int | None = None
) -> Iterator[dict[str, np.ndarray]]:
    """The games of ``seeds`` (game i from ``seeding.np_random(seeds[i])``, as the native vector
    env's ``reset(seed=...)``) by the network at ``path`` alone, ``envs`` at a time in one
    native vector env, offered ``slots`` candidates a turn (default: as many as it has slots):
    each turn it plays its highest logit, or with probability ``epsilon`` a uniformly drawn
    candidate (the draws from ``seed``). Yields each game as it ends, rows in turn order
    (:data:`Q_FIELDS`: ``candidates`` the network's own number of slots, ``played`` the
    candidate played, ``value`` the best logit over ``planner_scale`` (the network's value of
    the turn in points), ``changed`` whether the move was drawn; with :data:`Q_GRID_FIELDS` for
    a network that reads the candidates' grids). The same data for the same arguments."""
    model = _model(str(path))
    setup = turn_setup(model, slots)
    own = int(model.action_space.n)
    scale = float(model.policy.planner_scale)
    rng = np.random.default_rng(seed)
    queue = list(seeds)
    venv = NumberDropTurnVectorEnv(
        min(envs, len(queue)), candidates=setup.slots, width=setup.planner.width, afterstates=setup.afterstates
    )
    n = venv.num_envs
    fields = {**Q_FIELDS, **(Q_GRID_FIELDS if setup.afterstates else {})}
    owner: list[int | None] = [int(queue.pop(0)) for _ in range(n)]  # each env's game's seed (None: idle)
    rows: list[dict[str, list[Any]]] = [{k: [] for k in fields} for _ in range(n)]
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
            if setup.afterstates:
                row["afterstates"].append(pack_afterstates(obs_before["afterstates"][i, :own]))
                row["played_afterstate"].append(pack_afterstates(obs_before["afterstates"][i, actions[i]]))
        ended = [i for i in range(n) if owner[i] is not None and over[i]]
        for i in ended:
            part = {k: np.array(rows[i][k], dtype) for k, dtype in fields.items()}
            yield {**part, "score": np.array([int(info["score"][i])], np.int64)}
            rows[i] = {k: [] for k in fields}
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
