"""The re-ranker's training (``algorithm: rerank``): its measures, the held-out split, a fit
that learns a correction, the recording of the network's games, the configs, and the loop of
generations with its gate and resume, on small deterministic cases."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")
pytest.importorskip("tensorboard")

import torch  # noqa: E402

from agents.cli import train  # noqa: E402
from agents.cli.evaluate import play_game  # noqa: E402
from agents.networks.reranker import load_reranker  # noqa: E402
from agents.numberdrop.ppo import PPOPolicy  # noqa: E402
from agents.training import rerank  # noqa: E402
from agents.training.config import RerankLoop, config_from_dict, load_config  # noqa: E402
from tests.support.generations import evals_without_time, tiny_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
SMOKE = ROOT / "configs" / "q_rerank_smoke.yaml"
Q_MODEL = str(ROOT / "agents" / "models" / "q_turn.zip")


def test_measures_compare_centred_values_and_first_choices():
    values = np.array([[3.0, 2.0, 1.0], [0.0, 5.0, 1.0]])
    lookahead = np.array([[13.0, 12.0, 11.0], [4.0, 1.0, 0.0]])  # the first turn: the same up to a constant
    got = rerank.measure(values, lookahead)
    assert got["agree"] == 0.5
    assert got["regret"] == pytest.approx((0 + (4 - 1)) / 2)
    second = np.abs(rerank.centred(values[1]) - rerank.centred(lookahead[1])).mean()
    assert got["gap"] == pytest.approx(second / 2)


def test_the_held_out_games_are_the_last_share_of_seeds_whole():
    data = {"game": np.array([7, 7, 3, 3, 3, 9, 5, 5])}
    fit_rows, held = rerank.split(data, 0.5)
    assert held.tolist() == [0, 1, 5] and fit_rows.tolist() == [2, 3, 4, 6, 7]  # seeds 7 and 9 of 3, 5, 7, 9
    assert rerank.split(data, 0.0)[1].tolist() == []


def synthetic(turns: int, seed: int) -> dict[str, np.ndarray]:
    """Turns whose look-ahead differs from the network by 3 x the first input: learnable."""
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(turns, 4, 6)).astype(np.float32)
    values = rng.normal(size=(turns, 4)).astype(np.float32)
    return {
        "rows": rows,
        "values": values,
        "lookahead": (values + 3 * rows[..., 0] + 10).astype(np.float32),
        "game": np.repeat(np.arange(turns // 4), 4)[:turns],
    }


def test_the_fit_learns_the_look_aheads_correction_on_held_out_games():
    x = RerankLoop(top=4, hidden=[32], epochs=20, batch_size=32, learning_rate=3e-3, holdout=0.25)
    reranker, got = rerank.fit([synthetic(800, 0)], x, seed=0, progress=False, desc="fit")
    assert got["fit_turns"] == 600
    assert got["network_gap"] > 1.5 and got["reranked_gap"] < got["network_gap"] / 3
    assert got["reranked_agree"] > 0.8 > got["network_agree"]
    again, same = rerank.fit([synthetic(800, 0)], x, seed=0, progress=False, desc="fit")
    assert same == got and all(
        torch.equal(a, b) for a, b in zip(reranker.state_dict().values(), again.state_dict().values())
    )
    with pytest.raises(ValueError, match="no turn"):
        rerank.fit([{k: v[:0] for k, v in synthetic(8, 0).items()}], x, seed=0, progress=False, desc="fit")


def test_a_recording_is_the_network_s_own_games_with_its_look_ahead_on_its_best_candidates():
    one = rerank.record_games(Q_MODEL, None, [21, 22], top=4, samples=2)
    two = rerank.record_games(Q_MODEL, None, [21, 22], top=4, samples=2)
    assert all(np.array_equal(one[k], two[k]) for k in one)
    alone = PPOPolicy(path=Q_MODEL)
    assert one["score"].tolist() == [play_game(alone, s).score for s in (21, 22)]
    assert set(one["game"].tolist()) == {21, 22} and len(one["game"]) >= 20
    assert one["rows"].shape[:2] == one["values"].shape == one["lookahead"].shape == (len(one["game"]), 4)
    assert np.all(np.diff(one["values"], axis=1) <= 0)  # the network's best first
    assert np.isfinite(one["lookahead"]).all()


def test_a_recording_is_the_same_on_any_number_of_processes(monkeypatch):
    monkeypatch.setattr(rerank, "CHUNK", 1)  # a game per task, so that two processes share them
    x = RerankLoop(top=3, samples=1)
    one = rerank.record(Q_MODEL, None, [41, 42, 43], x, workers=1, progress=False, desc="")
    two = rerank.record(Q_MODEL, None, [41, 42, 43], x, workers=2, progress=False, desc="")
    assert one.keys() == two.keys() and all(np.array_equal(one[k], two[k]) for k in one)
    assert one["score"].tolist() == [play_game(PPOPolicy(path=Q_MODEL), s).score for s in (41, 42, 43)]


def test_rerank_configs_validate():
    cfg = load_config(ROOT / "configs" / "q_rerank.yaml")
    assert cfg.trainer == "rerank" and cfg.init_from == "agents/models/q_turn.zip" and cfg.rerank.top == 16
    assert load_config(SMOKE).rerank.generations == 2
    base = {"algorithm": "rerank"}
    for data, words in (
        ({**base, "rerank": {"top": 1}}, ["rerank.top"]),
        ({**base, "rerank": {"holdout": 1.0}}, ["rerank.holdout"]),
        ({**base, "rerank": {"hidden": []}}, ["rerank.hidden"]),
        ({**base, "rerank": {"games": 0}}, ["rerank.games"]),
        ({**base, "rerank": {"tops": 8}}, ["rerank.tops"]),
        ({**base, "init_from": None}, ["init_from"]),
        ({**base, "expert": {"games": 4}}, ["expert", "'rerank'"]),
        ({**base, "final_eval": {"lookahead": 8}}, ["final_eval.lookahead"]),
        ({"algorithm": "q_iteration", "rerank": {"top": 4}}, ["'rerank'", "q_iteration"]),
        ({**base, "game": "luckynumbers"}, ["'rerank'", "Number Drop"]),
    ):
        with pytest.raises((ValueError, TypeError)) as err:
            config_from_dict(data)
        assert all(w in str(err.value) for w in words), (data, err.value)


def tiny(tmp: Path, name: str, generations: int) -> Path:
    return tiny_config(SMOKE, tmp, name, generations, "rerank", games=4, gate_games=4, workers=1)


def test_generations_gate_their_reranker_and_resume_to_the_same_weights(tmp_path):
    straight = Path(train.main(["--config", str(tiny(tmp_path, "straight", 2)), "--no-progress"])["run_dir"])
    evals = evals_without_time(straight)
    assert [e["generation"] for e in evals] == [0, 1, 2]
    state = json.loads((straight / "rerank_state.json").read_text())
    best = state["best_generation"]
    for e in evals[1:]:
        assert e["kept"] == (e["paired_diff"] > 0) and e["fit_turns"] > 0 and "reranked_gap" in e
    kept = [e["generation"] for e in evals[1:] if e["kept"]]
    assert best == (kept[-1] if kept else 0)
    assert (straight / "best_reranker.pt").is_file() == (best > 0)
    # only the recording a next generation would read is kept (window 2: the last one)
    assert sorted(p.name for p in (straight / "recordings").iterdir()) == ["gen_001.npz"]
    train.main(["--config", str(tiny(tmp_path, "stopped", 1)), "--no-progress"])
    resumed = tmp_path / "stopped"
    train.main(["--config", str(tiny(tmp_path, "stopped", 2)), "--resume", str(resumed), "--no-progress"])
    a = load_reranker(straight / "rerankers" / "gen_002.pt").state_dict()
    b = load_reranker(resumed / "rerankers" / "gen_002.pt").state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert evals_without_time(resumed) == evals


def test_a_resume_must_keep_the_settings(tmp_path):
    train.main(["--config", str(tiny(tmp_path, "run", 1)), "--no-progress"])
    data = yaml.safe_load((tmp_path / "run_1.yaml").read_text())
    data["rerank"]["samples"] = 3
    changed = tmp_path / "changed.yaml"
    changed.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match="samples"):
        train.main(["--config", str(changed), "--resume", str(tmp_path / "run"), "--no-progress"])


def test_total_steps_and_a_resume_without_a_finished_generation_are_refused(tmp_path):
    with pytest.raises(ValueError, match="rerank.generations"):
        train.prepare(["--config", str(SMOKE), "--total-steps", "5"])
    with pytest.raises(FileNotFoundError, match="rerank_state.json"):
        train.main(["--config", str(tiny(tmp_path, "none", 1)), "--resume", str(tmp_path)])
