"""Afterstate Q-iteration (``algorithm: q_iteration``): the lambda-returns, the self-play of the
network alone in the native vector env, the fit of the played logits to values, the paired
gate, the configs, and the generation loop from a new network with its resume, on small
deterministic cases."""

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
from agents.numberdrop.network import PPOPolicy, load_model, play_games  # noqa: E402
from agents.training import common, q_iteration  # noqa: E402
from agents.training.config import config_from_dict, load_config  # noqa: E402
from agents.training.imitation import pretrain  # noqa: E402
from agents.training.q_iteration import concatenate, q_self_play  # noqa: E402
from agents.training.q_iteration_config import QLoop  # noqa: E402
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
    assert q_iteration.lambda_returns(data, 0.5).tolist() == [1 + 10 + 9.25, 2 + 15 + 1.5, 3, 10 + 25 + 10, 20]
    assert q_iteration.lambda_returns(data, 1.0).tolist() == [6, 5, 3, 30, 20]  # the points still scored
    assert q_iteration.lambda_returns(data, 0.0).tolist() == [21, 32, 3, 60, 20]  # one-turn bootstraps
    # a drawn next move: the next row's value alone, whatever the game scored after it
    data["changed"] = np.array([False, True, False, False, True])
    assert q_iteration.lambda_returns(data, 0.5).tolist() == [1 + 20, 2 + 15 + 1.5, 3, 10 + 50, 20]
    assert q_iteration.lambda_returns(data, 1.0).tolist() == [21, 5, 3, 60, 20]


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
    x = QLoop(gate_games=7, gate_seed=40, envs=3)  # games end out of order in the vector env
    expected = [r["score"] for r in play_games(load_model(MODEL), list(range(40, 47)))]
    assert q_iteration.gate_scores(MODEL, x).tolist() == expected


def test_the_gate_keeps_only_a_better_mean_paired_difference():
    best = np.array([40.0, 50.0, 60.0])
    assert common.paired_gate(best + [1, 0, 0], best)["kept"]
    tie = common.paired_gate(best + [1, -1, 0], best)
    assert not tie["kept"] and tie["paired_diff"] == 0
    worse = common.paired_gate(best - [3, 0, 0], best)
    assert not worse["kept"] and worse["paired_ci95"][0] < -1 < worse["paired_ci95"][1]


def test_the_fit_moves_the_played_logits_to_their_values():
    model = load_model(MODEL)
    data = concatenate(list(q_self_play(MODEL, [31, 32, 33, 34], 0.1, envs=4, seed=1)))
    targets = q_iteration.lambda_returns(data, 1.0)  # the points still scored: far from the logits' scale
    demos = {
        "obs/state": data["state"],
        "obs/candidates": data["candidates"],
        "played": data["played"],
        "q_targets": targets,
        "returns": targets,
    }
    history = pretrain(model, demos, QLoop(epochs=30, batch_size=32, learning_rate=3e-3), seed=0, progress=False)
    assert history[-1]["q_mae"] < history[0]["q_mae"] / 2
    assert history[-1]["value_mae"] < history[0]["value_mae"]


def test_q_configs_validate_and_refuse_keys_of_other_trainers():
    cfg = load_config(ROOT / "configs" / "q_iteration.yaml")
    assert cfg.trainer == "q_iteration" and cfg.init_from is None and cfg.q.slots == 128 and cfg.q.generations == 24
    assert load_config(SMOKE).q.games >= 1
    base = {"algorithm": "q_iteration"}
    for data, words in (
        ({**base, "q": {"epsilon": 1.5}}, ["q.epsilon"]),
        ({**base, "q": {"td_lambda": -0.1}}, ["q.td_lambda"]),
        ({**base, "q": {"envs": 0}}, ["q.envs"]),
        ({**base, "q": {"slots": 0}}, ["q.slots"]),
        ({**base, "q": {"games": "3"}}, ["q.games", "int"]),
        ({**base, "q": {"games": True}}, ["q.games", "int"]),
        ({**base, "q": {"gamess": 3}}, ["q.gamess"]),
        ({**base, "q": {"targets": "q"}}, ["q.targets"]),  # the search targets are retired
        ({**base, "ppo": {"learning_rate": 1e-3}}, ["'ppo'", "q_iteration"]),
        ({**base, "total_timesteps": 5}, ["total_timesteps"]),
        ({**base, "env": {"afterstates": True}}, ["'env'"]),  # so are the grid planes
        ({**base, "network": {"cnn_channels": [8]}}, ["network.cnn_channels"]),
        ({"q": {"games": 3}}, ["'q'"]),  # PPO has no such section
        ({**base, "game": "luckynumbers"}, ["q_iteration", "luckynumbers"]),
        ({**base, "backend": "rllib"}, ["q_iteration", "rllib"]),
        ({**base, "algorithm": "expert_iteration"}, ["algorithm", "q_iteration"]),
        ({**base, "init_from": "no/such/model.zip"}, ["init_from"]),
    ):
        with pytest.raises((ValueError, TypeError)) as err:
            config_from_dict(data)
        assert all(w in str(err.value) for w in words), (data, err.value)


