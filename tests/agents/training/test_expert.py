"""Expert iteration: the Gumbel search, the targets, the paired gate, the generation loop and
its resume, on small deterministic cases."""

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
from agents.numberdrop.gumbel import (  # noqa: E402
    completed_q,
    gumbel_top_k,
    improved_policy,
    sequential_halving,
    sigma,
)
from agents.numberdrop.ppo import load_model  # noqa: E402
from agents.training import expert, generations  # noqa: E402
from agents.training.config import ExpertConfig, config_from_dict, load_config  # noqa: E402
from agents.training.imitation import _fit_terms  # noqa: E402
from agents.training.selfplay import SearchSettings, play_game, self_play  # noqa: E402
from tests.support.generations import evals_without_time, tiny_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
SMOKE = ROOT / "configs" / "expert_smoke.yaml"


# ---------------------------------------------------------------- the search
def test_gumbel_top_k_takes_the_best_legal_scores_ties_by_slot():
    scores = np.array([1.0, 5.0, 3.0, 5.0, 9.0])
    legal = np.array([True, True, True, True, False])
    assert gumbel_top_k(scores, legal, 3).tolist() == [1, 3, 2]


def test_sigma_is_zero_when_values_are_equal_and_scales_the_spread():
    legal = np.array([True, True, True, False])
    assert not sigma(np.array([2.0, 2.0, 2.0, 9.0]), legal, 3, 50.0, 0.1).any()
    s = sigma(np.array([1.0, 3.0, 2.0, 100.0]), legal, 2, 50.0, 0.1)
    assert s.tolist() == pytest.approx([0.0, 5.2, 2.6, 0.0])


def test_completed_q_takes_the_critic_where_nothing_was_valued():
    q = completed_q(np.array([6.0, 0.0, 3.0]), np.array([2, 0, 1]), np.array([True, True, False]), 7.5)
    assert q[:2].tolist() == [3.0, 7.5] and np.isnan(q[2])


def test_improved_policy_is_the_prior_when_values_agree_and_leans_to_the_better_one():
    logits = np.log(np.array([0.5, 0.3, 0.2, 1.0]))
    legal = np.array([True, True, True, False])
    flat = improved_policy(logits, np.array([4.0, 4.0, 4.0, np.nan]), legal, 1, 50.0, 0.1)
    assert flat.tolist() == pytest.approx([0.5, 0.3, 0.2, 0.0])
    lean = improved_policy(logits, np.array([1.0, 2.0, 9.0, np.nan]), legal, 1, 50.0, 0.1)
    assert lean[3] == 0 and lean.sum() == pytest.approx(1) and lean.argmax() == 2 and lean[2] > 0.2


def test_sequential_halving_spends_rounds_on_the_halves_and_finds_the_best_value():
    true_q = np.array([1.0, 8.0, 3.0, 5.0, 2.0, 0.0, 4.0, 6.0, 7.0])
    asked = []

    def evaluate(idx):
        asked.append(sorted(idx))
        return true_q[idx]

    logits = np.zeros(9)
    legal = np.ones(9, bool)
    legal[8] = False  # the best value is illegal: never asked for
    found = sequential_halving(logits, legal, 0.0, evaluate, 8, np.zeros(9))
    assert [len(a) for a in asked] == [8, 4, 2] and 8 not in sum(asked, [])
    assert found.choice == 1 and found.prior_choice == 0
    assert found.visits.tolist() == [1, 3, 1, 2, 1, 1, 2, 3, 0]
    assert found.policy[8] == 0 and found.policy.argmax() == 1


def test_sequential_halving_samples_by_gumbel_noise_and_a_single_candidate_is_not_searched():
    calls = []
    found = sequential_halving(np.zeros(4), np.array([1, 1, 0, 0], bool), 3.0, calls.append, 1, np.zeros(4))
    assert calls == [] and found.choice == 0 and found.policy.tolist() == pytest.approx([0.5, 0.5, 0, 0])
    noise = np.array([0.0, 0.0, 9.0, 0.0])  # the noise puts slot 2 first; values only tie-break the rest
    found = sequential_halving(np.zeros(4), np.ones(4, bool), 0.0, lambda idx: np.zeros(len(idx)), 2, noise)
    assert found.choice == 2


