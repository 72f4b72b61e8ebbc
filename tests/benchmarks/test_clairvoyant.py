"""The clairvoyant bound: a beam over the known rolls of each seed's game."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.evaluation.runner import play_game
from agents.numberdrop.greedy import GreedyPolicy
from agents.values.selfplay import play
from benchmarks.clairvoyant import GamePath, beam_search, main, recorded_agents
from numberdrop_env.engine.sheet import SCORE_PARTS
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.turns import TurnPlanner


def replay(path: GamePath) -> SoloGame:
    """Play a path's candidates through the engine on its seed, the planner offering them."""
    planner, game = TurnPlanner(), SoloGame(seed=path.seed)
    game.step(game.layout.start)
    for k in path.candidates:
        assert not game.is_over
        planner.candidates(game, path.limit).play(k, game)
    assert game.is_over
    return game


def reference_beam(seed: int, width: int, limit: int) -> GamePath:
    """The beam of one seed in plain Python on cloned games, to hold the packed search to."""
    planner, game = TurnPlanner(), SoloGame(seed=seed)
    game.step(game.layout.start)
    beam: list[tuple[SoloGame, list[int]]] = [(game, [])]
    best: GamePath | None = None
    while beam:
        ranked = []
        for p, (g, _) in enumerate(beam):
            offered = planner.candidates(g, limit)
            ranked += [(-(g.score() + offered.arrays.value[k]), p, k, offered) for k in range(len(offered))]
        ranked.sort(key=lambda r: r[:3])
        seen, kept = set(), []
        for _, p, k, offered in ranked[: 2 * width + 1]:
            child = beam[p][0].clone()
            offered.play(k, child)
            key = _game_key(child)
            if key not in seen and len(kept) < width:
                seen.add(key)
                kept.append((child, beam[p][1] + [k]))
        beam = [(c, ks) for c, ks in kept if not c.is_over]
        for c, ks in kept:
            if c.is_over and (best is None or c.score() > best.score):
                parts = tuple(c.sheet.score_breakdown().values())
                best = GamePath(seed, limit, c.score(), parts, tuple(ks))
    assert best is not None
    return best


def _game_key(game: SoloGame) -> tuple:
    s = game.sheet
    fields = (s.values, s.used, s.heights, game.notches, s.circled, s.identical, s.consecutive, s.crossed)
    return (game.is_over, s.bonus, *(f.tobytes() for f in (*fields, s.lines, s.penalties)), game.dice, game.shape_face)


def test_a_beam_of_one_plays_the_greedys_games():
    seeds = [0, 1, 2, 3, 4]
    paths = beam_search(seeds, 1, limit=8)
    greedy = [play_game(GreedyPolicy(), seed) for seed in seeds]
    assert [p.score for p in paths] == [g.score for g in greedy] == play(None, seeds).scores.tolist()
    assert [list(p.parts) for p in paths] == [list(g.breakdown.values()) for g in greedy]
    assert all(set(p.candidates) == {0} for p in paths)  # the planner's first, every turn


def test_a_wider_beam_keeping_the_narrower_ones_games_never_scores_less():
    seeds = [5, 6, 7]
    narrow = beam_search(seeds, 1, limit=6)
    wide = beam_search(seeds, 4, limit=6, keep=narrow)
    wider = beam_search(seeds, 12, limit=6, keep=wide)
    for a, b, c in zip(narrow, wide, wider):
        assert a.score <= b.score <= c.score
    assert sum(p.score for p in wider) > sum(p.score for p in narrow)  # knowing the rolls pays


def test_the_chosen_games_replay_through_the_engine_to_the_reported_score():
    for path in beam_search([8, 9], 6, limit=8):
        game = replay(path)
        assert game.score() == path.score == path.parts[SCORE_PARTS.index("total")]
        assert tuple(game.sheet.score_breakdown().values()) == path.parts


def test_the_packed_search_matches_its_plain_python_reference():
    for path in beam_search([10, 11], 3, limit=5):
        assert reference_beam(path.seed, 3, limit=5) == path


def test_seeds_are_searched_alike_in_any_grouping():
    seeds = [12, 13, 14]
    assert beam_search(seeds, 3, limit=4) == beam_search(seeds, 3, limit=4, max_states=3)  # one seed a group


@pytest.mark.parametrize("kwargs", [{"width": 0}, {"limit": 0}, {"seeds": []}])
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        beam_search(**{"seeds": [0], "width": 2, "limit": 4, **kwargs})


def test_recorded_agents_are_read_on_the_seeds_they_played(tmp_path):
    agent = {"scores": [10, 20, 30, 40], "mean": 25.0}
    (tmp_path / "a.json").write_text(json.dumps({"games": 4, "seed": 100, "agents": {"x": agent}}))
    (tmp_path / "b.json").write_text(json.dumps({"games": 2, "seed": 101, "agents": {"y": {"scores": [1, 2]}}}))
    (tmp_path / "c.json").write_text(json.dumps({"games": 2, "seed": 0, "agents": {"z": {"scores": [1, 2]}}}))
    (tmp_path / "d.json").write_text(json.dumps({"widths": []}))
    assert recorded_agents(tmp_path, [101, 102]) == [
        {"file": "results/a.json", "agent": "x", "scores": [20, 30]},
        {"file": "results/b.json", "agent": "y", "scores": [1, 2]},
    ]


def test_the_command_writes_its_report(tmp_path, capsys):
    out = tmp_path / "report.json"
    main(["--seeds", "0..2", "--beams", "3,1", "--limit", "4", "--out", str(out)])
    report = json.loads(out.read_text())
    assert report["command"].endswith(f"--out {out}")
    assert [w["width"] for w in report["widths"]] == [1, 3]
    first, last = report["widths"]
    assert first["scores"] == play(None, [0, 1, 2], limit=4).scores.tolist()
    assert all(b >= a for a, b in zip(first["scores"], last["scores"]))
    assert last["vs_previous"]["below"] == 0.0
    assert report["headline"]["width"] == 3 and report["headline"]["mean"] == last["mean"]
    assert set(last["breakdown"]) == set(SCORE_PARTS) and len(report["paths"]) == 3
    for gap in report["gaps"]:  # the agents recorded on seeds 0..2, paired with the widest beam
        assert gap["gap"]["mean"] == pytest.approx(last["mean"] - gap["mean"])
    assert "width     3" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--beams", "0"], ["--seeds", "x"], ["--limit", "0"], ["--seeds", "3,3"]])
def test_the_command_refuses_bad_arguments(argv):
    with pytest.raises(SystemExit):
        main(argv)


def test_the_recorded_bound_is_what_the_command_finds_on_its_first_seeds():
    report = json.loads((Path(__file__).resolve().parents[2] / "results/clairvoyant_200.json").read_text())
    assert report["command"] == "python -m benchmarks.clairvoyant --seeds 0..199 --out results/clairvoyant_200.json"
    paths = None
    for row in report["widths"][:3]:  # widths 1, 8 and 32 on seeds 0..3: a few seconds
        paths = beam_search([0, 1, 2, 3], row["width"], report["limit"], keep=paths)
        assert [p.score for p in paths] == row["scores"][:4]
    assert np.mean(report["widths"][-1]["scores"]) == report["headline"]["mean"]
