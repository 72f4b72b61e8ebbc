"""The shipped models load from their module paths, without a deprecation warning, and play the
games they played when they were trained (scores recorded before the package was reorganised)."""

import json
import warnings
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from agents.evaluation.solo import play_game  # noqa: E402
from agents.evaluation.tables import play_lucky_table, play_table  # noqa: E402
from agents.registry import make_policy  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

SOLO = {
    "ppo_turn": [48, 41, 39, 45, 46],
    "ppo_solo": [10, 5, 15, 13, 10],
    "ppo_table": [47, 44, 46, 35, 42],
    "q_turn": [50, 50, 52, 42, 51],  # offered 128 candidates a turn, as saved
}


@pytest.mark.parametrize("name", sorted(SOLO))
def test_number_drop_models_score_as_shipped(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # no pickled path of the previous layout
        policy = make_policy("ppo", {"path": f"agents/models/{name}.zip"})
    assert [play_game(policy, seed).score for seed in range(5)] == SOLO[name]


@pytest.mark.parametrize("name, results", [("q", "q_turn_1000")])
def test_the_named_agents_play_the_games_of_their_results_file(name, results, tmp_path, monkeypatch):
    """A preset is the measured setting: its first games are those of the file the tables quote,
    from any working directory."""
    recorded = json.loads((ROOT / "results" / f"{results}.json").read_text())["agents"]["ppo"]["scores"]
    monkeypatch.chdir(tmp_path)
    policy = make_policy(name)
    assert [play_game(policy, seed).score for seed in range(5)] == recorded[:5]


def test_best_is_the_measured_look_ahead_and_options_override_it():
    recorded = json.loads((ROOT / "results" / "q_turn_lookahead32_0_299.json").read_text())["agents"]["ppo"]["scores"]
    assert play_game(make_policy("best"), 0).score == recorded[0]
    assert make_policy("best", {"lookahead": 4}).search.width == 4
    with pytest.raises(ValueError, match="has no option"):
        make_policy("best", {"depth": 2})


def test_table_model_scores_as_shipped():
    options = {"ppo": {"path": "agents/models/ppo_table.zip"}}
    assert [play_table(["ppo", "greedy"], seed, options)["scores"] for seed in range(3)] == [
        [48, 40],
        [52, 35],
        [63, 34],
    ]


def test_lucky_numbers_model_scores_as_shipped():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        make_policy("ppo", game="luckynumbers")
    scores = [play_lucky_table(["ppo", "greedy"], seed, {})["scores"] for seed in range(5)]
    assert scores == [[-3.0, 2.0], [-5.0, 2.0], [-3.0, 2.0], [-7.0, 2.0], [-10.0, 2.0]]


def test_q_and_best_load_the_q_iteration_network_and_ppo_the_maskable_ppo_one():
    from agents.numberdrop.network import PPOPolicy, QPolicy

    q, best, ppo = make_policy("q"), make_policy("best"), make_policy("ppo")
    assert type(q) is type(best) is QPolicy and type(ppo) is PPOPolicy
    assert Path(q.path).name == Path(best.path).name == "q_turn.zip" and Path(ppo.path).name == "ppo_turn.zip"
    assert (best.lookahead, best.samples, best.search.refine) == (32, 8, 3) and q.search is None
    as_ppo = make_policy("ppo", {"path": q.path})  # any such network plays under either name
    assert [play_game(as_ppo, seed).score for seed in range(3)] == [play_game(q, seed).score for seed in range(3)]
