"""The PettingZoo environment of Lucky Numbers: PettingZoo's own tests, what each agent sees
(never the pool's order), rewards and saved positions."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from luckynumbers_env import Game, Rules, lucky_numbers_v0
from luckynumbers_env.envs.observe import observation_size, observe
from tests.support.pettingzoo import QUIET_ADVICE

pytestmark = QUIET_ADVICE


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pettingzoo_api_and_seed_tests(n):
    api_test(lucky_numbers_v0.env(num_players=n), num_cycles=1000)
    seed_test(lambda: lucky_numbers_v0.env(num_players=n), num_cycles=500)
    variant = Rules(players=n, setup="michael", bruno=True)
    api_test(lucky_numbers_v0.env(rules=variant), num_cycles=1000)
    seed_test(lambda: lucky_numbers_v0.env(rules=variant), num_cycles=500)


def play(env, rng):
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        for a, r in env.unwrapped.rewards.items():
            returns[a] += r
    return returns


def test_returns_are_the_tournament_scores():
    env = lucky_numbers_v0.env(num_players=3)
    env.reset(seed=4)
    returns = play(env, np.random.default_rng(0))
    game = env.unwrapped.game
    assert [returns[f"player_{p}"] for p in range(3)] == game.scores().tolist()
    assert any(returns[f"player_{p}"] == 2 for p in game.winners)


def test_only_the_player_to_act_has_a_mask_and_it_matches_the_engine():
    env = lucky_numbers_v0.env(num_players=4)
    env.reset(seed=1)
    game = env.unwrapped.game
    for _ in range(30):
        agent = env.agent_selection
        assert agent == f"player_{game.player}"
        for a in env.possible_agents:
            mask = env.observe(a)["action_mask"]
            if a == agent:
                assert np.array_equal(mask.astype(bool), game.legal_mask())
            else:
                assert not mask.any()
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[-1]))


def test_the_observation_never_holds_the_pool_order():
    rules = Rules(players=2)
    a = Game(rules, seed=3)
    state = a.to_dict()
    state["pool"] = state["pool"][::-1]  # same tiles, another order
    b = Game.from_dict(state)
    for seat in (0, 1):
        assert np.array_equal(observe(a, seat), observe(b, seat))
    a.step(0)
    b.step(0)
    assert a.hand != b.hand  # the drawn tile, face up, is seen by everyone
    assert not np.array_equal(observe(a, 1), observe(b, 1))


def test_observation_layout_own_board_opponents_table_pool_and_hand():
    rules = Rules(players=3)
    game = Game(rules, seed=2)
    game.step(0)  # draw
    obs = observe(game, 1)
    assert obs.shape == (observation_size(rules),) and obs.min() >= 0 and obs.max() <= 1
    assert np.allclose(obs[:16] * 20, game.boards[1])
    assert np.allclose(obs[64:80] * 20, game.boards[2])  # the left neighbour first
    assert np.allclose(obs[64 + 33 : 64 + 49] * 20, game.boards[0])
    assert obs[64 + 3 * 33 - 1] == 0  # no fourth player
    i = 64 + 3 * 33 + 20
    assert obs[i] == pytest.approx(game.pool_size / 60)
    assert obs[i + game.hand] == 1  # the hand one-hot follows the pool count


def test_masked_action_raises_and_changes_nothing():
    env = lucky_numbers_v0.env(num_players=2)
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(bad)
    assert env.unwrapped.get_state() == before
    assert env.unwrapped.describe_action(env.agent_selection, 0) == "draw a tile from the pool"


def test_reset_continues_a_saved_game():
    env = lucky_numbers_v0.env(num_players=2)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(17):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = env.unwrapped.get_state()
    other = lucky_numbers_v0.env(num_players=2)
    other.reset(options={"state": state})
    assert other.agent_selection == env.agent_selection
    for a in env.possible_agents:
        assert np.array_equal(env.observe(a)["observation"], other.observe(a)["observation"])
    with pytest.raises(ValueError, match="rules"):
        lucky_numbers_v0.env(num_players=3).reset(options={"state": state})


def test_constructor_checks():
    with pytest.raises(ValueError):
        lucky_numbers_v0.env(num_players=5)
    with pytest.raises(ValueError):
        lucky_numbers_v0.env(num_players=3, rules=Rules(players=2))
    with pytest.raises(ValueError):
        lucky_numbers_v0.env(num_players=2, render_mode="human")
    env = lucky_numbers_v0.env(rules=Rules(players=3, bruno=True), render_mode="ansi")
    env.reset(seed=0)
    assert "Lucky Numbers (3 players" in env.render()