def test_the_soft_cross_entropy_is_that_of_the_target_distribution():
    model = load_model(ROOT / "agents" / "models" / "ppo_turn.zip")
    data = play_game(model, 3, SearchSettings(lookahead=2, samples=1))
    obs = {"state": torch.as_tensor(data["state"][:4]), "candidates": torch.as_tensor(data["candidates"][:4])}
    masks = torch.as_tensor(data["mask"][:4])
    targets = torch.as_tensor(data["policy"][:4])
    with torch.no_grad():
        _, cross_entropy, chosen = _fit_terms(model.policy, obs, targets, masks)
        log_probs = model.policy.get_distribution(obs, action_masks=masks.numpy()).distribution.logits
    p = targets.numpy().astype(float)
    expected = -(p * np.where(p > 0, log_probs.numpy(), 0.0)).sum(axis=1)
    assert cross_entropy.numpy() == pytest.approx(expected, rel=1e-5)
    assert chosen.tolist() == log_probs.argmax(dim=1).tolist()


# ---------------------------------------------------------------- self-play and targets
def test_self_play_depends_only_on_the_seeds_not_on_the_workers():
    path = ROOT / "agents" / "models" / "ppo_turn.zip"
    settings = SearchSettings(lookahead=3, samples=1)
    one = list(self_play(path, [7, 8, 9], settings, workers=1, chunk=1))
    two = list(self_play(path, [7, 8, 9], settings, workers=2, chunk=1))
    for a, b in zip(one, two):
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    game = one[0]
    assert game["reward"].sum() == game["score"][0]  # the turns' points add up to the game's score
    assert np.allclose(game["policy"].sum(axis=1), 1) and not (game["policy"] * ~game["mask"]).any()


def test_value_targets_are_returns_to_go_or_n_step_bootstraps():
    data = {
        "reward": np.array([1, 2, 3, 10, 20], np.float32),
        "value": np.array([100, 200, 300, 400, 500], np.float32),
        "game": np.array([5, 5, 5, 9, 9]),
    }
    assert expert.value_targets(data, "return", 2).tolist() == [6, 5, 3, 30, 20]
    assert expert.value_targets(data, "nstep", 1).tolist() == [201, 302, 3, 510, 20]
    assert expert.value_targets(data, "nstep", 2).tolist() == [303, 5, 3, 30, 20]


def test_the_gate_keeps_only_a_better_mean_paired_difference():
    best = np.array([40.0, 50.0, 60.0])
    assert expert.paired_gate(best + [1, 0, 0], best)["kept"]
    tie = expert.paired_gate(best + [1, -1, 0], best)
    assert not tie["kept"] and tie["paired_diff"] == 0
    worse = expert.paired_gate(best - [3, 0, 0], best)
    assert not worse["kept"] and worse["paired_ci95"][0] < -1 < worse["paired_ci95"][1]


# ---------------------------------------------------------------- configs
def test_expert_configs_validate_and_refuse_keys_of_other_trainers():
    cfg = load_config(ROOT / "configs" / "expert_iteration.yaml")
    assert cfg.trainer == "expert" and isinstance(cfg.expert, ExpertConfig) and cfg.expert.generations >= 1
    assert load_config(SMOKE).expert.games >= 1
    base = {"algorithm": "expert_iteration"}
    for data, words in (
        ({**base, "ppo": {"learning_rate": 1e-3}}, ["'ppo'", "expert_iteration"]),
        ({**base, "total_timesteps": 5}, ["total_timesteps"]),
        ({"expert": {"games": 3}}, ["expert"]),
        ({**base, "game": "luckynumbers"}, ["expert_iteration", "luckynumbers"]),
        ({**base, "expert": {"lookahed": 3}}, ["expert.lookahed"]),
        ({**base, "expert": {"samples": 0}}, ["expert.samples"]),
        ({**base, "expert": {"value_target": "td"}}, ["expert.value_target"]),
        ({**base, "init_from": None}, ["init_from"]),
        ({**base, "algorithm": "alphazero"}, ["algorithm"]),
    ):
        with pytest.raises((ValueError, TypeError)) as err:
            config_from_dict(data)
        assert all(w in str(err.value) for w in words), (data, err.value)


def test_behaviour_cloning_alone_is_total_timesteps_zero_with_demonstrations():
    cfg = load_config(ROOT / "configs" / "lucky_search_clone.yaml")
    assert cfg.total_timesteps == 0 and cfg.pretrain.games > 0 and cfg.pretrain.agent == "search"
    with pytest.raises(ValueError, match="total_timesteps"):
        config_from_dict({"game": "luckynumbers", "total_timesteps": 0})


# ---------------------------------------------------------------- the loop
def tiny(tmp: Path, name: str, generations: int) -> Path:
    return tiny_config(
        SMOKE, tmp, name, generations, "expert", games=2, lookahead=2, samples=1, gate_games=3, workers=1
    )


def weights(path: Path) -> dict:
    return load_model(path).policy.state_dict()