def tiny(tmp: Path, name: str, generations: int, **settings: Any) -> Path:
    """A tiny run in this process (``workers: 1``): the gate in a second process beside the next
    self-play is tested, with its equality to this, by ``test_a_gate_beside_the_next_self_play_changes_nothing``."""
    settings = {"workers": 1, **settings}
    return tiny_config(SMOKE, tmp, name, generations, "q", games=6, envs=3, gate_games=4, **settings)


def same_weights(a: Path, b: Path) -> bool:
    wa, wb = (load_model(p).policy.state_dict() for p in (a, b))
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("q")
    return Path(train.main(["--config", str(tiny(tmp, "straight", 2)), "--no-progress"])["run_dir"])


def test_generations_from_a_new_network_gate_and_log_their_q_errors(straight):
    evals = evals_without_time(straight)
    assert [e["generation"] for e in evals] == [0, 1, 2]
    for e in evals[1:]:
        assert e["q_mae"] > 0 and e["value_mae"] > 0 and 0 <= e["drawn"] < 0.3 and e["kept"] == (e["paired_diff"] > 0)
    assert (straight / "learning_curve.png").is_file() and list(straight.glob("events.out.tfevents.*"))
    assert sorted(p.name for p in (straight / "generations").iterdir()) == ["gen_000.zip", "gen_001.zip", "gen_002.zip"]
    state = json.loads((straight / "q_state.json").read_text())
    assert state["best_generation"] == [e["generation"] for e in evals if e["kept"]][-1]
    assert same_weights(
        straight / "best_model.zip", straight / "generations" / f"gen_{state['best_generation']:03d}.zip"
    )
    # only the self-play a next generation would read is kept (window 2: the last one)
    assert sorted(p.name for p in (straight / "selfplay").iterdir()) == ["gen_001.npz"]


def test_resume_after_a_finished_generation_ends_with_the_same_weights(tmp_path, straight):
    train.main(["--config", str(tiny(tmp_path, "stopped", 1)), "--no-progress"])
    resumed = tmp_path / "stopped"
    train.main(["--config", str(tiny(tmp_path, "stopped", 2)), "--resume", str(resumed), "--no-progress"])
    assert same_weights(straight / "generations" / "gen_002.zip", resumed / "generations" / "gen_002.zip")
    assert evals_without_time(resumed) == evals_without_time(straight)


def test_a_generation_stopped_before_its_state_is_played_again_the_same(tmp_path, straight, monkeypatch):
    real = q_iteration.write_json  # the state file is written last in a generation

    def stop_at_generation_two(path, obj, *args, **kwargs):
        if Path(path).name == q_iteration.STATE and obj["generation"] == 2:
            raise KeyboardInterrupt  # killed after the generation's files, before its state
        return real(path, obj, *args, **kwargs)

    monkeypatch.setattr(q_iteration, "write_json", stop_at_generation_two)
    config = tiny(tmp_path, "killed", 2)
    with pytest.raises(KeyboardInterrupt):
        train.main(["--config", str(config), "--no-progress"])
    run = tmp_path / "killed"
    assert [e["generation"] for e in evals_without_time(run)] == [0, 1, 2]  # a line of the unfinished generation
    monkeypatch.setattr(q_iteration, "write_json", real)
    train.main(["--config", str(config), "--resume", str(run), "--no-progress"])
    assert same_weights(straight / "generations" / "gen_002.zip", run / "generations" / "gen_002.zip")
    assert same_weights(straight / "best_model.zip", run / "best_model.zip")
    assert evals_without_time(run) == evals_without_time(straight)


def test_a_new_run_forgets_an_old_one_and_a_resume_keeps_the_settings(tmp_path, straight):
    other = yaml.safe_load(tiny(tmp_path, "reused", 1).read_text())
    other["q"]["games"] = 5
    other_path = tmp_path / "other.yaml"
    other_path.write_text(yaml.safe_dump(other))
    train.main(["--config", str(other_path), "--no-progress"])
    # a new run in the same directory plays its own generations, not the files left there
    train.main(["--config", str(tiny(tmp_path, "reused", 2)), "--no-progress"])
    run = tmp_path / "reused"
    assert evals_without_time(run) == evals_without_time(straight)
    before = (run / "q_state.json").read_text(), (run / "config.yaml").read_text()
    with pytest.raises(ValueError, match="games"):
        train.main(["--config", str(other_path), "--resume", str(run), "--no-progress"])
    assert ((run / "q_state.json").read_text(), (run / "config.yaml").read_text()) == before


