"""Agents at a multiplayer table: solo agents in seats, the multiplayer letter term, the
single-seat training environment and the rotated multiplayer evaluation."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import numberdrop_env  # noqa: F401  (registers NumberDropTable-v0)
from agents.cli import evaluate
from agents.evaluation.tables import lineup, play_table
from agents.registry import make_policy
from agents.training.config import config_from_dict
from numberdrop_env.engine.table import Table
from numberdrop_env.planner.heuristic import DEFAULT_WEIGHTS
from numberdrop_env.planner.turns import letter_values


@pytest.mark.parametrize("name", ["random", "greedy"])
def test_solo_agents_play_a_whole_table(name):
    result = play_table([name, "greedy", "random"], seed=3, options={})
    assert len(result["scores"]) == 3 and result["winners"]
    assert max(result["scores"]) == result["scores"][result["winners"][0]]


def test_search_and_ppo_play_a_seat():
    table = Table(2, seed=1)
    players = [make_policy("search", {"samples": 2, "width": 2}), make_policy("ppo")]
    for p, policy in enumerate(players):
        policy.reset(p)
    while table.turn < 3 and not table.over:
        p = table.to_act()[0]
        table.step(p, players[p].act(table.seats[p], table.legal_mask(p)))
    assert all((s.sheet.values >= 0).sum() >= 5 for s in table.seats)  # start number + tetrominoes


def test_planning_on_a_seat_leaves_the_table_untouched():
    table = Table(3, seed=2)
    for p in range(3):
        table.step(p, p)
    before = table.to_dict()
    make_policy("greedy").act(table.seats[0], table.legal_mask(0))
    assert table.to_dict() == before  # clones roll their own dice, never the table's


def test_the_letter_term_values_what_the_opponents_did():
    table = Table(3, seed=0)
    seat = table.seats[0]
    w = DEFAULT_WEIGHTS
    assert letter_values(seat, w) == [w.letter + w.hurt] * 5  # nobody circled anything yet
    table.seats[1].sheet.circled[2] = table.seats[1].sheet.identical[2] = table.seats[1].sheet.consecutive[2] = True
    table.seats[2].sheet.identical[3] = True
    table._share_rivals()
    values = letter_values(seat, w)
    assert values[2] == pytest.approx(w.letter + w.hurt * 0.5 + w.threat * 0.5)
    assert values[3] == pytest.approx(w.letter + w.hurt + w.threat * 0.5)
    table._cross(4)
    assert letter_values(seat, w)[4] == 0.0  # its block has left the board


# ----------------------------------------------------------------------------- NumberDropTable-v0
def test_table_env_returns_the_seat_score_and_its_share_of_the_win():
    env = gym.make("NumberDropTable-v0", num_players=3, opponents=["random"])
    obs, info = env.reset(seed=0)
    total = 0.0
    while True:
        legal = np.flatnonzero(info["action_mask"])
        assert len(legal) and (legal == np.arange(len(legal))).all()
        obs, reward, terminated, truncated, info = env.step(int(legal[0]))
        total += reward
        if terminated:
            break
    scores, seat = info["scores"], info["seat"]
    assert total == scores[seat]
    winners = [p for p, s in enumerate(scores) if s == max(scores)]
    assert info["win"] == (1 / len(winners) if seat in winners else 0.0)


def test_table_env_is_reproducible_and_validates_its_arguments():
    def run(seed):
        env = gym.make("NumberDropTable-v0", num_players=2, opponents=["greedy"])
        _, info = env.reset(seed=seed)
        rewards = []
        for _ in range(5):
            _, r, term, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
            rewards.append(r)
            if term:
                break
        return rewards, env.unwrapped.get_state()

    assert run(4) == run(4)
    for bad in (dict(num_players=1), dict(num_players=7), dict(opponents=[]), dict(opponents="greedy")):
        with pytest.raises(ValueError):
            gym.make("NumberDropTable-v0", **bad)
    with pytest.raises(ValueError, match="unknown agent"):
        gym.make("NumberDropTable-v0", opponents=["nobody"])


def test_table_env_renders_the_whole_table():
    env = gym.make("NumberDropTable-v0", num_players=3, opponents=["random"], render_mode="ansi")
    env.reset(seed=1)
    assert all(f"player_{p}" in env.render() for p in range(3))
    env = gym.make("NumberDropTable-v0", num_players=3, opponents=["random"], render_mode="rgb_array")
    env.reset(seed=1)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3
    env.step(0)
    assert env.render().shape == first.shape


def test_table_configs_are_validated():
    with pytest.raises(ValueError, match="env.players"):
        config_from_dict({"env": {"interface": "decision", "players": 4}})
    with pytest.raises(ValueError, match="env.opponents"):
        config_from_dict({"env": {"interface": "turn", "players": 4, "opponents": ["nobody"]}})
    with pytest.raises(ValueError, match="init_from"):
        config_from_dict({"init_from": "no/such/model.zip"})


# ----------------------------------------------------------------------------- evaluation
def test_rotated_evaluation_seats_every_agent_everywhere():
    assert lineup(["a", "b"], 4) == ["a", "b", "a", "b"]
    summary = evaluate.main(
        ["--players", "3", "--agents", "greedy,random,random", "--games", "2", "--workers", "1", "--no-progress"]
    )
    agents = summary["agents"]
    assert set(agents) == {"greedy", "random"} and summary["games"] == 6
    assert agents["greedy"]["seats"] == 6 and agents["random"]["seats"] == 12
    shares = sum(a["win_rate"] * a["seats"] for a in agents.values())
    assert shares == pytest.approx(summary["games"])  # one win shared out per game
    assert agents["random"]["paired_diff"]["vs"] == "greedy"


def test_evaluate_refuses_bad_player_counts():
    with pytest.raises(SystemExit):
        evaluate.main(["--players", "7", "--agents", "greedy", "--no-progress"])
    with pytest.raises(SystemExit):
        evaluate.main(["--players", "2", "--agents", "greedy,random,search", "--no-progress"])
