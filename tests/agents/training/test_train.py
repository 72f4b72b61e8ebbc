"""Training pipeline: config validation, a smoke run, save/load/predict, resume."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")
pytest.importorskip("tensorboard")

ROOT = Path(__file__).resolve().parents[3]

from agents.cli import train  # noqa: E402
from agents.evaluation.solo import play_game  # noqa: E402
from agents.registry import make_policy  # noqa: E402
from agents.training import common, sb3  # noqa: E402
from agents.training.config import config_from_dict, load_config  # noqa: E402
from numberdrop_env.engine.solo import SoloGame  # noqa: E402

SMOKE = ROOT / "configs" / "ppo_smoke.yaml"


def smoke_data(tmp: Path, **changes) -> dict:
    data = yaml.safe_load(SMOKE.read_text())
    data["output_dir"] = str(tmp / "run")
    data["progress_bar"] = False
    data["eval"]["greedy_baseline"] = False  # keep the test independent of (and faster than) greedy
    data["final_eval"]["games"] = 0
    data.update(changes)
    return data


def write(tmp: Path, data: dict, name: str = "cfg.yaml") -> Path:
    path = tmp / name
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("smoke")
    cfg = write(tmp, smoke_data(tmp))
    result = train.main(["--config", str(cfg), "--no-progress"])
    return tmp, Path(result["run_dir"]), result


# ---------------------------------------------------------------- configs
@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("ppo_*.yaml")), ids=lambda p: p.name)
def test_shipped_configs_validate(path):
    cfg = load_config(path)
    assert cfg.total_timesteps > 0 and cfg.ppo.batch_size <= cfg.ppo.n_steps * cfg.n_envs


@pytest.mark.parametrize(
    "mutate, error, words",
    [
        (lambda d: d.update(learning_rte=1e-3), ValueError, ["learning_rte"]),
        (lambda d: d["ppo"].update(learning_rte=1e-3), ValueError, ["ppo.learning_rte"]),
        (lambda d: d["network"].update(cnn_chanels=[8]), ValueError, ["network.cnn_chanels"]),
        (lambda d: d["ppo"].update(n_steps="many"), TypeError, ["ppo.n_steps", "int"]),
        (lambda d: d["ppo"].update(n_steps=12.5), TypeError, ["ppo.n_steps"]),
        (lambda d: d.update(n_envs=True), TypeError, ["n_envs"]),
        (lambda d: d["env"].update(auto_forced="yes"), TypeError, ["env.auto_forced", "bool"]),
        (lambda d: d["network"].update(cnn_channels=[16, "x"]), TypeError, ["network.cnn_channels[1]"]),
        (lambda d: d.update(vec_env="threads"), ValueError, ["vec_env", "subproc"]),
        (lambda d: d.update(vec_env="native"), ValueError, ["vec_env", "turn"]),  # the smoke config is decision-level
        (lambda d: d["final_eval"].update(lookahead=4), ValueError, ["final_eval.lookahead", "turn"]),
        (lambda d: d["final_eval"].update(lookahead=1), ValueError, ["final_eval.lookahead", ">= 2"]),
        (lambda d: d["env"].update(afterstates=True), ValueError, ["env.afterstates", "turn"]),
        (lambda d: d.update(eval=[1, 2]), TypeError, ["eval", "mapping"]),
        (lambda d: d["ppo"].update(batch_size=10_000), ValueError, ["ppo.batch_size"]),
        (lambda d: d["ppo"].update(gamma=1.5), ValueError, ["ppo.gamma"]),
        (lambda d: d["final_eval"].update(agents=["random"]), ValueError, ["final_eval.agents"]),
    ],
)
def test_broken_config_fails_fast(tmp_path, monkeypatch, mutate, error, words):
    data = smoke_data(tmp_path)
    mutate(data)
    with pytest.raises(error) as info:
        config_from_dict(copy.deepcopy(data))
    for word in words:
        assert word in str(info.value)
    # through the command line: the same error, and nothing was built or trained
    monkeypatch.setattr(sb3, "build_vec_env", lambda *a: pytest.fail("training started on a broken config"))
    with pytest.raises(error):
        train.main(["--config", str(write(tmp_path, data)), "--no-progress"])
    assert not (tmp_path / "run").exists()


def test_behaviour_cloning_alone_is_total_timesteps_zero_with_demonstrations():
    cfg = load_config(ROOT / "configs" / "lucky_search_clone.yaml")
    assert cfg.total_timesteps == 0 and cfg.pretrain.games > 0 and cfg.pretrain.agent == "search"
    with pytest.raises(ValueError, match="total_timesteps"):
        config_from_dict({"game": "luckynumbers", "total_timesteps": 0})


def test_each_trainer_has_its_schema_and_defaults():
    lucky = config_from_dict({"game": "luckynumbers", "network": {"activation": "tanh"}})
    assert lucky.trainer == "sb3" and lucky.network.pi == [256, 256] and lucky.env.players == 4  # Lucky's own
    assert config_from_dict({}).network.pi == [128] and config_from_dict({}).env.players == 1
    assert config_from_dict({"backend": "rllib"}).final_eval.agents == ["rllib", "random", "greedy"]
    assert config_from_dict({"total_timesteps": 2.0e6}).total_timesteps == 2_000_000  # YAML's 2.0e6
    for data, words in (
        ({"game": "luckynumbers", "env": {"interface": "turn"}}, ["env.interface", "luckynumbers"]),
        ({"game": "luckynumbers", "init_from": "x.zip"}, ["init_from"]),
        ({"game": "luckynumbers", "vec_env": "native"}, ["vec_env"]),
        ({"game": "luckynumbers", "backend": "rllib"}, ["backend", "sb3"]),
        ({"backend": "rllib", "pretrain": {"games": 4}}, ["'pretrain'", "rllib"]),
        ({"game": "chess"}, ["game", "numberdrop"]),
        ({"ppo": {"n_epochs": "3"}}, ["ppo.n_epochs", "int"]),
        ({"ppo": {"learning_rate": True}}, ["ppo.learning_rate"]),
        ({"seed": -1}, ["seed", ">= 0"]),
    ):
        with pytest.raises((ValueError, TypeError)) as err:
            config_from_dict(data)
        assert all(w in str(err.value) for w in words), (data, err.value)
    with pytest.raises(TypeError, match="mapping"):
        config_from_dict([1, 2])


def test_missing_config_and_checkpoint(tmp_path):
    with pytest.raises(FileNotFoundError):
        train.main(["--config", str(tmp_path / "nope.yaml")])
    with pytest.raises(FileNotFoundError):
        train.main(["--config", str(write(tmp_path, smoke_data(tmp_path))), "--resume", str(tmp_path / "x.zip")])


# ---------------------------------------------------------------- smoke run
def test_smoke_run_outputs(smoke_run):
    _, run_dir, result = smoke_run
    for name in ("best_model.zip", "final_model.zip", "config.yaml", "evals.jsonl", "learning_curve.png"):
        assert (run_dir / name).is_file(), name
    assert sorted(p.name for p in (run_dir / "checkpoints").glob("*.zip")) == [
        "ppo_1024_steps.zip",
        "ppo_2048_steps.zip",
    ]
    assert result["steps"] == 2048


def test_tensorboard_has_game_metrics(smoke_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    _, run_dir, _ = smoke_run
    assert list(run_dir.glob("events.out.tfevents.*"))
    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    for tag in (
        "game/score",
        "game/lines",
        "game/boxes",
        "game/column_bonuses",
        "game/penalty_rows",
        "game/turns",
        "eval/score_mean",
        "rollout/ep_rew_mean",
        "train/loss",
        "pretrain/accuracy",
    ):
        assert tag in tags, tag
    scores = [e.value for e in acc.Scalars("game/score")]
    assert scores and all(-15 <= s <= 100 for s in scores)


def test_save_load_predict_same_legal_actions(smoke_run):
    from agents.numberdrop.network import PPOPolicy, load_model, play_games
    from numberdrop_env.envs.decision import observe

    _, run_dir, _ = smoke_run
    path = run_dir / "best_model.zip"
    policy = PPOPolicy(path=str(path))
    again = PPOPolicy(path=str(path))
    assert policy.name == "ppo"
    game, checked = SoloGame(seed=3), 0
    while not game.is_over and checked < 40:
        mask = game.legal_mask()
        a, b = policy.act(game, mask), again.act(game, mask)
        assert a == b and mask[a]
        if mask.sum() > 1:
            checked += 1
            action, _ = policy.model.predict(observe(game), action_masks=mask, deterministic=True)
            assert int(action) == a
        game.step(a)
    assert checked >= 5
    # the batched evaluation plays the same games as the one-game-at-a-time policy
    model = load_model(path)
    batched = play_games(model, [5, 6])
    for r in batched:
        g = SoloGame(seed=r["seed"])
        while not g.is_over:
            g.step(policy.act(g, g.legal_mask()))
        assert g.score() == r["score"]


def test_ppo_policy_missing_model(tmp_path):
    from agents.numberdrop.network import PPOPolicy

    with pytest.raises(FileNotFoundError, match="not found"):
        PPOPolicy(path=str(tmp_path / "missing.zip"))


def test_registry_and_evaluate(smoke_run):
    from agents.cli import evaluate

    _, run_dir, _ = smoke_run
    out = run_dir / "table.json"
    summary = evaluate.main(
        [
            "--agents",
            "ppo,random",
            "--games",
            "3",
            "--workers",
            "1",
            "--no-progress",
            "--option",
            f"ppo.path={run_dir / 'best_model.zip'}",
            "--json",
            str(out),
        ]
    )
    assert set(summary["agents"]) == {"ppo", "random"} and out.is_file()


def test_resume_keeps_step_count_and_takes_the_config_settings(smoke_run):
    from sb3_contrib import MaskablePPO

    tmp, run_dir, _ = smoke_run
    data = smoke_data(tmp, total_timesteps=3072)
    data["output_dir"] = str(run_dir)
    data["ppo"]["learning_rate"] = 1.25e-4
    data["ppo"]["batch_size"] = data["ppo"]["batch_size"] // 2
    result = train.main(
        [
            "--config",
            str(write(tmp, data, "resume.yaml")),
            "--no-progress",
            "--resume",
            str(run_dir / "checkpoints" / "ppo_2048_steps.zip"),
        ]
    )
    assert result["steps"] == 3072
    model = MaskablePPO.load(str(run_dir / "final_model.zip"), device="cpu")
    assert model.num_timesteps == 3072
    assert model.learning_rate == 1.25e-4 and model.batch_size == data["ppo"]["batch_size"]
    assert (run_dir / "checkpoints" / "ppo_3072_steps.zip").is_file()
    steps = [json.loads(line)["step"] for line in (run_dir / "evals.jsonl").read_text().splitlines()]
    assert steps[-1] == 3072


def test_vec_env_masks_pass_through():
    """MaskablePPO reads masks through ``env_method``: exact in Dummy and Subproc envs."""
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    cfg = config_from_dict({"n_envs": 2, "ppo": {"batch_size": 64}})
    for kind in ("dummy", "subproc"):
        cfg.vec_env = kind
        venv = sb3.build_vec_env(cfg, 7)
        try:
            assert is_masking_supported(venv)
            venv.reset()
            for _ in range(30):
                masks = get_action_masks(venv)
                assert masks.shape == (2, 412) and masks.any(axis=1).all()
                actions = np.array([np.flatnonzero(m)[0] for m in masks])
                _, _, _, infos = venv.step(actions)
                if kind == "dummy":
                    assert all(
                        (get_action_masks(venv)[i] == infos[i]["action_mask"]).all()
                        for i in range(2)
                        if "terminal_observation" not in infos[i]
                    )
        finally:
            venv.close()


def turn_smoke_data(tmp: Path, **changes) -> dict:
    data = yaml.safe_load((ROOT / "configs" / "ppo_turn_smoke.yaml").read_text())
    data.update(output_dir=str(tmp / "run"), progress_bar=False)
    data["eval"].update(games=2, greedy_baseline=False)
    data["final_eval"]["games"] = 0
    data.update(changes)
    return data


def test_native_vec_env_plays_the_games_of_the_dummy_one():
    """``vec_env: native`` (one process, turns enumerated together) and ``dummy`` (Monitor-wrapped
    single envs) give MaskablePPO the same games: observations, masks, rewards, dones, infos."""
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from agents.training.vec_env import NativeTurnVecEnv

    cfg = config_from_dict(
        {"n_envs": 3, "vec_env": "dummy", "env": {"interface": "turn", "candidates": 8}, "ppo": {"batch_size": 64}}
    )
    dummy = sb3.build_vec_env(cfg, 7)
    cfg.vec_env = "native"
    native = sb3.build_vec_env(cfg, 7)
    try:
        assert isinstance(native, NativeTurnVecEnv) and is_masking_supported(native)
        assert native.observation_space == dummy.observation_space and native.action_space == dummy.action_space
        obs_d, obs_n = dummy.reset(), native.reset()
        rng, ends = np.random.default_rng(0), 0
        for t in range(160):
            assert all(np.array_equal(obs_d[k], obs_n[k]) for k in obs_d), t
            masks = get_action_masks(native)
            assert masks.shape == (3, 8) and np.array_equal(masks, get_action_masks(dummy))
            assert native.env_method("describe_action", 0, indices=[1]) == dummy.env_method(
                "describe_action", 0, indices=[1]
            )
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs_d, rew_d, done_d, infos_d = dummy.step(actions)
            obs_n, rew_n, done_n, infos_n = native.step(actions)
            assert np.array_equal(rew_d, rew_n) and rew_n.dtype == rew_d.dtype and np.array_equal(done_d, done_n)
            for i_d, i_n in zip(infos_d, infos_n):
                for key in ("score", "score_breakdown", "turn", "boxes", "candidate_count", "illegal_action"):
                    assert np.array_equal(i_d[key], i_n[key]), (t, key)
                assert np.array_equal(i_d["action_mask"], i_n["action_mask"])
                assert ("episode" in i_d) == ("episode" in i_n) == ("terminal_observation" in i_n)
                if "episode" in i_n:
                    assert {k: i_d["episode"][k] for k in "rl"} == {k: i_n["episode"][k] for k in "rl"}
                    assert all(
                        np.array_equal(i_d["terminal_observation"][k], i_n["terminal_observation"][k]) for k in obs_d
                    )
                    assert i_n["TimeLimit.truncated"] is False
            ends += int(done_n.sum())
        assert ends >= 6
    finally:
        dummy.close()
        native.close()


def test_native_vec_env_training_smoke_run(tmp_path):
    """A few hundred steps of MaskablePPO through the native adapter: the same run as with ``dummy``."""
    runs = {}
    for kind in ("native", "dummy"):
        cfg = write(tmp_path, turn_smoke_data(tmp_path / kind, vec_env=kind), f"{kind}.yaml")
        result = train.main(["--config", str(cfg), "--no-progress"])
        assert result["steps"] == 256
        runs[kind] = Path(result["run_dir"])
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(runs["native"]))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    for tag in ("game/score", "game/boxes", "game/turns", "rollout/ep_rew_mean", "eval/score_mean", "train/loss"):
        assert tag in tags, tag
    # the same games and the same seeds: the same learning, evaluation for evaluation
    assert (runs["native"] / "evals.jsonl").read_text() == (runs["dummy"] / "evals.jsonl").read_text()


def test_greedy_baseline_cached(tmp_path, monkeypatch):
    """The baseline uses the registry's greedy agent when there is one, once per run dir."""
    from agents import registry

    monkeypatch.setitem(registry.AGENTS, "greedy", "agents.base:RandomPolicy")  # stand-in, same code path
    cfg = config_from_dict(smoke_data(tmp_path, eval={"games": 3, "seed": 5}))
    cfg.run_dir.mkdir(parents=True)
    data = common.greedy_baseline(cfg, cfg.run_dir)
    assert data is not None and len(data["scores"]) == 3
    monkeypatch.setattr("agents.training.common.run", lambda *a, **k: pytest.fail("baseline recomputed"))
    assert common.greedy_baseline(cfg, cfg.run_dir) == data


