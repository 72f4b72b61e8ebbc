"""The candidate-scoring policy: permutation equivariance, masking, the planner start, and a
short real turn-level training run whose model plays as the ``ppo`` agent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[2]

from agents.cli import train  # noqa: E402
from agents.evaluation.solo import play_game  # noqa: E402
from agents.numberdrop.network import PPOPolicy, QPolicy, load_model, offer_turns, play_games  # noqa: E402
from numberdrop_env.envs.turn import NumberDropTurnEnv  # noqa: E402
from tests.support.helpers import finish_legally, mid_turn_game  # noqa: E402


@pytest.fixture(scope="module", params=[False, True], ids=["features", "afterstates"])
def model(request):
    from sb3_contrib import MaskablePPO

    from agents.networks.candidate import CandidateScorerPolicy

    torch.manual_seed(0)
    env = NumberDropTurnEnv(candidates=16, width=8, afterstates=request.param)
    m = MaskablePPO(CandidateScorerPolicy, env, n_steps=32, batch_size=32, device="cpu", seed=0)
    with torch.no_grad():  # a trained-looking residual, so the tests do not pass by the zero init
        for p in m.policy.scorer.parameters():
            p.normal_(0.0, 0.3)
    return m


def observation(seed: int, turns: int = 2, afterstates: bool = False) -> tuple[dict, np.ndarray]:
    env = NumberDropTurnEnv(candidates=16, width=8, afterstates=afterstates)
    obs, info = env.reset(seed=seed)
    for _ in range(turns):
        obs, _, _, _, info = env.step(0)
    return obs, info["action_mask"]


def tensors(obs: dict) -> dict:
    return {k: torch.as_tensor(v[None]) for k, v in obs.items()}


@pytest.mark.parametrize("seed", range(4))
def test_shuffling_candidates_shuffles_logits_and_keeps_the_value(model, seed):
    obs, _ = observation(seed, afterstates="afterstates" in model.observation_space.spaces)
    perm = np.random.default_rng(seed).permutation(16)
    shuffled = {k: v if k == "state" else v[perm] for k, v in obs.items()}
    with torch.no_grad():
        logits, value = model.policy.heads(tensors(obs))
        logits2, value2 = model.policy.heads(tensors(shuffled))
    assert torch.allclose(logits[:, perm], logits2, atol=1e-5)
    assert torch.allclose(value, value2, atol=1e-5)


def test_masked_candidates_never_get_probability(model):
    obs, mask = observation(1, afterstates="afterstates" in model.observation_space.spaces)
    mask = mask.copy()
    mask[np.flatnonzero(mask)[::2]] = False  # hide some offered candidates too
    with torch.no_grad():
        dist = model.policy.get_distribution(tensors(obs), action_masks=mask[None])
        probs = dist.distribution.probs[0].numpy()
        values, log_prob, _ = model.policy.evaluate_actions(
            tensors(obs), torch.as_tensor(np.flatnonzero(mask)[:1]), action_masks=mask[None]
        )
    assert probs[~mask].max() < 1e-12
    assert probs[mask].sum() == pytest.approx(1.0, abs=1e-5)
    assert np.isfinite(log_prob.numpy()).all()
    for _ in range(50):
        action, _ = model.predict(obs, action_masks=mask, deterministic=False)
        assert mask[int(action)]


def test_untrained_policy_is_the_planner():
    """With the residual at its zero start, the argmax is candidate 0, the greedy's choice."""
    from sb3_contrib import MaskablePPO

    from agents.networks.candidate import CandidateScorerPolicy

    m = MaskablePPO(CandidateScorerPolicy, NumberDropTurnEnv(candidates=16, width=8), device="cpu", seed=1)
    for seed in range(3):
        obs, mask = observation(seed, turns=1 + seed)
        action, _ = m.predict(obs, action_masks=mask, deterministic=True)
        assert int(action) == 0


def test_the_afterstate_network_trains_and_plays_as_the_ppo_agent(tmp_path):
    data = yaml.safe_load((ROOT / "configs" / "ppo_turn_smoke.yaml").read_text())
    data.update(output_dir=str(tmp_path / "run"), progress_bar=False)
    data["env"]["afterstates"] = True
    data["eval"]["greedy_baseline"] = False
    data["final_eval"]["games"] = 0
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(data))
    run = Path(train.main(["--config", str(cfg), "--no-progress"])["run_dir"])
    policy = PPOPolicy(path=str(run / "best_model.zip"))
    assert policy.setup.afterstates and policy.model.policy.features_extractor.grid_net is not None
    first = play_game(policy, 3)
    assert play_games(load_model(run / "best_model.zip"), [3])[0]["score"] == first.score


def test_turn_training_smoke_run_and_the_ppo_agent(tmp_path):
    data = yaml.safe_load((ROOT / "configs" / "ppo_turn_smoke.yaml").read_text())
    data.update(output_dir=str(tmp_path / "run"), progress_bar=False)
    data["eval"]["greedy_baseline"] = False
    data["final_eval"]["games"] = 2
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(data))
    result = train.main(["--config", str(cfg), "--no-progress"])
    run = Path(result["run_dir"])
    assert result["steps"] >= data["total_timesteps"]
    for name in ("best_model.zip", "final_model.zip", "evals.jsonl", "final_eval.json"):
        assert (run / name).is_file(), name
    assert list(run.glob("events.out.tfevents.*"))
    policy = PPOPolicy(path=str(run / "best_model.zip"))
    assert policy.turn_level
    first = play_game(policy, 3)
    assert play_game(PPOPolicy(path=str(run / "best_model.zip")), 3).score == first.score
    lockstep = play_games(load_model(run / "best_model.zip"), [3])
    assert lockstep[0]["score"] == first.score
    from agents.numberdrop.lookahead import SearchPolicy

    search = SearchPolicy(width=2, samples=2, inner_width=4, value="learned", model=str(run / "best_model.zip"))
    game_a = play_game(search, 5)
    assert game_a.score == play_game(search, 5).score  # deterministic per seed
    with pytest.raises(ValueError, match="turn-level"):
        SearchPolicy(value="learned", model=str(ROOT / "agents" / "models" / "ppo_solo.zip"))

    # handed a game mid-turn (any phase), the turn-level agent still finishes it legally
    finish_legally(policy, mid_turn_game(7))