def test_damaged_self_play_data_is_named(tmp_path):
    bad = tmp_path / "gen_000.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="gen_000.npz"):
        q_iteration._read_selfplay(bad)
    np.savez(bad, **{k: np.zeros(1) for k in ("state", "score")})
    with pytest.raises(ValueError, match="without the fields"):
        q_iteration._read_selfplay(bad)


def test_resume_needs_a_run_that_finished_a_generation(tmp_path):
    with pytest.raises(FileNotFoundError, match="q_state.json"):
        train.main(["--config", str(tiny(tmp_path, "none", 1)), "--resume", str(tmp_path)])


def test_total_steps_does_not_apply_to_q_iteration():
    with pytest.raises(ValueError, match="q.generations"):
        train.prepare(["--config", str(SMOKE), "--total-steps", "5"])


def test_a_network_that_reads_the_grids_is_refused(tmp_path):
    from sb3_contrib import MaskablePPO

    from agents.networks.candidate import CandidateScorerPolicy
    from numberdrop_env.envs.turn import NumberDropTurnEnv

    path = tmp_path / "grids.zip"
    MaskablePPO(CandidateScorerPolicy, NumberDropTurnEnv(candidates=8, afterstates=True), device="cpu").save(path)
    data = yaml.safe_load(tiny(tmp_path, "grids", 1).read_text())
    data["init_from"] = str(path)
    config = tmp_path / "grids.yaml"
    config.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match="grids"):
        train.main(["--config", str(config), "--no-progress"])


def test_a_gate_beside_the_next_self_play_changes_nothing(tmp_path, monkeypatch):
    """On two cores the gate plays in a second process while the next generation's self-play
    is played: the same generations, numbers and weights as on one core."""
    runs, gated = {}, {}
    real = q_iteration.generate

    def record(run_dir, gen, cfg, player, progress):  # generations gated when gen's self-play began
        evals = run_dir / "evals.jsonl"
        workers = cfg.q.workers
        gated.setdefault(workers, {}).setdefault(gen, len(evals.read_text().splitlines()) if evals.exists() else 0)
        return real(run_dir, gen, cfg, player, progress)

    monkeypatch.setattr(q_iteration, "generate", record)
    for workers in (1, 2):
        config = tiny(tmp_path, f"w{workers}", 3, workers=workers)
        runs[workers] = Path(train.main(["--config", str(config), "--no-progress"])["run_dir"])
    assert gated == {1: {0: 1, 1: 2, 2: 3}, 2: {0: 0, 1: 1, 2: 2}}  # on two: before the last gate's end
    assert evals_without_time(runs[1]) == evals_without_time(runs[2])
    assert same_weights(runs[1] / "generations" / "gen_003.zip", runs[2] / "generations" / "gen_003.zip")
    assert sorted(p.name for p in (runs[2] / "selfplay").iterdir()) == ["gen_002.npz"]


def test_the_newest_network_plays_each_generation(tmp_path, monkeypatch):
    played = []
    real = q_iteration.generate

    def record(run_dir, gen, cfg, player, progress):
        played.append(Path(player).name)
        return real(run_dir, gen, cfg, player, progress)

    monkeypatch.setattr(q_iteration, "generate", record)
    monkeypatch.setattr(
        q_iteration, "paired_gate", lambda new, best: {"paired_diff": -1.0, "paired_ci95": [-2.0, 0.0], "kept": False}
    )
    run = Path(train.main(["--config", str(tiny(tmp_path, "newest", 3)), "--no-progress"])["run_dir"])
    assert played == ["gen_000.zip", "gen_001.zip", "gen_002.zip"]  # though the gate kept none of them
    assert json.loads((run / "q_state.json").read_text())["best_generation"] == 0


def test_each_generation_is_saved_with_its_slots_and_the_closing_table_plays_them(tmp_path, monkeypatch):
    offered = []
    real = common.run

    def record(agents, games, seed, workers, options, progress):
        offered.append(PPOPolicy(**options["q"]).setup.slots)
        return real(agents, games, seed, workers, options, progress)

    monkeypatch.setattr(common, "run", record)
    data = yaml.safe_load(tiny(tmp_path, "wide", 1).read_text())
    data["q"]["slots"] = 40
    data["final_eval"].update(games=2, agents=["q"], workers=1, lookahead=2, samples=1, refine=0)
    path = tmp_path / "wide.yaml"
    path.write_text(yaml.safe_dump(data))
    run = Path(train.main(["--config", str(path), "--no-progress"])["run_dir"])
    for name in ("generations/gen_000.zip", "generations/gen_001.zip", "best_model.zip"):
        assert load_model(run / name).turn_slots == 40, name
    assert offered == [40, 40]  # the network alone and with its look-ahead
