"""The table value's trainer (``algorithm: ntuple``): rounds, gates, exact resume, Ray shares
equal to local ones, and its config's refusals."""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
from pathlib import Path

import numpy as np
import pytest

from agents.training.config import config_from_dict, load_config
from agents.training.ntuple import find_state, learn_round, play_share, share_tasks, train
from agents.values.ntuple import NTupleSpec, NTupleValue
from agents.values.selfplay import Learner, play

SMALL = {
    "algorithm": "ntuple",
    "progress_bar": False,
    "ntuple": {
        "games": 96,
        "round_games": 32,
        "shards": 2,
        "parallel": 8,
        "limit": 16,
        "gate_every": 64,
        "gate_games": 6,
        "coherence": True,
        "alpha": 1.0,
        "epsilon": 0.1,
        "families": ["track", "identical", "rows", "planner"],
    },
    "final_eval": {"games": 0},
}


def config(tmp: Path, **ntuple):
    data = json.loads(json.dumps(SMALL))
    data["ntuple"].update(ntuple)
    data["output_dir"] = str(tmp)
    return config_from_dict(data)


def run(cfg, resume=None):
    return train(cfg, argparse.Namespace(resume=resume, no_progress=True))


def weights(path: Path) -> np.ndarray:
    with np.load(path) as f:
        return f["weights"].copy()