def test_lookahead_reranks_the_policys_most_likely_candidates_by_value(monkeypatch):
    from numberdrop_env.engine.solo import SoloGame

    policy = PPOPolicy(lookahead=3, samples=2)
    policy.reset(0)
    game = SoloGame(seed=11)
    (offered,), batch, masks = offer_turns(policy.setup, [game])
    with torch.no_grad():
        obs, _ = policy.model.policy.obs_to_tensor(batch)
        logits = policy.model.policy.get_distribution(obs, action_masks=masks).distribution.logits[0].numpy()
    top3 = list(np.argsort(-np.where(masks[0], logits, -np.inf))[:3])
    seen = []

    def fake_lookahead(g, plans, seeds):
        seen.append([offered.index(p) for p in plans])
        assert len(seeds) == 2
        return [0.0, 0.0, 1.0]  # the third most likely is valued best

    monkeypatch.setattr(policy.search, "lookahead", fake_lookahead)
    assert policy.pick(game, offered, batch, masks) == top3[2]
    assert seen == [top3]


def test_lookahead_plays_legal_games_deterministically_per_seed():
    first = play_game(PPOPolicy(lookahead=2, samples=2), 4)
    again = play_game(PPOPolicy(lookahead=2, samples=2), 4)
    assert (first.score, first.turns) == (again.score, again.turns)
    assert play_game(PPOPolicy(lookahead=1), 4).score == play_game(PPOPolicy(), 4).score


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"lookahead": -1}, "lookahead must be"),
        ({"samples": 0}, "samples >= 1"),
        ({"lookahead": 2, "deterministic": False}, "deterministic=True"),
        ({"refine": 2}, "needs lookahead"),
        ({"lookahead": 3, "refine": 1}, "refine must be"),
        ({"lookahead": 2, "path": str(ROOT / "agents" / "models" / "ppo_solo.zip")}, "turn-level"),
    ],
)
def test_lookahead_refuses_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PPOPolicy(**kwargs)


def test_a_candidates_logit_is_the_same_however_many_candidates_are_offered(model):
    afterstates = "afterstates" in model.observation_space.spaces
    narrow, narrow_mask = observation(5, afterstates=afterstates)  # 16 candidates
    env = NumberDropTurnEnv(candidates=40, width=8, afterstates=afterstates)
    wide, info = env.reset(seed=5)
    for _ in range(2):
        wide, _, _, _, info = env.step(0)
    with torch.no_grad():
        narrow_logits = model.policy.heads(tensors(narrow))[0][0].numpy()
        wide_logits = model.policy.heads(tensors(wide))[0][0].numpy()
    n = int(narrow_mask.sum())
    assert info["action_mask"][:n].all() and n < int(info["action_mask"].sum())  # the same first 16, and more
    np.testing.assert_allclose(wide_logits[:n], narrow_logits[:n], rtol=1e-5, atol=1e-5)


def test_more_slots_play_the_networks_best_of_that_many_candidates():
    from numberdrop_env.envs.vector import NumberDropTurnVectorEnv

    policy = QPolicy(slots=64)
    envs = NumberDropTurnVectorEnv(2, candidates=64)
    obs, _ = envs.reset(seed=[3, 8])
    over = np.zeros(2, bool)
    scores = [0, 0]
    while not over.all():
        with torch.no_grad():
            logits = policy.model.policy.heads({k: torch.as_tensor(v) for k, v in obs.items()})[0].numpy()
        obs, _, ended, _, info = envs.step(np.where(envs.action_masks(), logits, -np.inf).argmax(axis=1))
        for i in np.flatnonzero(ended & ~over):
            scores[i] = int(info["score"][i])
        over |= ended
    assert [play_game(policy, seed).score for seed in (3, 8)] == scores
    assert play_game(PPOPolicy(slots=32), 3).score == play_game(PPOPolicy(), 3).score  # the PPO network's own
    assert play_game(QPolicy(), 3).score == play_game(QPolicy(slots=128), 3).score


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"slots": 0}, "slots must be an int"),
        ({"slots": "64"}, "slots must be an int"),
        ({"slots": 64, "deterministic": False}, "deterministic=True"),
        ({"slots": 64, "path": str(ROOT / "agents" / "models" / "ppo_solo.zip")}, "turn-level"),
    ],
)
def test_slots_refuses_what_it_cannot_play(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PPOPolicy(**kwargs)


def test_a_model_saved_with_its_slots_is_offered_as_many(tmp_path):
    model = load_model(ROOT / "agents" / "models" / "ppo_turn.zip")
    model.turn_slots = 64
    model.save(tmp_path / "wide.zip")
    path = str(tmp_path / "wide.zip")
    assert PPOPolicy(path=path).setup.slots == 64
    assert PPOPolicy(path=path, slots=32, deterministic=False).setup.slots == 32  # as trained: it may sample
    with pytest.raises(ValueError, match="slots=32 samples"):
        PPOPolicy(path=path, deterministic=False)
