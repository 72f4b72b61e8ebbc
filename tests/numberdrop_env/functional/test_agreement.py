"""The JAX engine plays the engine's game decision for decision: golden games unbatched, random
legal games batched under ``jit(vmap(...))``, the engine's dice given to the JAX engine."""

from __future__ import annotations

import json

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from numberdrop_env.engine.actions import PHASES
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.functional import from_game, to_game
from tests.golden.golden_playthrough import GOLDEN, SEEDS
from tests.numberdrop_env.functional.lockstep import (
    assert_games_agree,
    choose,
    compiled_lockstep,
    engine_moves,
    faces_of,
    stacked_states,
)

RANDOM_GAMES = 128


def _one(tree):
    return jax.tree.map(lambda x: np.asarray(x)[None], tree)


@pytest.mark.parametrize("seed", SEEDS)
def test_golden_game_agrees_unbatched(seed: int) -> None:
    records = [json.loads(line) for line in (GOLDEN / f"solo_seed{seed}.jsonl").read_text().splitlines()]
    game = SoloGame(seed=seed)
    state = from_game(game)
    for n, record in enumerate(records):
        where = f"seed {seed}, decision {n}"
        assert np.flatnonzero(np.asarray(state.legal_action_mask)).tolist() == record["legal"], where
        assert int(state.phase) == PHASES.index(game.phase), where
        action = record["action"]["action"]
        reward = game.step(action)
        state, parts, observation = compiled_lockstep()(state, action, faces_of(game))
        assert float(state.rewards[0]) == reward == record["reward"], where
        assert_games_agree([game], _one(state), _one(parts), _one(observation), where)
        assert to_game(state).to_dict(include_rng=False) == game.to_dict(include_rng=False), where
    assert game.is_over and bool(state.terminated)


def test_random_legal_games_agree_batched() -> None:
    games = [SoloGame(seed=10_000 + i) for i in range(RANDOM_GAMES)]
    rng = np.random.default_rng(0)
    state = stacked_states(games)
    decisions = 0
    while not all(g.is_over for g in games):
        decisions += sum(not g.is_over for g in games)
        # every other game seeks combinations
        actions, rewards = engine_moves(games, lambda i, game: choose(game, rng, combos=i % 2 == 1))
        before = state
        state, parts, observations = compiled_lockstep(batched=True)(
            state, actions, np.stack([faces_of(g) for g in games])
        )
        where = f"decision round {decisions}"
        np.testing.assert_array_equal(np.asarray(state.rewards[:, 0]), rewards, err_msg=where)
        assert_games_agree(games, state, parts, observations, where)
        done = np.asarray(before.terminated)  # a finished game stays as it was
        for name, old, new in zip(before.__dataclass_fields__, jax.tree.leaves(before), jax.tree.leaves(state)):
            if name != "rewards":
                np.testing.assert_array_equal(np.asarray(new)[done], np.asarray(old)[done], err_msg=name)
    assert decisions > 20 * RANDOM_GAMES
    boxes = np.asarray(state.identical) | np.asarray(state.consecutive)
    assert boxes.any(axis=1).mean() > 0.5 and np.asarray(state.letters).any()  # combinations were scored
