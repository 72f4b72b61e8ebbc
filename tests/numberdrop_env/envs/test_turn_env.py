"""NumberDropTurn-v0 and the turn enumerator: expansion round trips, the greedy's choice kept
by the pruning, exact masks over candidate slots, determinism and errors."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import numberdrop_env  # noqa: F401  (registers the environments)
from agents.numberdrop.greedy import GreedyPolicy
from numberdrop_env.engine.actions import Phase
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.decision import NumberDropEnv
from numberdrop_env.envs.turn import (
    CANDIDATE_FEATURES,
    PLANNER_TERMS,
    PLANNER_VALUE,
    NumberDropTurnEnv,
    state_size,
)
from numberdrop_env.planner.turns import TurnPlanner


def afterstate(game: SoloGame) -> tuple:
    s = game.sheet
    return (tuple(s.values.ravel().tolist()), tuple(s.used.ravel().tolist()), tuple(game.notches.tolist()))


@pytest.mark.parametrize("seed", range(12))
def test_candidates_expand_to_the_same_game_on_the_decision_env(seed):
    """Playing a candidate's micro-actions on NumberDrop-v0 from the same state gives the same
    game: the same rewards, the claimed afterstate and points, and the same next roll."""
    turn_env = NumberDropTurnEnv(candidates=8, width=8)
    flat_env = NumberDropEnv()
    _, info = turn_env.reset(seed=seed)
    flat_env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        cand = turn_env.offered[action]
        micro = turn_env.candidate_actions(action)
        assert micro == list(cand.actions)
        flat_reward = 0.0
        for a, phase in zip(micro, cand.phases):
            assert flat_env.game.phase is phase
            _, r, done, _, _ = flat_env.step(a)
            flat_reward += r
            if done:
                assert a == micro[-1], "the game ended before the candidate's last decision"
        _, reward, terminated, _, info = turn_env.step(action)
        assert terminated == done
        assert reward == flat_reward == cand.points
        assert afterstate(flat_env.game) == cand.key == afterstate(turn_env.game)
        assert flat_env.game.to_dict() == turn_env.game.to_dict()


@pytest.mark.parametrize("limit", [1, 4, 32])
def test_pruning_keeps_the_greedy_choice_first(limit):
    """Candidate 0 is the greedy's plan, whatever the number of slots."""
    planner = TurnPlanner()
    greedy = GreedyPolicy()
    for seed in range(6):
        game = SoloGame(seed=seed)
        greedy.reset(seed)
        while not game.is_over:
            if game.phase in (Phase.SLIDE, Phase.START):
                first = planner.candidates(game, limit=limit)[0]
                plan = greedy.act(game, game.legal_mask())
                assert plan == first.actions[0]
                if game.phase is Phase.SLIDE:
                    assert greedy._follow.plan.actions == first.actions
                game.step(plan)
            else:
                game.step(greedy.act(game, game.legal_mask()))


def test_always_playing_candidate_zero_is_the_greedy_game():
    env = NumberDropTurnEnv()
    for seed in range(3):
        env.reset(seed=seed)
        while not env.game.is_over:
            env.step(0)
        game, greedy = SoloGame(seed=seed), GreedyPolicy()
        greedy.reset(seed)
        while not game.is_over:
            game.step(greedy.act(game, game.legal_mask()))
        assert game.to_dict() == env.game.to_dict()


@pytest.mark.parametrize("slots", [1, 5, 32, 200])
def test_mask_is_exact_over_candidate_slots(slots):
    """Slot i is legal iff it holds a distinct, playable outcome; every live state has one."""
    env = NumberDropTurnEnv(candidates=slots)
    rng = np.random.default_rng(slots)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        while True:
            mask = info["action_mask"]
            assert np.array_equal(mask, env.action_masks())
            assert np.array_equal(mask, np.arange(slots) < len(env.offered))
            assert np.array_equal(mask, obs["candidates"][:, 0] == 1)
            assert (obs["candidates"][~mask] == 0).all()
            assert mask.any(), "a live state must offer at least one candidate"
            keys = [c.key for c in env.offered]
            assert len(set(keys)) == len(keys), "candidates must be distinct outcomes"
            for cand in env.offered:  # each candidate is legal and leaves the sheet it claims
                g = env.game.clone()
                for a in cand.actions:
                    assert g.legal_mask()[a]
                    g.step(a)
                assert afterstate(g) == cand.key
                assert g.score() - env.game.score() == cand.points
            obs, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            if terminated:
                assert not info["action_mask"].any()
                break


def test_unpruned_turn_offers_every_enumerated_outcome():
    """With more slots than outcomes, nothing is pruned and the values are sorted."""
    planner = TurnPlanner(width=8)
    game = SoloGame(seed=4)
    game.step(game.layout.start)
    everything = planner.candidates(game)
    assert len(everything) > 8
    values = [c.value for c in everything]
    assert values == sorted(values, reverse=True)
    assert [c.key for c in planner.candidates(game, limit=len(everything) + 10)] == [c.key for c in everything]
    assert [c.key for c in planner.candidates(game, limit=5)] == [c.key for c in everything[:5]]


