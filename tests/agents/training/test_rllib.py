"""Training on RLlib and evaluating on Ray: configs, a one-iteration run per interface, a lost
mask that must fail the run, a checkpoint played as an agent, the Ray evaluation backend.

One local Ray (``num_cpus=1``) serves the module; its temporary files and its token live in
the test's temporary folder (kept short: Ray's Unix sockets must fit in 107 characters).
"""

from __future__ import annotations

import copy
import logging
import signal
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")
pytest.importorskip("sb3_contrib")
pytest.importorskip("tensorboard")

ROOT = Path(__file__).resolve().parents[3]

from agents.cli import (
    evaluate,  # noqa: E402
    train,  # noqa: E402
)
from agents.training.config import config_from_dict, load_config  # noqa: E402

SMOKE = ROOT / "configs" / "rllib_smoke.yaml"
SOCKET_ROOM = 60  # what Ray appends to its temp dir for its longest socket path, with margin


def smoke_data(tmp: Path, **changes) -> dict:
    """The smoke config cut to one iteration of 128 steps, one evaluation game, no tables."""
    data = yaml.safe_load(SMOKE.read_text())
    data["output_dir"] = str(tmp / "run")
    data["progress_bar"] = False
    data["total_timesteps"] = 128
    data["eval"].update(games=1, greedy_baseline=False)
    data["final_eval"]["games"] = 0
    data.update(changes)
    return data


def write(tmp: Path, data: dict) -> Path:
    path = tmp / "cfg.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    base = tmp_path_factory.mktemp("r")
    if len(str(base)) + SOCKET_ROOM > 107:  # a deep temporary folder: fall back to a short one
        base = Path(tempfile.mkdtemp(prefix="r", dir="/tmp"))
    patch = pytest.MonkeyPatch()  # the run's token for Ray is in the environment: tests/conftest.py
    patch.delenv("RAY_ADDRESS", raising=False)
    ray.init(num_cpus=1, include_dashboard=False, _temp_dir=str(base / "t"), logging_level=logging.WARNING)
    yield base
    ray.shutdown()
    patch.undo()


@pytest.fixture(scope="module")
def smoke_run(local_ray, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("smoke")
    start = time.perf_counter()
    result = train.main(["--config", str(write(tmp, smoke_data(tmp))), "--no-progress"])
    return Path(result["run_dir"]), result, time.perf_counter() - start


# ---------------------------------------------------------------- configs
@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("rllib_*.yaml")), ids=lambda p: p.name)
def test_shipped_rllib_configs_validate(path):
    cfg = load_config(path)
    assert cfg.backend == "rllib" and cfg.ppo.batch_size <= cfg.train_batch_size


@pytest.mark.parametrize(
    "mutate, error, words",
    [
        (lambda d: d["ray"].update(adress="auto"), ValueError, ["ray.adress"]),
        (lambda d: d["ppo"].update(learning_rte=1e-3), ValueError, ["ppo.learning_rte"]),
        (lambda d: d.update(vec_env="subproc"), ValueError, ["vec_env"]),
        (lambda d: d["ray"].update(env_runners=-1), ValueError, ["ray.env_runners"]),
        (lambda d: d["ray"].update(env_runners="two"), TypeError, ["ray.env_runners", "int"]),
        (lambda d: d["ppo"].update(target_kl=0.02), ValueError, ["ppo.target_kl"]),
        (lambda d: d["env"].update(players=2, interface="turn"), ValueError, ["env.players"]),
        (lambda d: d["final_eval"].update(agents=["ppo", "greedy"]), ValueError, ["final_eval.agents", "rllib"]),
        (lambda d: d["ppo"].update(batch_size=10_000), ValueError, ["ppo.batch_size"]),
    ],
)
def test_broken_rllib_config_fails_fast(tmp_path, mutate, error, words):
    data = smoke_data(tmp_path)
    mutate(data)
    with pytest.raises(error) as info:
        config_from_dict(copy.deepcopy(data))
    for word in words:
        assert word in str(info.value)
    with pytest.raises(error):  # through train.py: the same error, before Ray starts
        train.prepare(["--config", str(write(tmp_path, data))])


def test_unknown_backend_is_refused(tmp_path):
    with pytest.raises(ValueError, match="backend"):
        train.prepare(["--config", str(write(tmp_path, smoke_data(tmp_path, backend="rlib")))])


# ---------------------------------------------------------------- training
def test_smoke_iteration_trains_evaluates_and_checkpoints(smoke_run):
    run_dir, result, seconds = smoke_run
    assert result["steps"] >= 128 and np.isfinite(result["best_eval"])
    for name in ("best_checkpoint", "final_checkpoint", "config.yaml", "evals.jsonl"):
        assert (run_dir / name).exists(), name
    assert list((run_dir / "checkpoints").glob("rllib_*_steps"))
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir)).Reload().Tags()["scalars"]
    assert {"game/score", "eval/score_mean", "rllib/vf_loss", "time/fps"} <= set(events)
    print(f"one-iteration smoke run: {seconds:.1f} s")


def test_lost_mask_fails_the_run_at_once(local_ray, tmp_path):
    from agents.training.rllib import train as rllib_train

    cfg = config_from_dict(smoke_data(tmp_path))
    args = train.prepare(["--config", str(write(tmp_path, smoke_data(tmp_path)))])[1]
    with pytest.raises(RuntimeError, match="not legal"):  # the env's own message, not "an actor died"
        rllib_train.train(cfg, args, lose_mask=True)
    # and no restart of the env runner (RLlib's default waits 60 s first, then plays on)
    algo = rllib_train.algorithm_config(cfg)
    assert not algo.restart_failed_env_runners and not algo.restart_failed_sub_environments
    assert algo.max_num_env_runner_restarts == 0


