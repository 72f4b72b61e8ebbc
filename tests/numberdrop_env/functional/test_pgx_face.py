"""The pgx face: a ``pgx.Env`` whose games are the JAX engine's, with pgx's conventions at the end."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("pgx")
import jax.numpy as jnp

from numberdrop_env.functional import NumberDrop
from numberdrop_env.functional.pgx_env import NumberDropPgx
from tests.numberdrop_env.functional.lockstep import compiled_lockstep

GAMES = 128  # the batch of the agreement tests, whose compiled step this one shares
ENV, ENGINE = NumberDropPgx(), NumberDrop()
STEP, INIT = jax.jit(jax.vmap(ENV.step)), jax.jit(jax.vmap(ENV.init))
FACES = jax.jit(jax.vmap(ENGINE.sample_faces))


def _actions(key: jax.Array, mask: jax.Array) -> jax.Array:
    return jax.vmap(lambda k, m: jax.random.categorical(k, jnp.where(m, 0.0, -jnp.inf)))(key, mask)


def test_the_pgx_env_plays_the_engines_games() -> None:
    env, engine = ENV, ENGINE
    assert env.num_actions == 412 and env.num_players == 1 and env.observation_shape == engine.observation_shape
    keys = jax.random.split(jax.random.PRNGKey(0), GAMES)
    state, game = INIT(keys), jax.vmap(engine.init)(keys)
    returns = np.zeros(GAMES)
    for t in range(250):
        keys = jax.random.split(jax.random.PRNGKey(t + 1), GAMES)
        actions = _actions(keys, game.legal_action_mask)
        state = STEP(state, actions, keys)
        game, _, observation = compiled_lockstep(batched=True)(game, actions, FACES(keys))
        returns += np.asarray(state.rewards[:, 0])
        np.testing.assert_array_equal(state.game.grid, game.grid)
    np.testing.assert_array_equal(state.observation, observation)
    assert np.asarray(state.terminated).all() and np.asarray(state.legal_action_mask).all()  # pgx's end
    assert not np.asarray(state.game.legal_action_mask).any()  # the exact mask stays in the game
    np.testing.assert_array_equal(returns, np.asarray(jax.vmap(engine.breakdown)(state.game)["total"]))


def test_the_pgx_env_refuses_an_illegal_action_and_a_missing_key() -> None:
    keys = jax.random.split(jax.random.PRNGKey(0), GAMES)
    state = INIT(keys)
    after = STEP(state, jnp.full(GAMES, 8, jnp.int32), keys)  # a slide in phase start
    assert np.asarray(after.terminated).all() and (np.asarray(after.rewards) == -1.0).all()
    with pytest.raises(TypeError, match="key"):
        ENV.step(state, jnp.zeros(GAMES, jnp.int32))
