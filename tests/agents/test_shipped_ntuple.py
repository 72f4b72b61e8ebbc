"""The shipped n-tuple value (``agents/models/ntuple.npz``): ``ntuple`` and ``best`` play the
games of the results files the tables quote, from any working directory, without torch."""

import json
from pathlib import Path

import pytest

from agents.evaluation.solo import play_game
from agents.registry import PRESETS, make_policy

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