def test_resume_continues_from_the_checkpoint(smoke_run, tmp_path):
    run_dir, result, _ = smoke_run
    data = smoke_data(tmp_path, total_timesteps=result["steps"] + 64)
    data["ray"]["env_runners"] = 0  # sampling in the driver: no actor to start
    resumed = train.main(
        ["--config", str(write(tmp_path, data)), "--no-progress", "--resume", str(run_dir / "final_checkpoint")]
    )
    assert resumed["steps"] - result["steps"] >= 64 and resumed["seconds"] < 60


def test_ctrl_c_stops_after_the_iteration_with_a_checkpoint(local_ray, tmp_path, monkeypatch, capsys):
    """Ctrl-C during an iteration: the iteration (and its update) ends, a checkpoint is saved,
    the run says how to resume and returns; ``--resume RUN_DIR`` goes on from there."""
    from agents.training.rllib import train as rllib_train

    data = smoke_data(tmp_path, total_timesteps=256)
    data["ray"]["env_runners"] = 0  # sampling in the driver: no actor to start
    data["checkpoint"]["every_steps"] = 0  # no periodic checkpoints: Ctrl-C's own
    cfg = write(tmp_path, data)
    real = rllib_train.train_iteration

    def ctrl_c_during(algo):
        signal.raise_signal(signal.SIGINT)
        return real(algo)

    monkeypatch.setattr(rllib_train, "train_iteration", ctrl_c_during)
    before = signal.getsignal(signal.SIGINT)  # Python's default, or SIG_IGN under nohup
    result = train.main(["--config", str(cfg), "--no-progress"])
    assert result["interrupted"] and 128 <= result["steps"] < 256  # one iteration
    checkpoint = tmp_path / "run" / "checkpoints" / f"rllib_{result['steps']}_steps"
    assert result["checkpoint"] == str(checkpoint) and checkpoint.is_dir()
    assert f"numberdrop-train --config {cfg} --resume {checkpoint}" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is before  # the run's own handler is gone
    monkeypatch.undo()
    resumed = train.main(["--config", str(cfg), "--no-progress", "--resume", str(tmp_path / "run")])
    assert resumed["steps"] >= 256 and not resumed.get("interrupted")
    assert (tmp_path / "run" / "final_checkpoint").is_dir()


def test_turn_level_module_starts_as_the_planner(local_ray, tmp_path):
    """One iteration inside the actor warm-up: only the value head learns, so the module still
    plays exactly the greedy's games (its logits are the planner's values)."""
    from agents.evaluation.solo import run

    data = smoke_data(tmp_path, total_timesteps=32, n_envs=2)
    data["env"] = {"interface": "turn", "candidates": 8, "width": 12}
    data["ppo"].update(n_steps=16, batch_size=32, actor_warmup_steps=1000)
    data["network"] = {"candidate_hidden": [16], "state_hidden": [16], "scorer_hidden": [16], "value_hidden": [16]}
    data["eval"]["every_steps"] = 0
    data["ray"]["env_runners"] = 0  # sampling in the driver: no actor to start
    result = train.main(["--config", str(write(tmp_path, data)), "--no-progress"])
    played = run(["rllib", "greedy"], 2, 500, options={"rllib": {"path": result["best_model"]}}, progress=False)
    assert [r.score for r in played["rllib"]] == [r.score for r in played["greedy"]]


# ---------------------------------------------------------------- the agent and the Ray backend
def test_checkpoint_plays_a_legal_game_without_starting_ray(smoke_run, monkeypatch):
    import gymnasium as gym

    import numberdrop_env  # noqa: F401
    from agents.registry import make_policy

    def no_ray(*args, **kwargs):
        raise AssertionError("the rllib agent must not start Ray")

    monkeypatch.setattr(ray, "init", no_ray)
    policy = make_policy("rllib", {"path": str(smoke_run[0] / "best_checkpoint")})
    env = gym.make("NumberDrop-v0")  # raises on any masked action
    obs, info = env.reset(seed=3)
    policy.reset(3)
    game = env.unwrapped.game
    terminated = False
    while not terminated:
        action = policy.act(game, info["action_mask"])
        assert info["action_mask"][action]
        obs, _, terminated, _, info = env.step(action)
    assert info["score"] == game.score()


def test_ray_backend_gives_the_local_scores(smoke_run, capsys):
    argv = [
        "--agents",
        "rllib,random,greedy",
        "--games",
        "3",
        "--seed",
        "7",
        "--no-progress",
        "--option",
        f"rllib.path={smoke_run[0] / 'best_checkpoint'}",
    ]
    local = evaluate.main(argv + ["--workers", "1"])
    remote = evaluate.main(argv + ["--backend", "ray"])
    for name in ("rllib", "random", "greedy"):
        assert remote["agents"][name]["scores"] == local["agents"][name]["scores"]
        assert remote["agents"][name]["breakdown"] == local["agents"][name]["breakdown"]


def test_address_needs_the_ray_backend(capsys):
    with pytest.raises(SystemExit):
        evaluate.main(["--agents", "random", "--games", "1", "--address", "localhost:6379"])
    assert "--address needs --backend ray" in capsys.readouterr().err
