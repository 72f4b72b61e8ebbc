"""The evaluate command: numbers, JSON schema, parallel = serial, and clear errors."""

import json

import numpy as np
import pytest

from agents.base import RandomPolicy
from agents.cli.evaluate import main
from agents.evaluation.runner import Progress, pool
from agents.evaluation.solo import HUMAN_SCORES, play_game, run, summarise
from agents.registry import make_policy, parse_options
from numberdrop_env.engine.solo import SoloGame


def test_numbers_match_a_direct_recomputation(tmp_path):
    path = tmp_path / "out.json"
    summary = main(
        [
            "--agents",
            "random,greedy",
            "--games",
            "4",
            "--seed",
            "7",
            "--workers",
            "1",
            "--json",
            str(path),
            "--no-progress",
        ]
    )
    for name in ("random", "greedy"):
        scores = []
        for seed in range(7, 11):
            policy = make_policy(name)
            policy.reset(seed)
            game = SoloGame(seed=seed)
            while not game.is_over:
                game.step(policy.act(game, game.legal_mask()))
            scores.append(game.score())
        a = summary["agents"][name]
        assert a["scores"] == scores
        assert a["mean"] == pytest.approx(np.mean(scores))
        assert a["median"] == pytest.approx(np.median(scores))
        assert a["min"] == min(scores) and a["max"] == max(scores)
        assert a["beats"]["13"] == pytest.approx(np.mean(np.array(scores) > 13))
    diff = np.array(summary["agents"]["greedy"]["scores"]) - np.array(summary["agents"]["random"]["scores"])
    assert summary["agents"]["greedy"]["paired_diff"]["mean"] == pytest.approx(diff.mean())
    assert json.loads(path.read_text()) == json.loads(json.dumps(summary))


def test_json_schema(tmp_path):
    path = tmp_path / "out.json"
    main(["--agents", "random", "--games", "3", "--seed", "0", "--workers", "1", "--json", str(path), "--no-progress"])
    data = json.loads(path.read_text())
    assert data["games"] == 3 and data["seed"] == 0 and list(data["agents"]) == ["random"]
    a = data["agents"]["random"]
    for key in (
        "mean",
        "median",
        "p10",
        "p90",
        "min",
        "max",
        "game_length",
        "lines",
        "boxes",
        "game_over_share",
        "decisions_per_second",
        "reach_100",
    ):
        assert isinstance(a[key], (int, float)), key
    lo, hi = a["ci95"]
    assert lo <= a["mean"] <= hi
    assert len(a["scores"]) == 3 and all(isinstance(s, int) for s in a["scores"])
    assert set(a["beats"]) == {str(h) for h in HUMAN_SCORES}
    assert a["paired_diff"]["vs"] == "random" and a["paired_diff"]["mean"] == 0


def test_workers_do_not_change_the_results():
    serial = run(["random"], 6, 3, workers=1, progress=False)["random"]
    parallel = run(["random"], 6, 3, workers=2, progress=False)["random"]
    assert [r.score for r in serial] == [r.score for r in parallel]
    assert [r.seed for r in parallel] == list(range(3, 9))


def test_tasks_come_back_in_order_on_any_number_of_processes():
    tasks = [[5, 1], [2], [9, 9, 9], [0]]
    for workers in (1, 2):
        bar = Progress(7, enabled=False)
        with pool(workers) as where:
            assert where.map(sum, tasks, bar, len) == [6, 2, 27, 0]
        assert bar.done == 7  # the bar advanced by each task's size


def test_game_result_fields_are_consistent():
    result = play_game(RandomPolicy(), 5)
    assert result.score == result.breakdown["total"]
    assert result.game_over_line == (result.breakdown["penalties"] < 0)
    assert result.lines * 2 == result.breakdown["lines"]
    s = summarise({"random": [result]}, 1, 5)
    assert s["agents"]["random"]["ci95"] == [result.score, result.score]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--agents", "nobody"], "unknown agent 'nobody'"),
        (["--agents", "random,random"], "distinct"),
        (["--agents", "random", "--games", "0"], "--games"),
        (["--agents", "random", "--option", "random.speed=3"], "has no option"),
        (["--agents", "random", "--option", "greedy.width=3"], "not among"),
        (["--agents", "random", "--option", "nonsense"], "AGENT.NAME=VALUE"),
    ],
)
def test_bad_arguments_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv + ["--no-progress"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_parse_options_converts_values():
    assert parse_options(["search.samples=4", "search.rollout=true", "ppo.path=m.zip"], ["search", "ppo"]) == {
        "search": {"samples": 4, "rollout": True},
        "ppo": {"path": "m.zip"},
    }


def test_progress_is_plain_lines_when_not_a_terminal(capsys):
    """In a log file (stderr not a terminal) progress is a plain line, never a redrawn bar."""
    run(["random"], games=3, seed=0, workers=1, progress=True)
    err = capsys.readouterr().err
    assert "games: 3/3" in err and "\r" not in err