def test_demonstrations_record_agent_decisions_and_returns():
    from agents.evaluation.solo import play_game
    from agents.registry import make_policy
    from agents.training.imitation import collect_demonstrations

    demos = collect_demonstrations("greedy", 2, 50, gamma=1.0, workers=1, progress=False)
    again = collect_demonstrations("greedy", 2, 50, gamma=1.0, workers=2, progress=False)
    assert all(np.array_equal(demos[k], again[k]) for k in demos)
    n = len(demos["actions"])
    assert demos["masks"].shape == (n, 412) and demos["masks"][np.arange(n), demos["actions"]].all()
    assert (demos["masks"].sum(axis=1) > 1).all()  # forced decisions are the env's, not the agent's
    starts = np.flatnonzero(demos["obs/phase"][:, 0] == 1)  # one 'start' decision per game
    finals = [play_game(make_policy("greedy"), seed).score for seed in (50, 51)]
    assert demos["returns"][starts].tolist() == finals  # undiscounted return of the first decision


def test_closing_table_adds_the_network_with_its_look_ahead(tmp_path, capsys):
    data = turn_smoke_data(tmp_path)
    data["final_eval"] = {"games": 2, "seed": 7, "agents": ["ppo", "greedy"], "workers": 1, "lookahead": 2}
    cfg = config_from_dict(data)
    model = str(ROOT / "agents" / "models" / "ppo_turn.zip")
    out = common.final_evaluation(cfg, "ppo", {"path": model}, tmp_path, progress=False)
    rows = out["agents"]
    assert list(rows) == ["ppo", "greedy", "ppo+look-ahead"] and len(rows["ppo+look-ahead"]["scores"]) == 2
    alone = make_policy_scores(model, {}, [7, 8])
    searched = make_policy_scores(model, {"lookahead": 2, "samples": 4, "refine": 3}, [7, 8])
    assert rows["ppo"]["scores"] == alone and rows["ppo+look-ahead"]["scores"] == searched
    assert "ppo+look-ahead " in capsys.readouterr().out


def make_policy_scores(path: str, options: dict, seeds: list[int]) -> list[int]:
    return [play_game(make_policy("ppo", {"path": path, **options}), s).score for s in seeds]
