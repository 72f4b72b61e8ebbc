"""The PettingZoo environments of multiplayer Number Drop: PettingZoo's own tests, simultaneous
turns, rewards and saved positions."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test

from luckynumbers_env import lucky_numbers_v0
from numberdrop_env import multiplayer_v0
from numberdrop_env.engine.rules import DEFAULT_RULES
from numberdrop_env.envs.multiplayer_v0 import observation_size, opponent_features, opponent_size
from tests.support.pettingzoo import QUIET_ADVICE

pytestmark = QUIET_ADVICE


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_pettingzoo_api_tests(n):
    api_test(multiplayer_v0.env(num_players=n), num_cycles=500)
    parallel_api_test(multiplayer_v0.parallel_env(num_players=n), num_cycles=500)
    seed_test(lambda: multiplayer_v0.env(num_players=n), num_cycles=200)


def test_returns_are_the_final_scores():
    env = multiplayer_v0.env(num_players=3)
    rng = np.random.default_rng(0)
    env.reset(seed=4)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        for a, r in env.unwrapped.rewards.items():
            returns[a] += r
    scores = env.unwrapped.table.scores()
    assert [returns[f"player_{p}"] for p in range(3)] == scores.tolist()


def test_nobody_sees_another_players_decisions_of_the_same_turn():
    env = multiplayer_v0.env(num_players=3)
    env.reset(seed=1)
    table = env.unwrapped.table
    rng = np.random.default_rng(0)
    while table.turn < 2:  # through the starting numbers and the first turn
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    at_start = [opponent_features(table, q) for q in range(3)]
    first = env.agent_selection
    while env.agent_selection == first:  # the first player plays its whole turn
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert table.turn == 2
    seat_first = int(first.split("_")[1])
    assert not np.array_equal(opponent_features(table, seat_first), at_start[seat_first])
    size = opponent_size(DEFAULT_RULES)
    observer = env.agent_selection
    seen = env.observe(observer)["observation"]
    opponents = seen[observation_size(DEFAULT_RULES) - 5 * size :].reshape(5, size)
    q = int(observer.split("_")[1])
    shown = {(q + k) % 3: opponents[k - 1] for k in range(1, 3)}
    assert np.array_equal(shown[seat_first], at_start[seat_first])


def _random_actions(env, obs, rng) -> dict:
    return {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_parallel_masks_are_the_aec_masks_and_the_wait_action_alone(seed):
    """In every state of a 3-player game: a waiting seat may only wait; a deciding seat has the
    AEC env's mask for the same table, never the wait."""
    par = multiplayer_v0.parallel_env(num_players=3)
    aec = multiplayer_v0.raw_env(num_players=3)
    wait = par.wait_action
    assert wait == 412 and par.action_space("player_0").n == 413 and aec.action_space("player_0").n == 412
    obs, _ = par.reset(seed=seed)
    rng = np.random.default_rng(seed)
    waits = decisions = 0
    while par.agents:
        aec.reset(options={"state": par.get_state()})
        deciding = {par.possible_agents[p] for p in par.table.to_act()}
        for a in par.agents:
            mask, aec_mask = obs[a]["action_mask"], aec.observe(a)["action_mask"]
            assert mask.shape == (413,) and aec_mask.shape == (412,)
            if a in deciding:
                assert mask[wait] == 0 and np.array_equal(mask[:wait], aec_mask) and aec_mask.any()
                decisions += 1
            else:
                assert np.flatnonzero(mask).tolist() == [wait] and not aec_mask.any()
                waits += 1
        obs, *_ = par.step(_random_actions(par, obs, rng))
    assert decisions > 0 and waits > 0
    assert all(np.flatnonzero(o["action_mask"]).tolist() == [wait] for o in obs.values())  # the game is over


