"""The critic benchmark: its fits find a planted signal, and a short run on the shipped network."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("torch")  # the benchmark plays a network (the train extra)

from agents.evaluation.solo import play_game  # noqa: E402
from agents.numberdrop.ppo import PPOPolicy  # noqa: E402
from benchmarks.critic_residual import FIELDS, explain, main, record, ridge  # noqa: E402

Q_MODEL = "agents/models/q_turn.zip"
RERANKER = "agents/models/q_rerank.pt"


def planted(structure_weight: float, n_games: int = 400, turns: int = 14, seed: int = 0) -> dict[str, np.ndarray]:
    """Turns whose critic errs by a turn offset, plus ``structure_weight`` times the first
    structure count, plus noise."""
    rng = np.random.default_rng(seed)
    n = n_games * turns
    data = {
        "state": rng.normal(size=(n, 5)),
        "structures": rng.normal(size=(n, 3)),
        "value": rng.normal(size=n),
        "game": np.repeat(np.arange(n_games), turns),
        "turn": np.tile(np.arange(turns), n_games),
    }
    error = 0.5 * data["turn"] + structure_weight * data["structures"][:, 0] + rng.normal(size=n)
    data["to_come"] = data["value"] + error
    return data


def test_ridge_recovers_a_linear_signal_on_rows_it_did_not_fit():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(500, 3))
    y = 2.0 * x[:, 0] - x[:, 2] + 4.0
    fit = np.arange(500) < 400
    assert np.allclose(ridge(x, y, fit, penalty=1e-6)[~fit], y[~fit], atol=1e-4)


def test_the_fits_find_what_the_critic_misses_and_only_that():
    found = explain(planted(structure_weight=2.0))
    # the turn offsets leave the noise and the structure term (1 + 4); the structure counts leave the noise (1)
    assert found["turn"]["held_out_mse"] == pytest.approx(5.0, rel=0.15)
    assert found["turn + state row + structure counts"]["held_out_mse"] == pytest.approx(1.0, rel=0.15)
    assert found["critic"]["held_out_mse"] > found["turn"]["held_out_mse"]
    assert found["turn + state row + structure counts"]["within_turn_sd"] == pytest.approx(2.0, rel=0.15)
    without = explain(planted(structure_weight=0.0))  # nothing beyond the turn: no fit does better
    assert without["turn + state row + structure counts"]["held_out_mse"] >= without["turn"]["held_out_mse"] - 0.05


def test_a_recording_follows_the_re_ranked_agent_s_games_and_repeats_from_its_seeds():
    data = record(Q_MODEL, RERANKER, [3, 4])
    assert set(data) == set(FIELDS) and list(np.unique(data["game"])) == [3, 4]
    agent = PPOPolicy(path=Q_MODEL, rerank=RERANKER)
    for seed in (3, 4):  # at the first turn, the points still to come are the agent's whole score
        first = (data["game"] == seed) & (data["turn"] == data["turn"][data["game"] == seed].min())
        assert data["to_come"][first].tolist() == [play_game(agent, seed).score]
    again = record(Q_MODEL, RERANKER, [3, 4])
    assert all(np.array_equal(data[k], again[k]) for k in FIELDS)


def test_the_benchmark_prints_a_row_per_fit(capsys, tmp_path):
    main(["--model", Q_MODEL, "--games", "12", "--no-progress", "--json", str(tmp_path / "fits.json")])
    out = capsys.readouterr().out
    assert re.search(r"^\d+ turns of 12 games", out)
    assert len(re.findall(r"^  (critic|turn.*?)\s+\d+\.\d{3}\s+\d+\.\d{3}$", out, re.M)) == 4
    assert (tmp_path / "fits.json").is_file()


def test_bad_arguments_and_networks_are_refused():
    with pytest.raises(SystemExit):
        main(["--model", Q_MODEL, "--games", "1"])
    with pytest.raises(ValueError, match="candidate-scoring"):
        record("agents/models/ppo_solo.zip", None, [0])