def same_weights(a: Path, b: Path) -> bool:
    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("expert")
    result = train.main(["--config", str(tiny(tmp, "straight", 2)), "--no-progress"])
    return Path(result["run_dir"])


def test_generations_run_gate_and_log(straight):
    evals = evals_without_time(straight)
    assert [e["generation"] for e in evals] == [0, 1, 2]
    for e in evals[1:]:
        assert e["kept"] == (e["paired_diff"] > 0) and 0 <= e["search_changed"] <= 1 and e["target_entropy"] >= 0
    assert (straight / "learning_curve.png").is_file() and list(straight.glob("events.out.tfevents.*"))
    assert sorted(p.name for p in (straight / "generations").iterdir()) == ["gen_000.zip", "gen_001.zip", "gen_002.zip"]
    state = json.loads((straight / "expert_state.json").read_text())
    assert same_weights(
        straight / "best_model.zip", straight / "generations" / f"gen_{state['best_generation']:03d}.zip"
    )
    kept = [e["generation"] for e in evals if e["kept"]]
    assert state["best_generation"] == kept[-1]


def test_resume_after_a_finished_generation_ends_with_the_same_weights(tmp_path, straight):
    train.main(["--config", str(tiny(tmp_path, "stopped", 1)), "--no-progress"])
    resumed = tmp_path / "stopped"
    train.main(["--config", str(tiny(tmp_path, "stopped", 2)), "--resume", str(resumed), "--no-progress"])
    assert same_weights(straight / "generations" / "gen_002.zip", resumed / "generations" / "gen_002.zip")
    assert evals_without_time(resumed) == evals_without_time(straight)


def test_a_generation_stopped_before_its_state_is_played_again_the_same(tmp_path, straight, monkeypatch):
    real = generations.write_json  # the state file is written by what the trainers share

    def stop_at_generation_two(path, obj, *args, **kwargs):
        if Path(path).name == expert.STATE and obj["generation"] == 2:
            raise KeyboardInterrupt  # killed after the generation's files, before its state
        return real(path, obj, *args, **kwargs)

    monkeypatch.setattr(generations, "write_json", stop_at_generation_two)
    config = tiny(tmp_path, "killed", 2)
    with pytest.raises(KeyboardInterrupt):
        train.main(["--config", str(config), "--no-progress"])
    run = tmp_path / "killed"
    assert [e["generation"] for e in evals_without_time(run)] == [0, 1, 2]  # a line of the unfinished generation
    monkeypatch.setattr(generations, "write_json", real)
    train.main(["--config", str(config), "--resume", str(run), "--no-progress"])
    assert same_weights(straight / "generations" / "gen_002.zip", run / "generations" / "gen_002.zip")
    assert same_weights(straight / "best_model.zip", run / "best_model.zip")
    assert evals_without_time(run) == evals_without_time(straight)


def test_a_new_run_forgets_an_old_one_and_a_resume_keeps_the_settings(tmp_path, straight):
    other = yaml.safe_load(tiny(tmp_path, "reused", 1).read_text())
    other["expert"]["games"] = 3
    other_path = tmp_path / "other.yaml"
    other_path.write_text(yaml.safe_dump(other))
    train.main(["--config", str(other_path), "--no-progress"])
    # a new run in the same directory plays its own generations, not the files left there
    train.main(["--config", str(tiny(tmp_path, "reused", 2)), "--no-progress"])
    run = tmp_path / "reused"
    assert evals_without_time(run) == evals_without_time(straight)
    before = (run / "expert_state.json").read_text(), (run / "config.yaml").read_text()
    with pytest.raises(ValueError, match="games"):
        train.main(["--config", str(other_path), "--resume", str(run), "--no-progress"])
    assert ((run / "expert_state.json").read_text(), (run / "config.yaml").read_text()) == before


def test_damaged_self_play_data_is_named(tmp_path):
    bad = tmp_path / "gen_000.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="gen_000.npz"):
        expert._read_selfplay(bad, ExpertConfig())
    np.savez(bad, **{k: np.zeros(1) for k in ("state", "score")})
    with pytest.raises(ValueError, match="without the fields"):
        expert._read_selfplay(bad, ExpertConfig(targets="q"))


def test_resume_needs_a_run_that_finished_a_generation(tmp_path):
    with pytest.raises(FileNotFoundError, match="expert_state.json"):
        train.main(["--config", str(tiny(tmp_path, "none", 1)), "--resume", str(tmp_path)])


def test_total_steps_does_not_apply_to_expert_iteration():
    with pytest.raises(ValueError, match="expert.generations"):
        train.prepare(["--config", str(SMOKE), "--total-steps", "5"])
