"""Self-play games of expert iteration: the network with Gumbel search at every turn's root.

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
