"""The native vector env of NumberDropTurn-v0: the same games as N single envs, checked actions,
NEXT_STEP autoreset, seeding, spaces and ``gym.make_vec``."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

import numberdrop_env  # noqa: F401 - registers the environments
from numberdrop_env.envs import vector
from numberdrop_env.envs.turn import NumberDropTurnEnv
from numberdrop_env.envs.vector import NumberDropTurnVectorEnv


def random_actions(rng: np.random.Generator, masks: np.ndarray, junk: int = -7) -> np.ndarray:
    """A random legal action per game; ``junk`` (not even in the action space) for a finished
    game, whose action the next step ignores."""
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else junk for m in masks], np.int64)


def assert_same(obs, info, i, single_obs, single_info, where):
    assert obs.keys() == single_obs.keys(), where
    for key in obs:
        assert np.array_equal(obs[key][i], single_obs[key]), (where, key)
    assert np.array_equal(info["action_mask"][i], single_info["action_mask"]), where
    for key in ("score", "turn", "candidate_count", "boxes", "illegal_action"):
        assert info[key][i] == single_info[key] and info["_" + key][i], (where, key)
    assert np.array_equal(info["score_breakdown"][i], single_info["score_breakdown"]), where
    assert info["_score_breakdown"][i], where


@pytest.mark.parametrize(
    "n, slots, seed, afterstates, ahead", [(4, 32, 3, False, 32), (3, 5, 40, False, 2), (2, 8, 9, True, 5)]
)
def test_the_same_games_as_single_envs_across_autoresets(n, slots, seed, afterstates, ahead, monkeypatch):
    monkeypatch.setattr(vector, "ROLLS_AHEAD", ahead)  # few rolls drawn ahead: games draw again mid-game
    venv = NumberDropTurnVectorEnv(num_envs=n, candidates=slots, afterstates=afterstates)
    singles = [NumberDropTurnEnv(candidates=slots, afterstates=afterstates) for _ in range(n)]
    obs, info = venv.reset(seed=seed)
    state = [env.reset(seed=seed + i) for i, env in enumerate(singles)]
    rng = np.random.default_rng(seed)
    ended, starts = np.zeros(n, bool), 0
    finished = 0
    for t in range(320):
        for i in range(n):
            assert_same(obs, info, i, *state[i], (t, i))
        if t % 7 == 0:  # the games, kept packed between turns, read back as the single envs' games
            assert [g.to_dict() for g in venv.games] == [env.game.to_dict() for env in singles], t
            for mine, theirs in zip(venv.offered, (env.offered for env in singles)):
                assert all(np.array_equal(x, y) for x, y in zip(mine.arrays, theirs.arrays)), t
        assert np.array_equal(venv.action_masks(), info["action_mask"])
        assert all(info["action_mask"][i].any() != ended[i] for i in range(n))  # exact: empty only when finished
        actions = random_actions(rng, info["action_mask"])
        obs, rewards, terminated, truncated, info = venv.step(actions)
        assert rewards.dtype == np.float64 and terminated.dtype == truncated.dtype == np.bool_
        assert not truncated.any()
        for i, env in enumerate(singles):
            if ended[i]:  # NEXT_STEP: the finished game is replaced, its action ignored
                state[i] = env.reset()
                reward, done = 0.0, False
                starts += 1
            else:
                single_obs, reward, done, cut, single_info = env.step(int(actions[i]))
                state[i] = (single_obs, single_info)
                assert not cut
            assert rewards[i] == reward and terminated[i] == done, (t, i)
        finished += int(terminated.sum())
        ended = terminated
    assert finished >= 2 * n and starts >= n  # several games ended and restarted in every slot
    # a reset without a seed continues each game's generator, as the single env's does
    obs, info = venv.reset()
    for i, env in enumerate(singles):
        assert_same(obs, info, i, *env.reset(), ("reset", i))


def test_seeds_reproduce_and_a_list_seeds_each_game():
    a, b = NumberDropTurnVectorEnv(num_envs=3), NumberDropTurnVectorEnv(num_envs=3)
    obs_a, info_a = a.reset(seed=[9, 10, 11])
    obs_b, info_b = b.reset(seed=9)
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(30):
        assert all(np.array_equal(obs_a[k], obs_b[k]) for k in obs_a)
        obs_a, r_a, *_, info_a = a.step(random_actions(rng_a, info_a["action_mask"]))
        obs_b, r_b, *_, info_b = b.step(random_actions(rng_b, info_b["action_mask"]))
        assert np.array_equal(r_a, r_b)
    single = NumberDropTurnEnv()
    obs, _ = a.reset(seed=[None, 5, None])  # None: that game continues its own generator
    assert np.array_equal(obs["state"][1], single.reset(seed=5)[0]["state"])


def test_masked_and_malformed_actions_are_refused_and_change_nothing():
    venv = NumberDropTurnVectorEnv(num_envs=3, candidates=32)
    with pytest.raises(ValueError, match="reset"):
        venv.step(np.zeros(3, np.int64))
    obs, info = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(2):  # past the starting number: turns with fewer candidates than slots
        obs, _, _, _, info = venv.step(random_actions(rng, info["action_mask"]))
    masks = venv.action_masks()
    before = [g.to_dict() for g in venv.games]
    good = random_actions(rng, masks)
    masked = good.copy()
    masked[2] = int(np.flatnonzero(~masks[2])[0]) if (~masks[2]).any() else 32
    outside = good.copy()
    outside[1] = 32
    negative = good.copy()
    negative[0] = -1
    for bad, error, words in [
        (masked, ValueError, "env 2"),
        (outside, ValueError, "env 1"),
        (negative, ValueError, "env 0"),
        (good.astype(float), TypeError, "integers"),
        (good > 0, TypeError, "integers"),
        (good[:2], ValueError, "shape"),
        ([[0, 0, 0]], ValueError, "shape"),
    ]:
        with pytest.raises(error, match=words):
            venv.step(bad)
        assert [g.to_dict() for g in venv.games] == before  # no game advanced, not even the legal ones
        assert np.array_equal(venv.action_masks(), masks)
    venv.step(good)  # still playable after the refusals
    assert [g.turn for g in venv.games] == [d["turn"] + 1 for d in before]


def test_reset_mask_restarts_only_the_chosen_games():
    venv = NumberDropTurnVectorEnv(num_envs=3)
    obs, info = venv.reset(seed=4)
    obs, _, _, _, info = venv.step(random_actions(np.random.default_rng(0), info["action_mask"]))
    kept = [venv.games[0].to_dict(), venv.games[2].to_dict()]
    new, reset_info = venv.reset(options={"reset_mask": np.array([False, True, False])})
    assert [venv.games[0].to_dict(), venv.games[2].to_dict()] == kept
    assert venv.games[1].turn == 0 and reset_info["_score"].tolist() == [False, True, False]
    assert np.array_equal(new["state"][[0, 2]], obs["state"][[0, 2]])
    assert np.array_equal(new["candidates"][[0, 2]], obs["candidates"][[0, 2]])
    with pytest.raises(ValueError, match="reset_mask"):
        venv.reset(options={"reset_mask": [True, False, True]})
    with pytest.raises(ValueError, match="unknown reset options"):
        venv.reset(options={"nonsense": 1})


def test_make_vec_and_spaces():
    envs = gym.make_vec("NumberDropTurn-v0", num_envs=3, vectorization_mode="vector_entry_point", candidates=16)
    single = NumberDropTurnEnv(candidates=16)
    try:
        assert isinstance(envs.unwrapped, NumberDropTurnVectorEnv) and envs.num_envs == 3
        assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
        assert envs.single_observation_space == single.observation_space
        assert envs.single_action_space == spaces.Discrete(16)
        assert envs.action_space == spaces.MultiDiscrete([16, 16, 16])
        assert envs.observation_space["state"].shape == (3, single.observation_space["state"].shape[0])
        assert envs.observation_space["candidates"].shape == (3, 16, single.observation_space["candidates"].shape[1])
        obs, info = envs.reset(seed=0)
        assert envs.observation_space.contains(obs) and info["action_mask"].shape == (3, 16)
        envs.action_space.seed(0)
        for _ in range(3):  # the space's own masked sampling plays legal actions
            actions = envs.action_space.sample(mask=tuple(m.astype(np.int8) for m in info["action_mask"]))
            obs, _, _, _, info = envs.step(actions)
            assert envs.observation_space.contains(obs)
    finally:
        envs.close()


def test_arguments_are_checked_and_games_render():
    for kwargs, error in [
        ({"num_envs": 0}, ValueError),
        ({"candidates": 0}, ValueError),
        ({"render_mode": "human"}, ValueError),
        ({"rules": "default"}, TypeError),
    ]:
        with pytest.raises(error):
            NumberDropTurnVectorEnv(**kwargs)
    venv = NumberDropTurnVectorEnv(num_envs=2, render_mode="ansi")
    venv.reset(seed=0)
    pictures = venv.render()
    assert len(pictures) == 2 and all(p.startswith("Number Drop") for p in pictures)


def test_a_pickled_copy_plays_on_exactly_as_the_original():
    """Mid-game, with rolls drawn ahead and games not yet read back: the copy (as a training
    checkpoint pickles it) continues with the same observations, rewards and games."""
    venv = NumberDropTurnVectorEnv(num_envs=3)
    obs, info = venv.reset(seed=21)
    rng = np.random.default_rng(0)
    for _ in range(5):
        obs, _, _, _, info = venv.step(random_actions(rng, info["action_mask"]))
    copy = pickle.loads(pickle.dumps(venv))
    for _ in range(40):
        actions = random_actions(rng, info["action_mask"])
        obs, rewards, terminated, _, info = venv.step(actions)
        obs_c, rewards_c, terminated_c, _, info_c = copy.step(actions)
        assert all(np.array_equal(obs[k], obs_c[k]) for k in obs)
        assert np.array_equal(rewards, rewards_c) and np.array_equal(terminated, terminated_c)
    assert [g.to_dict() for g in venv.games] == [g.to_dict() for g in copy.games]
