"""The environments inside other people's pipelines: checkers, SB3 helpers, vector envs,
unmasked algorithms, copies and saved positions (the README's "Using it from your own code")."""

from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import numberdrop_env  # noqa: F401  (registers the environments)
from gamekit.env import UnsupportedRenderMode

ENV_IDS = ("NumberDrop-v0", "NumberDropTurn-v0")


def play_random(env, steps: int, seed: int = 0) -> np.random.Generator:
    """Random legal moves from a seeded reset (restarting after game ends)."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    for _ in range(steps):
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated or truncated:
            _, info = env.reset()
    return rng


def masked_action(env, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(~env.unwrapped.action_masks())))


# ----------------------------------------------------------------------------- illegal actions
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_penalize_answers_a_masked_action_and_leaves_the_game(env_id):
    env = gym.make(env_id, illegal_action="penalize", illegal_reward=-2.5, max_illegal=3)
    rng = play_random(env, 7 if env_id == "NumberDrop-v0" else 0)  # positions with masked actions
    before = env.unwrapped.get_state()
    obs_before = env.unwrapped._observation()
    for streak in (1, 2):
        obs, reward, terminated, truncated, info = env.step(masked_action(env, rng))
        assert (reward, terminated, truncated, info["illegal_action"]) == (-2.5, False, False, True)
        assert env.unwrapped.get_state() == before
        assert all(np.array_equal(obs[k], obs_before[k]) for k in obs)
        assert env.unwrapped.illegal_streak == streak
    # a legal move clears the streak; three masked moves in a row then truncate
    legal = int(np.flatnonzero(env.unwrapped.action_masks())[0])
    _, _, terminated, _, info = env.step(legal)
    assert not info["illegal_action"] and env.unwrapped.illegal_streak == 0
    env.reset(seed=1)
    truncations = [env.step(masked_action(env, rng))[3] for _ in range(3)]
    assert truncations == [False, False, True]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_raise_is_the_default_and_changes_nothing(env_id):
    env = gym.make(env_id)
    rng = play_random(env, 5 if env_id == "NumberDrop-v0" else 0)
    before = env.unwrapped.get_state()
    with pytest.raises(ValueError, match="not legal"):
        env.step(masked_action(env, rng))
    assert env.unwrapped.get_state() == before


@pytest.mark.parametrize(
    "bad, message",
    [
        (dict(illegal_action="ignore"), "illegal_action"),
        (dict(illegal_reward=1.0), "illegal_reward"),
        (dict(max_illegal=1), "max_illegal"),
        (dict(max_illegal=2.5), "max_illegal"),
    ],
)
def test_illegal_action_options_are_validated(bad, message):
    with pytest.raises(ValueError, match=message):
        gym.make("NumberDrop-v0", **bad)


def test_penalize_still_raises_for_actions_outside_the_space():
    env = gym.make("NumberDrop-v0", illegal_action="penalize").unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match="outside"):
        env.step(10_000)
    with pytest.raises(TypeError):
        env.step("3")


# ----------------------------------------------------------------------------- checkers and SB3
def test_gymnasium_check_env_passes_on_the_turn_env_line():
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gym.make("NumberDropTurn-v0", illegal_action="penalize").unwrapped)
    # the candidate features (planner values) are unbounded by design; that advice is expected
    assert not [str(w.message) for w in caught if "infinity" not in str(w.message)]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_an_unsupported_render_mode_is_the_error_sb3_retries_on(env_id):
    # not "human": with rgb_array supported, gym.make answers it with its HumanRendering wrapper
    with pytest.raises(UnsupportedRenderMode, match="render_mode") as err:
        gym.make(env_id, render_mode="depth_array")
    assert isinstance(err.value, TypeError) and isinstance(err.value, ValueError)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_sb3_make_vec_env_gets_the_rgb_array_it_asks_for(env_id):
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env(f"numberdrop_env:{env_id}", n_envs=2, seed=0)  # asks for render_mode="rgb_array"
    try:
        venv.reset()
        assert venv.render_mode == "rgb_array"
        images = venv.get_images()
        assert len(images) == 2 and all(i.dtype == np.uint8 and i.ndim == 3 and i.shape[2] == 3 for i in images)
        tiled = venv.render()  # SB3 tiles the sub-environments' pictures into one
        assert tiled.dtype == np.uint8 and tiled.shape[2] == 3 and tiled.size == sum(i.size for i in images)
    finally:
        venv.close()


@pytest.mark.parametrize("vec_env", ["dummy", "subproc"])
def test_sb3_make_vec_env_with_its_defaults(vec_env):
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    cls = {"dummy": DummyVecEnv, "subproc": SubprocVecEnv}[vec_env]
    # worker processes start fresh: "module:id" makes gymnasium import the package there
    venv = make_vec_env("numberdrop_env:NumberDrop-v0", n_envs=2, seed=0, vec_env_cls=cls)
    try:
        venv.reset()
        rng = np.random.default_rng(0)
        ends = 0
        for _ in range(150):
            masks = get_action_masks(venv)
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            _, _, dones, _ = venv.step(actions)
            ends += int(dones.sum())
        assert ends >= 2  # SB3 resets finished games itself; the masks follow
    finally:
        venv.close()


def test_plain_ppo_trains_with_penalize():
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env

    class Count(BaseCallback):
        illegal = legal = ends = 0

        def _on_step(self) -> bool:
            for info, done in zip(self.locals["infos"], self.locals["dones"]):
                if info["illegal_action"]:
                    self.illegal += 1
                else:
                    self.legal += 1
                self.ends += int(done)
            return True

    venv = make_vec_env("NumberDrop-v0", n_envs=2, seed=0, env_kwargs={"illegal_action": "penalize"})
    count = Count()
    model = PPO("MultiInputPolicy", venv, n_steps=256, batch_size=128, n_epochs=2, seed=0, device="cpu")
    model.learn(total_timesteps=2048, callback=count)
    assert model.num_timesteps >= 2048
    assert count.illegal > 0 and count.legal > 0 and count.ends > 0


# ----------------------------------------------------------------------------- vector envs
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_random_masked_policy_through_a_same_step_vector_env(mode):
    envs = gym.make_vec(
        "numberdrop_env:NumberDrop-v0",
        num_envs=3,
        vectorization_mode=mode,
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
    )
    try:
        _, info = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        ends = 0
        while ends < 6:
            assert info["action_mask"].any(axis=1).all()  # SAME_STEP: every row is a live game
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
            _, _, terminated, truncated, info = envs.step(actions)
            ends += int((terminated | truncated).sum())
            if terminated.any():
                assert "final_info" in info and "final_obs" in info
    finally:
        envs.close()


def test_next_step_vector_env_with_sample_masks():
    """NEXT_STEP: the row of a finished game has no legal action, and its next action is
    ignored; ``action_space.sample(mask=...)`` handles both."""
    envs = gym.make_vec("NumberDrop-v0", num_envs=2, vectorization_mode="sync")
    _, info = envs.reset(seed=0)
    envs.action_space.seed(0)
    ends, seen_empty = 0, False
    while ends < 4:
        masks = info["action_mask"]
        seen_empty |= not masks.any(axis=1).all()
        actions = envs.action_space.sample(mask=tuple(masks.astype(np.int8)))
        assert all(m[a] for m, a in zip(masks, actions) if m.any())
        _, _, terminated, _, info = envs.step(actions)
        ends += int(terminated.sum())
    assert seen_empty


# ----------------------------------------------------------------------------- copies and positions
@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("clone", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_sample_follows_the_copy_own_mask(env_id, clone):
    env = gym.make(env_id)
    play_random(env, 9)
    other = clone(env)
    other.unwrapped.step(int(np.flatnonzero(other.unwrapped.action_masks())[-1]))  # diverge
    for e in (env, other):
        mask = e.unwrapped.action_masks()
        assert all(mask[e.action_space.sample()] for _ in range(200))


def test_a_pickled_space_alone_carries_no_environment():
    env = gym.make("NumberDrop-v0").unwrapped
    space = pickle.loads(pickle.dumps(env.action_space))
    assert space.legal_mask is None and len(pickle.dumps(env.action_space)) < 2_000


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_get_state_set_state_replays_exactly(env_id):
    env = gym.make(env_id).unwrapped
    rng = play_random(env, 6, seed=3)
    saved = env.get_state()

    def continue_game(actions=None):
        out, played = [], []
        for i in range(8):
            a = actions[i] if actions else int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, reward, terminated, _, _ = env.step(a)
            out.append((obs, reward))
            played.append(a)
            if terminated:
                break
        return out, played

    first, actions = continue_game()
    obs, info = env.set_state(saved)
    assert np.array_equal(info["action_mask"], env.action_masks()) and env.get_state() == saved
    second, _ = continue_game(actions)
    assert len(first) == len(second)
    for (o1, r1), (o2, r2) in zip(first, second):
        assert r1 == r2 and all(np.array_equal(o1[k], o2[k]) for k in o1)


def test_set_state_rejects_a_malformed_state_and_changes_nothing():
    env = gym.make("NumberDrop-v0").unwrapped
    play_random(env, 4)
    before = env.get_state()
    bad = dict(before, phase="nonsense")
    with pytest.raises(ValueError):
        env.set_state(bad)
    with pytest.raises((ValueError, TypeError)):
        env.set_state({"version": 1})
    assert env.get_state() == before


def test_turn_env_set_state_needs_a_turn_start():
    flat = gym.make("NumberDrop-v0").unwrapped
    flat.reset(seed=0)
    while flat.game.phase.value != "place":
        flat.step(int(np.flatnonzero(flat.action_masks())[0]))
    env = gym.make("NumberDropTurn-v0").unwrapped
    env.reset(seed=5)
    before = env.get_state()
    with pytest.raises(ValueError, match="first decision"):
        env.set_state(flat.get_state())
    assert env.get_state() == before
