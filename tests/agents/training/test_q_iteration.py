"""Afterstate Q-iteration (``expert.targets: q``): the lambda-returns, the self-play of the
network alone in the native vector env, the fit of the played logits to values, and the
generation loop from a new network with its resume, on small deterministic cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")
pytest.importorskip("tensorboard")

import torch  # noqa: E402

from agents.cli import train  # noqa: E402
from agents.evaluation.solo import play_game  # noqa: E402
from agents.numberdrop.ppo import PPOPolicy, load_model, play_games  # noqa: E402
from agents.training import expert  # noqa: E402
from agents.training.config import ExpertConfig, config_from_dict, load_config  # noqa: E402
from agents.training.imitation import pretrain  # noqa: E402
from agents.training.selfplay import concatenate, q_self_play  # noqa: E402
from tests.support.generations import evals_without_time, tiny_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
SMOKE = ROOT / "configs" / "q_smoke.yaml"
MODEL = ROOT / "agents" / "models" / "ppo_turn.zip"


def test_lambda_returns_mix_the_next_value_and_the_next_return():
    data = {
        "reward": np.array([1, 2, 3, 10, 20], np.float32),
        "value": np.array([100, 20, 30, 400, 50], np.float32),
        "game": np.array([5, 5, 5, 9, 9]),
        "changed": np.zeros(5, bool),
    }
    # a game's last turn: its points; before it: points + (1 - lam) next value + lam next target
    assert expert.lambda_returns(data, 0.5).tolist() == [1 + 10 + 9.25, 2 + 15 + 1.5, 3, 10 + 25 + 10, 20]
    assert expert.lambda_returns(data, 1.0).tolist() == [6, 5, 3, 30, 20]  # the points still scored
    assert expert.lambda_returns(data, 0.0).tolist() == [21, 32, 3, 60, 20]  # one-turn bootstraps
    # a drawn next move: the next row's value alone, whatever the game scored after it
    data["changed"] = np.array([False, True, False, False, True])
    assert expert.lambda_returns(data, 0.5).tolist() == [1 + 20, 2 + 15 + 1.5, 3, 10 + 50, 20]
    assert expert.lambda_returns(data, 1.0).tolist() == [21, 5, 3, 60, 20]


def test_self_play_is_the_same_for_the_same_seeds_and_its_rows_add_up_to_the_games():
    one = list(q_self_play(MODEL, [11, 12, 13, 14, 15], 0.2, envs=2, seed=4))
    two = list(q_self_play(MODEL, [11, 12, 13, 14, 15], 0.2, envs=2, seed=4))
    for a, b in zip(one, two, strict=True):
        assert all(np.array_equal(a[k], b[k]) for k in a)
    assert sorted(int(g["game"][0]) for g in one) == [11, 12, 13, 14, 15]
    for g in one:
        assert (g["game"] == g["game"][0]).all() and g["reward"].sum() == g["score"][0]
        for candidates, mask, played in zip(g["candidates"], g["mask"], g["played"]):
            assert (candidates[mask] == played).all(axis=1).any()  # a legal candidate of the turn
    data = concatenate(one)
    assert 0 < data["changed"].mean() < 0.3  # about a fifth of the moves drawn, some equal to the best
    greedy = concatenate(list(q_self_play(MODEL, [11, 12], 0.0, envs=2, seed=4)))
    assert not greedy["changed"].any()


def test_the_greedy_self_play_plays_the_highest_logit_and_records_it_in_points():
    model = load_model(MODEL)
    game = next(iter(q_self_play(MODEL, [21], 0.0, envs=1, seed=0)))
    obs = {"state": torch.as_tensor(game["state"]), "candidates": torch.as_tensor(game["candidates"])}
    with torch.no_grad():
        logits = model.policy.heads(obs)[0].numpy()
    masked = np.where(game["mask"], logits, -np.inf)
    assert (game["played"] == game["candidates"][np.arange(len(masked)), masked.argmax(axis=1)]).all()
    assert game["value"] == pytest.approx(masked.max(axis=1) / model.policy.planner_scale, rel=1e-5)


def test_wide_self_play_chooses_among_more_candidates_and_keeps_the_trained_slots():
    model = load_model(MODEL)
    game = next(iter(q_self_play(MODEL, [21], 0.0, envs=1, seed=0, slots=96)))
    assert game["candidates"].shape[1:] == (32, game["played"].shape[1]) and game["mask"].shape[1] == 32
    beyond = [not (c[m] == p).all(axis=1).any() for c, m, p in zip(game["candidates"], game["mask"], game["played"])]
    assert any(beyond)  # some played candidates lie beyond the 32 slots
    obs = {"state": torch.as_tensor(game["state"]), "candidates": torch.as_tensor(game["played"])[:, None]}
    with torch.no_grad():
        played = model.policy.heads(obs)[0][:, 0].numpy() / model.policy.planner_scale
    np.testing.assert_allclose(played, game["value"], rtol=1e-5)  # each turn's best of 96
    assert game["score"][0] == play_game(PPOPolicy(path=str(MODEL), slots=96), 21).score


def test_the_gate_scores_the_network_alone_in_seed_order_as_play_games_does():
    x = ExpertConfig(gate_games=7, gate_seed=40, envs=3)  # games end out of order in the vector env
    expected = [r["score"] for r in play_games(load_model(MODEL), list(range(40, 47)))]
    assert expert.gate_scores(MODEL, x).tolist() == expected


def test_the_fit_moves_the_played_logits_to_their_values():
    model = load_model(MODEL)
    data = concatenate(list(q_self_play(MODEL, [31, 32, 33, 34], 0.1, envs=4, seed=1)))
    targets = expert.lambda_returns(data, 1.0)  # the points still scored: far from the logits' scale
    demos = {
        "obs/state": data["state"],
        "obs/candidates": data["candidates"],
        "played": data["played"],
        "q_targets": targets,
        "returns": targets,
    }
    history = pretrain(model, demos, 30, 32, 3e-3, 0.5, seed=0, progress=False)
    assert history[-1]["q_mae"] < history[0]["q_mae"] / 2
    assert history[-1]["value_mae"] < history[0]["value_mae"]


def test_q_configs_validate():
    cfg = load_config(ROOT / "configs" / "q_iteration.yaml")
    assert cfg.expert.targets == "q" and cfg.init_from is None
    assert load_config(SMOKE).expert.targets == "q"
    grids = load_config(ROOT / "configs" / "q_grids.yaml")
    assert grids.env.afterstates and grids.network.grid_channels == [8] and grids.expert.slots == 128
    base = {"algorithm": "expert_iteration", "init_from": None}
    for data, words in (
        ({**base, "expert": {"targets": "q", "epsilon": 1.5}}, ["expert.epsilon"]),
        ({**base, "expert": {"targets": "q", "td_lambda": -0.1}}, ["expert.td_lambda"]),
        ({**base, "expert": {"targets": "q", "envs": 0}}, ["expert.envs"]),
        ({**base, "expert": {"targets": "values"}}, ["expert.targets"]),
        ({**base, "init_from": str(MODEL), "expert": {"slots": 64}}, ["expert.slots", "targets 'q'"]),
        ({**base, "expert": {"targets": "q", "slots": 0}}, ["expert.slots"]),
        (base, ["init_from", "targets 'q'"]),  # search targets need a network to search with
    ):
        with pytest.raises((ValueError, TypeError)) as err:
            config_from_dict(data)
        assert all(w in str(err.value) for w in words), (data, err.value)


def tiny(tmp: Path, name: str, generations: int, **settings: Any) -> Path:
    return tiny_config(SMOKE, tmp, name, generations, "expert", games=6, envs=3, gate_games=4, **settings)


def test_generations_from_a_new_network_log_q_errors_and_resume_to_the_same_weights(tmp_path):
    straight = Path(train.main(["--config", str(tiny(tmp_path, "straight", 2)), "--no-progress"])["run_dir"])
    evals = evals_without_time(straight)
    assert [e["generation"] for e in evals] == [0, 1, 2]
    for e in evals[1:]:
        assert e["q_mae"] > 0 and e["value_mae"] > 0 and "target_entropy" not in e
    # only the self-play a next generation would read is kept (window 2: the last one)
    assert sorted(p.name for p in (straight / "selfplay").iterdir()) == ["gen_001.npz"]
    train.main(["--config", str(tiny(tmp_path, "stopped", 1)), "--no-progress"])
    resumed = tmp_path / "stopped"
    train.main(["--config", str(tiny(tmp_path, "stopped", 2)), "--resume", str(resumed), "--no-progress"])
    a = load_model(straight / "generations" / "gen_002.zip").policy.state_dict()
    b = load_model(resumed / "generations" / "gen_002.zip").policy.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert evals_without_time(resumed) == evals


def test_a_gate_beside_the_next_self_play_changes_nothing(tmp_path, monkeypatch):
    """On two cores the gate plays in a second process while the next generation's self-play
    is played: the same generations, numbers and weights as on one core."""
    runs, gated = {}, {}
    real = expert.generate

    def record(run_dir, gen, x, player, workers, progress):  # generations gated when gen's self-play began
        evals = run_dir / "evals.jsonl"
        gated.setdefault(workers, {}).setdefault(gen, len(evals.read_text().splitlines()) if evals.exists() else 0)
        return real(run_dir, gen, x, player, workers, progress)

    monkeypatch.setattr(expert, "generate", record)
    for workers in (1, 2):
        config = tiny(tmp_path, f"w{workers}", 3, workers=workers)
        runs[workers] = Path(train.main(["--config", str(config), "--no-progress"])["run_dir"])
    assert gated == {1: {0: 1, 1: 2, 2: 3}, 2: {0: 0, 1: 1, 2: 2}}  # on two: before the last gate's end
    assert evals_without_time(runs[1]) == evals_without_time(runs[2])
    a = load_model(runs[1] / "generations" / "gen_003.zip").policy.state_dict()
    b = load_model(runs[2] / "generations" / "gen_003.zip").policy.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert sorted(p.name for p in (runs[2] / "selfplay").iterdir()) == ["gen_002.npz"]


def test_the_newest_network_plays_each_generation(tmp_path, monkeypatch):
    played = []
    real = expert.generate

    def record(run_dir, gen, x, player, workers, progress):
        played.append(Path(player).name)
        return real(run_dir, gen, x, player, workers, progress)

    monkeypatch.setattr(expert, "generate", record)
    monkeypatch.setattr(
        expert, "paired_gate", lambda new, best: {"paired_diff": -1.0, "paired_ci95": [-2.0, 0.0], "kept": False}
    )
    run = Path(train.main(["--config", str(tiny(tmp_path, "newest", 3)), "--no-progress"])["run_dir"])
    # though the gate kept none of them (on two cores each generation's self-play is played while
    # the previous network's gate runs, and read back by its generation: each network twice)
    assert sorted(set(played)) == ["gen_000.zip", "gen_001.zip", "gen_002.zip"]
    assert json.loads((run / "expert_state.json").read_text())["best_generation"] == 0


def test_each_generation_is_saved_with_its_slots_and_the_closing_table_plays_them(tmp_path, monkeypatch):
    from agents.training import common

    offered = []
    real = common.run

    def record(agents, games, seed, workers, options, progress):
        offered.append(PPOPolicy(**options["ppo"]).setup.slots)
        return real(agents, games, seed, workers, options, progress)

    monkeypatch.setattr(common, "run", record)
    data = yaml.safe_load(tiny(tmp_path, "wide", 1).read_text())
    data["expert"]["slots"] = 40
    data["final_eval"].update(games=2, agents=["ppo"], workers=1, lookahead=2, samples=1, refine=0)
    path = tmp_path / "wide.yaml"
    path.write_text(yaml.safe_dump(data))
    run = Path(train.main(["--config", str(path), "--no-progress"])["run_dir"])
    for name in ("generations/gen_000.zip", "generations/gen_001.zip", "best_model.zip"):
        assert load_model(run / name).turn_slots == 40, name
    assert offered == [40, 40]  # the network alone and with its look-ahead


def test_a_network_that_reads_the_grids_learns_from_them_and_is_saved_with_its_convolutions(tmp_path):
    data = yaml.safe_load(tiny(tmp_path, "grids", 1).read_text())
    data["env"] = {"afterstates": True}
    data["network"] = {"grid_channels": [4]}
    data["expert"]["slots"] = None  # its own 32: every played candidate has its slot
    path = tmp_path / "grids.yaml"
    path.write_text(yaml.safe_dump(data))
    run = Path(train.main(["--config", str(path), "--no-progress"])["run_dir"])
    model = load_model(run / "generations" / "gen_001.zip")
    assert model.policy.features_extractor.grid_net[0].out_channels == 4
    with np.load(run / "selfplay" / "gen_000.npz") as f:
        game = dict(f)
    assert game["afterstates"].dtype == np.uint8 and game["afterstates"].shape[1:] == (32, 4, 14, 7)
    found = 0
    for cands, mask, grids, played, grid in zip(
        game["candidates"], game["mask"], game["afterstates"], game["played"], game["played_afterstate"]
    ):
        same = np.flatnonzero(mask & (cands == played).all(axis=1))  # the played candidate's slot (or twins)
        found += any(np.array_equal(grids[j], grid) for j in same)  # two grids may share a feature row
        assert grids[~mask].sum() == 0  # no grid where no candidate
    assert found == len(game["reward"])
    # the grid planes change what the network makes of a candidate
    with torch.no_grad():
        obs = {"state": torch.as_tensor(game["state"][:1]), "candidates": torch.as_tensor(game["played"][:1, None])}
        a = model.policy.heads({**obs, "afterstates": torch.zeros(1, 1, 4, 14, 7)})[0]
        b = model.policy.heads({**obs, "afterstates": torch.ones(1, 1, 4, 14, 7)})[0]
    assert not torch.equal(a, b)


def test_grid_settings_are_checked():
    base = {"algorithm": "expert_iteration", "init_from": None, "expert": {"targets": "q"}}
    for data, words in (
        ({**base, "env": {"afterstates": True}, "network": {"grid_channels": []}}, ["network.grid_channels"]),
        ({**base, "env": {"afterstates": True}, "init_from": str(MODEL)}, ["env.afterstates", "init_from null"]),
        (
            {**base, "env": {"afterstates": True}, "init_from": str(MODEL), "expert": {"targets": "search"}},
            ["env.afterstates", "targets 'q'"],
        ),
        ({**base, "env": {"candidates": 16}}, ["env.candidates"]),  # expert iteration reads only afterstates
    ):
        with pytest.raises((ValueError, TypeError)) as err:
            config_from_dict(data)
        assert all(w in str(err.value) for w in words), (data, err.value)
    assert config_from_dict({**base, "env": {"afterstates": True}}).env.afterstates
