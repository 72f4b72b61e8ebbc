"""The clairvoyant benchmark: a beam over the known rolls of each seed's game."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from agents.values.selfplay import play
from benchmarks.clairvoyant import (
    GamePath,
    beam_search,
    gaps,
    main,
    parse_beams,
    parse_seeds,
    recorded_agents,
    reference_beam,
    regap,
    replay,
)
from numberdrop_env.engine.actions import layout_for
from numberdrop_env.engine.rules import DEFAULT_RULES
from numberdrop_env.engine.sheet import SCORE_PARTS


def test_a_beam_of_one_plays_the_greedys_games():
    seeds = [0, 1, 2, 3, 4]
    search = beam_search(seeds, 1, limit=8)
    greedy = play(None, seeds)
    assert search.scores.tolist() == greedy.scores.tolist()
    assert search.parts.tolist() == greedy.parts.tolist()
    assert all(set(p.candidates) == {0} for p in search.paths)  # the planner's first, every turn


def test_a_wider_beam_keeping_the_narrower_ones_games_never_scores_less():
    seeds = [5, 6, 7]
    narrow = beam_search(seeds, 1, limit=6)
    wide = beam_search(seeds, 4, limit=6, keep=narrow.paths)
    wider = beam_search(seeds, 12, limit=6, keep=wide.paths)
    assert (wide.scores >= narrow.scores).all() and (wider.scores >= wide.scores).all()
    assert wider.scores.sum() > narrow.scores.sum()  # knowing the rolls pays on these seeds
    assert wider.enumerated > wide.enumerated > narrow.enumerated


def test_the_chosen_games_replay_through_the_engine_to_the_reported_score():
    search = beam_search([8, 9], 6, limit=8)
    for path in search.paths:
        assert replay(path) == (path.score, path.score)
        assert path.parts[-1] == path.score and path.parts[SCORE_PARTS.index("total")] == path.score
        assert len(path.actions) == path.turns


def test_the_packed_search_matches_its_plain_python_reference():
    search = beam_search([10, 11], 3, limit=5)
    for path in search.paths:
        assert reference_beam(path.seed, 3, limit=5) == path


def test_seeds_are_searched_alike_in_any_grouping():
    seeds = [12, 13, 14]
    together = beam_search(seeds, 3, limit=4)
    apart = beam_search(seeds, 3, limit=4, max_states=3)  # one seed a group
    assert together.paths == apart.paths


@pytest.mark.parametrize(
    "kwargs",
    [
        {"width": 0},
        {"width": True},
        {"width": 2.0},
        {"limit": 0},
        {"limit": "8"},
        {"max_states": 0},
        {"scale": -1.0},
        {"scale": float("nan")},
    ],
)
def test_bad_settings_are_refused(kwargs):
    args = {"seeds": [0], "width": 2, "limit": 4, **kwargs}
    with pytest.raises(ValueError):
        beam_search(**args)


def test_paths_to_keep_must_fit_the_search():
    paths = beam_search([0, 1], 1, limit=4).paths
    with pytest.raises(ValueError, match="one path per seed"):
        beam_search([1, 0], 2, limit=4, keep=paths)
    with pytest.raises(ValueError, match="same limit"):
        beam_search([0, 1], 2, limit=5, keep=paths)
    bad = [dataclasses.replace(p, candidates=(7, *p.candidates[1:])) for p in paths]  # no candidate 7 of 4
    with pytest.raises(ValueError, match="not among"):
        beam_search([0, 1], 2, limit=4, keep=bad)
    with pytest.raises(ValueError, match="empty"):
        beam_search([], 2)


def test_a_path_that_does_not_fit_its_game_is_refused_on_replay():
    path = beam_search([0], 1, limit=4).paths[0]
    with pytest.raises(ValueError, match="ends before"):
        replay(dataclasses.replace(path, actions=path.actions[:-1]))
    with pytest.raises(ValueError, match="not legal"):
        replay(dataclasses.replace(path, actions=((layout_for(DEFAULT_RULES).pass_,), *path.actions[1:])))


@pytest.mark.parametrize("text", ["", "a..b", "3,3", "-1..2", "5..4"])
def test_bad_seed_lists_are_refused(text):
    with pytest.raises(ValueError, match="seeds"):
        parse_seeds(text)


@pytest.mark.parametrize("text", ["", "0,8", "x", "8,,32"])
def test_bad_widths_are_refused(text):
    with pytest.raises(ValueError, match="beams"):
        parse_beams(text)


def test_seeds_and_widths_parse():
    assert parse_seeds("3..5") == [3, 4, 5] and parse_seeds("7,2") == [7, 2]
    assert parse_beams("32,1,8,8") == [1, 8, 32]


def test_recorded_agents_are_read_on_the_seeds_they_played(tmp_path):
    agent = {"scores": [10, 20, 30, 40], "mean": 25.0}
    (tmp_path / "a.json").write_text(json.dumps({"games": 4, "seed": 100, "agents": {"x": agent}}))
    (tmp_path / "b.json").write_text(json.dumps({"games": 2, "seed": 101, "agents": {"y": {"scores": [1, 2]}}}))
    (tmp_path / "c.json").write_text("[1, 2]")
    (tmp_path / "d.json").write_text("not json")
    found = recorded_agents(tmp_path, [101, 102])
    assert found == [
        {"file": f"{tmp_path.name}/a.json", "agent": "x", "scores": [20, 30]},
        {"file": f"{tmp_path.name}/b.json", "agent": "y", "scores": [1, 2]},
    ]
    table = gaps(np.array([25, 35]), found)
    assert [g["agent"] for g in table] == ["x", "y"]  # strongest first
    assert table[0]["gap"]["mean"] == 5.0 and table[0]["gap"]["above"] == 1.0
    assert table[1]["gap"]["mean"] == pytest.approx(28.5)


def test_the_command_writes_its_report(tmp_path, capsys):
    out = tmp_path / "report.json"
    main(["--seeds", "0..2", "--beams", "3,1", "--limit", "4", "--out", str(out)])
    report = json.loads(out.read_text())
    assert [w["width"] for w in report["widths"]] == [1, 3]
    assert report["width_1_is_greedy"] is True
    assert report["complete"] is True and report["widths_asked"] == [1, 3]
    first, last = report["widths"]
    assert all(b >= a for a, b in zip(first["scores"], last["scores"]))
    assert last["vs_previous"]["below"] == 0.0
    assert report["headline"]["width"] == 3 and report["headline"]["mean"] == last["mean"]
    assert set(last["breakdown"]) == set(SCORE_PARTS) and len(report["paths"]) == 3
    assert "width 3: 3/3 seeds" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--beams", "0"], ["--seeds", "x"], ["--limit", "0"], ["--scale", "-1"]])
def test_the_command_refuses_bad_arguments(argv):
    with pytest.raises(SystemExit):
        main(argv)


def test_game_paths_count_their_turns():
    p = GamePath(seed=0, limit=4, score=3, parts=(0,) * 7, candidates=(0, 1), actions=((1,), (2,)))
    assert p.turns == 2


def test_gaps_are_recomputed_against_the_widest_beam_for_results_recorded_later(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    games = {"games": 4, "seed": 10, "agents": {"later": {"scores": [1, 2, 3, 4]}, "short": {"scores": [1]}}}
    (results / "later_4.json").write_text(json.dumps(games))
    report = {"seeds": "11..12", "widths": [{"width": 1, "scores": [0, 0]}, {"width": 8, "scores": [5, 9]}], "gaps": []}
    out = regap(report, results)
    assert report["gaps"] == [] and out["widths"] == report["widths"]  # the search's rows are kept as they were
    (gap,) = out["gaps"]
    assert gap["file"] == "results/later_4.json" and gap["agent"] == "later"
    assert gap["mean"] == 2.5 and gap["gap"]["mean"] == pytest.approx(((5 - 2) + (9 - 3)) / 2)
    with pytest.raises(ValueError, match="2 scores for 3 seeds"):
        regap({**report, "seeds": [11, 12, 13]}, results)
