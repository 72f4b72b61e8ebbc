"""The Gymnasium face: ``NumberDropJax-v0`` for ``gym.make`` (one game) and ``gym.make_vec`` (N
games, started again on the step after they end)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import gymnasium as gym

import numberdrop_env  # noqa: F401  (registers NumberDropJax-v0)
from numberdrop_env.functional.tables import OVER


def _legal(rng: np.random.Generator, mask) -> int:
    legal = np.flatnonzero(np.asarray(mask))
    return int(rng.choice(legal)) if len(legal) else 0  # a finished game's step is ignored


def _game(seed: int) -> tuple[list[int], float]:
    env = gym.make("NumberDropJax-v0", disable_env_checker=True)
    _, info = env.reset(seed=seed)
    rng, actions, total, over = np.random.default_rng(seed), [], 0.0, False
    while not over:
        actions.append(_legal(rng, info["action_mask"]))
        obs, reward, over, truncated, info = env.step(actions[-1])
        total += reward
        assert not truncated and obs.shape == env.observation_space.shape
    game = env.unwrapped.func_env.unpack(env.unwrapped.state)
    assert int(game.phase) == OVER and total == int(env.unwrapped.func_env.game.breakdown(game)["total"])
    return actions, total


def test_gym_make_plays_one_game_reproducibly() -> None:
    assert _game(3) == _game(3)
    with pytest.raises(ValueError, match="render_mode"):
        gym.make("NumberDropJax-v0", render_mode="ansi", disable_env_checker=True)


def test_gym_make_vec_plays_games_that_start_again() -> None:
    envs = gym.make_vec("NumberDropJax-v0", num_envs=4, vectorization_mode="vector_entry_point")
    assert envs.action_space.shape == (4,) and envs.observation_space.shape == (4, 2153)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, info = envs.reset(seed=0)
    func_env, rng, ended = envs.unwrapped.func_env, np.random.default_rng(0), 0
    for _ in range(120):
        actions = np.array([_legal(rng, m) for m in np.asarray(info["action_mask"])])
        _, reward, terminated, truncated, info = envs.step(actions)
        games = jax.vmap(func_env.unpack)(envs.unwrapped.state)
        np.testing.assert_array_equal(info["action_mask"], games.legal_action_mask)
        over = np.asarray(terminated)
        assert (np.asarray(games.phase)[over] == OVER).all()  # by the rules, never by an illegal action
        assert not np.asarray(truncated).any()
        ended += int(over.sum())
    assert ended >= 4
    envs.close()