def test_masked_or_malformed_action_raises_and_changes_nothing():
    env = NumberDropTurnEnv(candidates=1000, width=6)
    _, info = env.reset(seed=1)
    env.step(0)
    before = env.game.to_dict()
    n = len(env.offered)
    assert n < 1000
    with pytest.raises(ValueError, match="not legal"):
        env.step(n)
    with pytest.raises(ValueError, match="outside"):
        env.step(1000)
    with pytest.raises(TypeError):
        env.step(1.5)
    with pytest.raises(TypeError):
        env.step(True)
    assert env.game.to_dict() == before


def test_spaces_determinism_and_description():
    env = gym.make("NumberDropTurn-v0", candidates=16)
    obs, info = env.reset(seed=9)
    assert obs["state"].shape == (state_size(env.unwrapped.rules),)
    assert obs["candidates"].shape == (16, len(CANDIDATE_FEATURES))
    assert env.observation_space.contains(obs)
    first = env.unwrapped.describe_action(0)
    assert first["decisions"][0]["phase"] == "start"
    env.step(0)
    text = json.dumps(env.unwrapped.describe_action(0))
    assert '"phase": "slide"' in text and ("pass" in text or "confirm" in text or '"piece_lost"' in text)

    def trajectory(seed: int) -> list:
        e = gym.make("NumberDropTurn-v0", candidates=16)
        o, i = e.reset(seed=seed)
        out = [o["candidates"].copy()]
        rng = np.random.default_rng(0)
        done = False
        while not done:
            o, r, done, _, i = e.step(int(rng.choice(np.flatnonzero(i["action_mask"]))))
            out.append((o["candidates"].copy(), r))
        return out

    a, b = trajectory(3), trajectory(3)
    assert len(a) == len(b)
    assert all(
        np.array_equal(x[0] if isinstance(x, tuple) else x, y[0] if isinstance(y, tuple) else y) for x, y in zip(a, b)
    )


def test_bad_construction_and_state_are_refused():
    with pytest.raises(ValueError):
        NumberDropTurnEnv(candidates=0)
    with pytest.raises(ValueError):
        NumberDropTurnEnv(render_mode="human")
    game = SoloGame(seed=0)
    game.step(game.layout.start)
    game.step(game.layout.slide)  # now mid-turn
    assert game.phase is not Phase.SLIDE
    env = NumberDropTurnEnv()
    with pytest.raises(ValueError, match="first decision"):
        env.reset(options={"state": game.to_dict()})
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"stat": {}})


def test_saved_turn_start_continues_identically():
    env = NumberDropTurnEnv()
    env.reset(seed=5)
    for _ in range(4):
        env.step(0)
    state = env.game.to_dict()
    rest = []
    while not env.game.is_over:
        rest.append(env.step(0)[1])
    other = NumberDropTurnEnv()
    other.reset(options={"state": state})
    again = []
    while not other.game.is_over:
        again.append(other.step(0)[1])
    assert again == rest


def test_planner_value_is_the_sum_of_its_parts():
    """The policy reweights these parts, so they must add up to the value the greedy ranks by."""
    env = NumberDropTurnEnv(candidates=64)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        while True:
            rows = obs["candidates"][info["action_mask"]].astype(float)
            assert np.allclose(rows[:, list(PLANNER_TERMS)].sum(axis=1), rows[:, PLANNER_VALUE], atol=1e-4)
            obs, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
            if done:
                break


def test_afterstate_planes_are_the_grids_the_candidates_leave():
    env = NumberDropTurnEnv(candidates=16, afterstates=True)
    obs, _ = env.reset(seed=5)
    obs, *_ = env.step(0)
    assert env.observation_space.contains(obs) and "afterstates" not in NumberDropTurnEnv().observation_space.spaces
    planes = obs["afterstates"]
    rules = env.unwrapped.game.rules
    for i, candidate in enumerate(env.unwrapped.offered):
        grid = np.array(candidate.values).reshape(rules.rows, rules.cols)
        used = np.array(candidate.used).reshape(rules.rows, rules.cols)
        number = (grid >= 0) & (grid <= rules.max_number)
        assert np.array_equal(planes[i, 0], number) and np.array_equal(planes[i, 2], grid == 10)
        assert np.allclose(planes[i, 1] * rules.max_number, np.where(number, grid, 0))
        assert np.array_equal(planes[i, 3], used)
        clone = env.unwrapped.game.clone()
        candidate.play(clone)
        assert np.array_equal(clone.sheet.values, grid)  # the grid playing the candidate leaves
    assert not planes[len(env.unwrapped.offered) :].any()