def evals(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "evals.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """A run never stopped."""
    tmp = tmp_path_factory.mktemp("whole")
    out = run(config(tmp))
    return tmp, out


def test_a_run_learns_gates_and_keeps_its_best(whole):
    tmp, out = whole
    entries = evals(tmp)
    assert [e["games"] for e in entries] == [0, 64, 96]  # the first gate, one every 64 games, and the end
    assert out["games"] == 96
    state = json.loads((tmp / "ntuple_state.json").read_text())
    best = max(entries, key=lambda e: (e["kept"], e["games"]) if e["kept"] else (False, 0))
    assert state["best_games"] == best["games"]
    assert np.abs(weights(tmp / "best.npz")).sum() > 0 or state["best_games"] == 0
    value = NTupleValue.load(tmp / "best.npz")
    seeds = range(3_000_000, 3_000_006)
    again = play(value, seeds, limit=16, parallel=8).scores
    assert again.tolist() == state["best_scores"]  # best.npz plays what its gate scored
    assert (tmp / "learning_curve.png").is_file()
    assert list(tmp.glob("events.out.tfevents.*"))


def test_the_gate_keeps_the_newest_value_unless_it_shows_it_worse(whole):
    tmp, _ = whole
    for e in evals(tmp)[1:]:
        assert e["kept"] == (e["paired_ci95"][1] > 0)


def test_a_gate_that_keeps_only_a_better_value(tmp_path):
    run(config(tmp_path, keep="better"))
    for e in evals(tmp_path)[1:]:
        assert e["kept"] == (e["paired_diff"] > 0)


def test_a_resumed_run_ends_as_one_never_stopped(whole, tmp_path):
    tmp, _ = whole
    run(config(tmp_path, games=64))
    run(config(tmp_path), resume=find_state(tmp_path))
    assert np.array_equal(weights(tmp_path / "best.npz"), weights(tmp / "best.npz"))
    last = sorted((tmp_path / "checkpoints").glob("*.npz"))[-1]
    assert np.array_equal(weights(last), weights(sorted((tmp / "checkpoints").glob("*.npz"))[-1]))
    strip = [{k: v for k, v in e.items() if k != "cpu_s"} for e in evals(tmp_path)]
    assert strip == [{k: v for k, v in e.items() if k != "cpu_s"} for e in evals(tmp)]


def test_a_resume_with_other_settings_is_refused_and_changes_nothing(whole, tmp_path):
    run(config(tmp_path, games=64))
    before = (tmp_path / "ntuple_state.json").read_text()
    with pytest.raises(ValueError, match="alpha"):
        run(config(tmp_path, alpha=0.5), resume=find_state(tmp_path))
    assert (tmp_path / "ntuple_state.json").read_text() == before


def test_a_round_is_learnt_in_seed_order_whatever_the_shares():
    """Shares are played with the round's weights; cutting the round otherwise changes the
    exploration draws, not the order the learner takes the games in."""
    cfg = config(Path("unused"))
    value = NTupleValue(NTupleSpec(("track", "rows")), planner_share=1.0)
    shares = share_tasks(cfg, value, 0, threads=1)
    assert [len(s[3]) for s in shares] == [16, 16]
    assert shares[0][3] + shares[1][3] == list(range(6_000_000, 6_000_032))
    x = {"limit": 16, "parallel": 8, "width": 12, "epsilon": 0.0, "threads": 1}
    spec = (["track", "rows"], 5, 1.0)
    whole = play_share(value.weights, spec, x, list(range(6_000_000, 6_000_032)), (0, 0, 0))
    parts = [play_share(value.weights, spec, x, s[3], s[4]) for s in shares]
    a, b = Learner(NTupleValue(value.spec, planner_share=1.0)), Learner(NTupleValue(value.spec, planner_share=1.0))
    learn_round(a, [whole])
    learn_round(b, parts)
    assert np.array_equal(a.value.weights, b.value.weights)  # without exploration: the same games, in order
    assert np.abs(a.value.weights).sum() > 0


@pytest.mark.parametrize(
    ("change", "error", "words"),
    [
        ({"ntuple": {"alpha": 0}}, ValueError, ["ntuple.alpha"]),
        ({"ntuple": {"families": ["rows", "colums"]}}, ValueError, ["ntuple.families[1]"]),
        ({"ntuple": {"round_games": "many"}}, TypeError, ["ntuple.round_games", "int"]),
        ({"ntuple": {"round_games": 1, "shards": 2}}, ValueError, ["ntuple.round_games"]),
        ({"ntuple": {"gamess": 3}}, ValueError, ["ntuple.gamess"]),
        ({"backend": "sb3"}, ValueError, ["'local' or 'ray'"]),
        ({"final_eval": {"agents": ["greedy"]}}, ValueError, ["final_eval.agents", "ntuple"]),
        ({"init_from": "no/such.npz"}, ValueError, ["init_from"]),
        ({"ray": {"env_runners": 2}}, ValueError, ["ray.env_runners"]),
        ({"ray": {"address": "auto"}}, ValueError, ["ray.address", "backend 'ray'"]),
    ],
)
def test_bad_configs_are_refused_by_key(change, error, words):
    data = {"algorithm": "ntuple"}
    for key, value in change.items():
        data[key] = value
    with pytest.raises(error) as info:
        config_from_dict(data)
    for word in words:
        assert word in str(info.value)


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    ray = pytest.importorskip("ray")
    base = tmp_path_factory.mktemp("r")
    if len(str(base)) > 60:  # Ray's socket paths must stay short
        base = Path(tempfile.mkdtemp(prefix="r", dir="/tmp"))
    patch = pytest.MonkeyPatch()
    patch.setenv("HOME", str(base))
    patch.delenv("RAY_ADDRESS", raising=False)
    ray.init(num_cpus=2, include_dashboard=False, _temp_dir=str(base / "t"), logging_level=logging.WARNING)
    yield ray
    ray.shutdown()
    patch.undo()


@pytest.mark.integration
def test_ray_shares_give_the_run_of_local_ones(whole, local_ray, tmp_path):
    tmp, _ = whole
    data = json.loads(json.dumps(SMALL))
    data["ntuple"]["games"] = 64  # two rounds: the local run's checkpoint at 64 games
    cfg = config_from_dict({**data, "backend": "ray", "output_dir": str(tmp_path)})
    run(cfg)
    ours = sorted((tmp_path / "checkpoints").glob("*.npz"))[-1]
    assert ours.name == "ntuple_000000064.npz"
    assert np.array_equal(weights(ours), weights(tmp / "checkpoints" / ours.name))
    assert [e["score_mean"] for e in evals(tmp_path)] == [e["score_mean"] for e in evals(tmp)][:2]


ROOT = Path(__file__).resolve().parents[3]


def test_the_shipped_configs_load():
    for name in ("ntuple.yaml", "ntuple_smoke.yaml"):
        cfg = load_config(ROOT / "configs" / name)
        assert cfg.trainer == "ntuple"


def test_the_smoke_config_trains_and_closes_with_its_table(tmp_path):
    cfg = load_config(ROOT / "configs" / "ntuple_smoke.yaml").model_copy(update={"output_dir": str(tmp_path)})
    out = run(cfg)
    table = json.loads((tmp_path / "final_eval.json").read_text())
    assert list(table["agents"]) == ["ntuple", "greedy", "ntuple+expectimax"]
    assert table["model"] == str(tmp_path / "best.npz") == out["best"]
    assert all(len(a["scores"]) == 6 for a in table["agents"].values())


BLOCK_TORCH = """
import sys
from importlib.abc import MetaPathFinder

class NoTorch(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "stable_baselines3", "sb3_contrib"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, NoTorch())
from agents.cli.train import cli
sys.exit(cli(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_run_needs_neither_torch_nor_sb3(tmp_path):
    """The table value's trainer and its TensorBoard events run in an install without the
    ``train`` extra's torch and Stable-Baselines3."""
    import subprocess
    import sys

    import yaml

    root = Path(__file__).resolve().parents[3]
    data = json.loads(json.dumps(SMALL))
    data["ntuple"].update(games=32, gate_every=32, gate_games=2)
    data["output_dir"] = str(tmp_path / "run")
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(data))
    done = subprocess.run(
        [sys.executable, "-c", BLOCK_TORCH, "--config", str(path), "--no-progress"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    scalars = EventAccumulator(str(tmp_path / "run")).Reload().Tags()["scalars"]
    assert {"eval/score_mean", "game/score_mean", "train/td_rmse"} <= set(scalars)
