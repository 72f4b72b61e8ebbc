"""The shipped n-tuple value (``agents/models/ntuple.npz``): ``ntuple`` and ``best`` play the
games of the results files the tables quote, from any working directory, without torch."""

import json
from pathlib import Path

import pytest

from agents.evaluation.solo import advance, play_game
from agents.registry import PRESETS, make_policy
from numberdrop_env import numba_cache, startup
from numberdrop_env.engine.solo import SoloGame

ROOT = Path(__file__).resolve().parents[2]


def recorded(name: str, agent: str) -> list[int]:
    return json.loads((ROOT / "results" / f"{name}.json").read_text())["agents"][agent]["scores"]


def test_ntuple_plays_the_games_of_its_results_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    policy = make_policy("ntuple")
    assert [play_game(policy, seed).score for seed in range(5)] == recorded("ntuple_1000", "ntuple")[:5]


def test_ntuple_expectimax_is_the_measured_search_and_options_override_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert PRESETS["ntuple_expectimax"][0] == "ntuple"
    scores = recorded("ntuple_expectimax_1000", "ntuple_expectimax")
    assert [play_game(make_policy("ntuple_expectimax"), seed).score for seed in range(2)] == scores[:2]
    assert make_policy("ntuple_expectimax", {"top": 4}).top == 4
    with pytest.raises(ValueError, match="has no option"):
        make_policy("ntuple_expectimax", {"lookahead": 2})


def test_ntuple_plays_the_same_games_as_python_while_the_planner_compiles(monkeypatch):
    """The quick start (``numberdrop_env.startup``): with the compiled code set aside, as while a
    background process compiles it, the agent plans from the specification and values in Python,
    and plays the same games; the compiled code takes over between any two turns."""
    monkeypatch.setattr(startup, "begin", lambda *args: numba_cache.interpreted())  # no background compile
    monkeypatch.setattr(startup, "poll", lambda: None)  # switch only where this test says
    policy, want = make_policy("ntuple"), recorded("ntuple_1000", "ntuple")[:4]
    try:
        numba_cache.interpret()
        assert [play_game(policy, seed).score for seed in range(4)] == want
        assert numba_cache.interpreted() and make_policy("ntuple_expectimax").value  # built while interpreted
        game, moves = SoloGame(seed=0), 0
        policy.reset(0)
        while not game.is_over:
            if moves == 6:
                numba_cache.restore()
            advance(policy, game)
            moves += 1
        assert game.score() == want[0] and not numba_cache.interpreted()
    finally:
        numba_cache.restore()