def _until_someone_waits(env, rng):
    """Random play of a fresh 3-player game up to a step where one seat waits and one decides."""
    obs, _ = env.reset(seed=0)
    while len(env.table.to_act()) in (0, 3):
        obs, *_ = env.step(_random_actions(env, obs, rng))
    deciding = env.possible_agents[env.table.to_act()[0]]
    waiting = next(a for a in env.agents if env.agent_seat[a] not in env.table.to_act())
    return obs, deciding, waiting


def test_parallel_refuses_a_move_of_a_waiting_seat_and_the_wait_of_a_deciding_one():
    env = multiplayer_v0.parallel_env(num_players=3)
    rng = np.random.default_rng(0)
    obs, deciding, waiting = _until_someone_waits(env, rng)
    good = _random_actions(env, obs, rng)
    move = int(np.flatnonzero(obs[deciding]["action_mask"])[0])
    state = env.get_state()
    for bad, match in [
        ({**good, waiting: move}, f"{waiting}: action {move} is not legal: the seat owes no decision"),
        ({**good, deciding: env.wait_action}, f"{deciding}: the wait action 412 is not legal"),
        ({**good, "player_7": env.wait_action}, "player_7"),
        ({**good, waiting: 413}, waiting),
    ]:
        with pytest.raises(ValueError, match=match):
            env.step(bad)
        assert env.get_state() == state
    assert env.describe_action(waiting, env.wait_action)["choice"] == "wait"
    assert env.describe_action(deciding, env.wait_action)["valid"] is False
    del good[waiting]  # a waiting seat may be left out
    env.step(good)
    assert env.get_state() != state


def test_parallel_plays_to_the_end_and_refuses_masked_actions():
    env = multiplayer_v0.parallel_env(num_players=2)
    obs, _ = env.reset(seed=0)
    state = env.get_state()
    with pytest.raises(ValueError, match="not legal"):
        env.step({"player_0": 200, "player_1": 0})
    assert env.get_state() == state
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        obs, rewards, terms, truncs, infos = env.step(_random_actions(env, obs, rng))
        for a, r in rewards.items():
            returns[a] += r
    assert all(terms.values()) and list(returns.values()) == env.table.scores().tolist()
    winners = infos["player_0"]["winners"]
    assert winners.dtype == np.int8 and winners.tolist() == [int(p in env.table.winners()) for p in range(2)]


def test_reset_continues_a_saved_table():
    env = multiplayer_v0.env(num_players=2)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(15):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = env.unwrapped.get_state()
    other = multiplayer_v0.env(num_players=2)
    other.reset(options={"state": state})
    assert other.unwrapped.get_state() == state
    assert other.agent_selection == env.agent_selection
    with pytest.raises(ValueError, match="seats"):
        multiplayer_v0.env(num_players=3).reset(options={"state": state})


def test_bad_construction_is_refused():
    with pytest.raises(ValueError, match="num_players"):
        multiplayer_v0.env(num_players=7)
    with pytest.raises(ValueError, match="render_mode"):
        multiplayer_v0.parallel_env(num_players=2, render_mode="human")


def test_ansi_render_shows_every_sheet():
    env = multiplayer_v0.env(num_players=4, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert all(f"player_{p}" in text for p in range(4)) and "solo board" not in text


def _starts(make, games: int = 3) -> list[str]:
    """Each game's opening state: the first reset seeded, the later ones not."""
    env = make()
    rng = np.random.default_rng(1)
    starts = []
    for g in range(games):
        env.reset(seed=5) if g == 0 else env.reset()
        u = env.unwrapped
        starts.append(json.dumps((u.table if hasattr(u, "table") else u.game).to_dict(), sort_keys=True, default=str))
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return starts


@pytest.mark.parametrize("game", ["numberdrop", "lucky"])
def test_games_after_the_first_go_on_with_the_seeded_generator(game):
    """Two environments seeded once play the same second and third games (a reset without a
    seed continues the environment's generator, as Gymnasium's do), and every game differs."""
    make = (lambda: multiplayer_v0.env(num_players=3)) if game == "numberdrop" else lucky_numbers_v0.env
    first, second = _starts(make), _starts(make)
    assert first == second and len(set(first)) == 3
