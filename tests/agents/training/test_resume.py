"""Training that survives: checkpoints taken after the update, exact resumes, Ctrl-C, kills,
atomic files and damaged ones.

One tiny turn-level run (2 envs x 64 steps = 128 steps per update, 512 steps, a checkpoint
per update) is played straight through once per kind of vector env; every other run here
stops, is killed or is damaged somewhere, resumes, and must end with the same weights and
Adam state, bit for bit.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest
import yaml

pytest.importorskip("sb3_contrib")
pytest.importorskip("tensorboard")

ROOT = Path(__file__).resolve().parents[3]

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from agents.cli import train  # noqa: E402
from agents.training import sb3  # noqa: E402

STEPS, UPDATE = 512, 128


def config(tmp: Path, kind: str = "dummy", **changes) -> Path:
    data = yaml.safe_load((ROOT / "configs" / "ppo_turn_smoke.yaml").read_text())
    data.update(output_dir=str(tmp / "run"), progress_bar=False, total_timesteps=STEPS, vec_env=kind)
    data["eval"].update(games=2, greedy_baseline=False, every_steps=256)
    data["checkpoint"]["every_steps"] = UPDATE
    data["final_eval"]["games"] = 0
    data.update(changes)
    path = tmp / f"{kind}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def run(cfg: Path, out: Path, *extra: str) -> dict:
    return train.main(["--config", str(cfg), "--no-progress", "--output-dir", str(out), *extra])


_STRAIGHT: dict[str, Path] = {}


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("resume")


def straight(base: Path, kind: str = "dummy") -> Path:
    """The run directory of the run never stopped (played once per kind)."""
    if kind not in _STRAIGHT:
        result = run(config(base, kind), base / f"straight_{kind}")
        assert result["steps"] == STEPS
        _STRAIGHT[kind] = Path(result["run_dir"])
    return _STRAIGHT[kind]


def assert_same_training_state(a: Path, b: Path) -> None:
    """The same weights, the same Adam moments and step counts, the same step count."""
    ma, mb = (MaskablePPO.load(str(p), device="cpu") for p in (a, b))
    assert ma.num_timesteps == mb.num_timesteps
    pa, pb = ma.policy.state_dict(), mb.policy.state_dict()
    assert pa.keys() == pb.keys() and all(torch.equal(pa[k], pb[k]) for k in pa)
    oa, ob = ma.policy.optimizer.state_dict()["state"], mb.policy.optimizer.state_dict()["state"]
    assert oa.keys() == ob.keys()
    assert all(torch.equal(oa[i][k], ob[i][k]) for i in oa for k in oa[i])


def evals(run_dir: Path) -> list[str]:
    return (run_dir / "evals.jsonl").read_text().splitlines()


# ---------------------------------------------------------------- exact resumes
@pytest.mark.parametrize("kind", ["dummy", "native", "subproc"])
def test_a_resumed_run_ends_with_the_weights_of_a_run_never_stopped(base, tmp_path, kind):
    """The checkpoint holds the state after the update (weights, Adam, games, random
    states): resumed from the middle, the run ends where the straight one did."""
    done = straight(base, kind)
    assert sorted(p.name for p in (done / "checkpoints").iterdir()) == [
        f"ppo_{n}_steps.zip" for n in (128, 256, 384, 512)
    ]
    result = run(config(base, kind), tmp_path / "b", "--resume", str(done / "checkpoints" / "ppo_256_steps.zip"))
    assert result["steps"] == STEPS
    assert_same_training_state(done / "final_model.zip", tmp_path / "b" / "final_model.zip")
    assert evals(tmp_path / "b") == evals(done)  # the evaluation at 256, killed in the straight run's place, too


def test_every_checkpoint_is_the_state_after_its_update(base, tmp_path):
    """Resuming from the last checkpoint (a kill during the final evaluation) trains nothing
    and keeps the final weights: the checkpoint was taken after the last update."""
    done = straight(base)
    again = tmp_path / "again"
    shutil.copytree(done, again)
    result = run(config(base), again, "--resume", str(again / "checkpoints" / "ppo_512_steps.zip"))
    assert result["steps"] == STEPS
    assert_same_training_state(done / "checkpoints" / "ppo_512_steps.zip", done / "final_model.zip")
    assert_same_training_state(done / "final_model.zip", again / "final_model.zip")
    assert evals(again) == evals(done)


def test_killed_run_resumes_from_its_run_directory(base, tmp_path):
    """SIGKILL in the middle of training, then ``--resume RUN_DIR``: the newest whole
    checkpoint is taken (a half-written one is never under a checkpoint's name)."""
    done = straight(base)
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "train.py", "--config", str(config(base)), "--no-progress", "--output-dir", str(out)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not (out / "checkpoints" / "ppo_128_steps.zip").exists() and proc.poll() is None:
            assert time.monotonic() < deadline, "no checkpoint written"
            time.sleep(0.01)
    finally:
        proc.kill()
        proc.wait()
    run(config(base), out, "--resume", str(out))
    assert_same_training_state(done / "final_model.zip", out / "final_model.zip")
    assert evals(out) == evals(done)


# ---------------------------------------------------------------- Ctrl-C
class CtrlCAt(gym.Wrapper):
    """Sends this process one SIGINT, at the ``at``-th step of the first environment to get there."""

    fired = False

    def __init__(self, env: gym.Env, at: int) -> None:
        super().__init__(env)
        self.at, self.steps = at, 0

    def step(self, action):
        self.steps += 1
        if self.steps == self.at and not CtrlCAt.fired:
            CtrlCAt.fired = True
            signal.raise_signal(signal.SIGINT)
        return self.env.step(action)


def test_ctrl_c_stops_at_the_next_update_with_a_checkpoint(base, tmp_path, monkeypatch, capsys):
    done = straight(base)
    make = sb3.make_env
    monkeypatch.setattr(sb3, "make_env", lambda env_cfg, game: CtrlCAt(make(env_cfg, game), at=150 // 2))
    cfg = config(tmp_path, checkpoint={"every_steps": 0})  # no periodic checkpoints: Ctrl-C's own
    before = signal.getsignal(signal.SIGINT)  # Python's default, or SIG_IGN under nohup
    result = run(cfg, tmp_path / "c")
    assert result["interrupted"] and result["steps"] == 256  # the update of the rollout under way finished
    checkpoint = tmp_path / "c" / "checkpoints" / "ppo_256_steps.zip"
    assert result["checkpoint"] == str(checkpoint)
    err = capsys.readouterr().err
    assert f"numberdrop-train --config {cfg} --resume {checkpoint}" in err
    assert not (tmp_path / "c" / "final_model.zip").exists()
    assert signal.getsignal(signal.SIGINT) is before  # the run's own handler is gone
    monkeypatch.setattr(sb3, "make_env", make)
    run(config(base), tmp_path / "c", "--resume", str(checkpoint))
    assert_same_training_state(done / "final_model.zip", tmp_path / "c" / "final_model.zip")


def test_ctrl_c_on_the_command_line_exits_cleanly(base, tmp_path):
    out = tmp_path / "cli"
    cfg = config(tmp_path, total_timesteps=1_000_000)
    proc = subprocess.Popen(
        [sys.executable, "train.py", "--config", str(cfg), "--no-progress", "--output-dir", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not (out / "checkpoints" / "ppo_128_steps.zip").exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    line = next(x for x in err.splitlines() if x.startswith("to continue: "))
    checkpoint = Path(line.split("--resume ")[1])
    assert line == f"to continue: numberdrop-train --config {cfg} --resume {checkpoint}"
    assert checkpoint.parent == out / "checkpoints" and checkpoint.is_file()
    assert MaskablePPO.load(str(checkpoint), device="cpu").num_timesteps % UPDATE == 0


# ---------------------------------------------------------------- damaged files
def damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncate":
        path.write_bytes(bytes(data[: len(data) // 2]))
    else:  # flip bytes in the middle: the zip opens, a checksum fails
        middle = len(data) // 2
        data[middle : middle + 64] = bytes(b ^ 0xFF for b in data[middle : middle + 64])
        path.write_bytes(bytes(data))


def test_a_damaged_checkpoint_is_named_and_the_previous_good_one_taken(base, tmp_path, capsys):
    done = straight(base)
    shutil.copytree(done / "checkpoints", tmp_path / "checkpoints")
    folder = tmp_path / "checkpoints"
    damage(folder / "ppo_512_steps.zip", "truncate")
    damage(folder / "ppo_384_steps.zip", "flip")
    _, args = train.prepare(["--config", str(config(base)), "--resume", str(folder / "ppo_512_steps.zip")])
    assert args.resume == folder / "ppo_256_steps.zip"
    err = capsys.readouterr().err
    assert str(folder / "ppo_512_steps.zip") in err and str(folder / "ppo_384_steps.zip") in err
    _, args = train.prepare(["--config", str(config(base)), "--resume", str(tmp_path)])  # the run directory
    assert args.resume == folder / "ppo_256_steps.zip"
    run(config(base), tmp_path / "b", "--resume", str(folder / "ppo_512_steps.zip"))
    assert_same_training_state(done / "final_model.zip", tmp_path / "b" / "final_model.zip")
    for name in ("ppo_256_steps.zip", "ppo_128_steps.zip"):
        damage(folder / name, "truncate")
    with pytest.raises(ValueError, match="no good checkpoint") as info:
        train.prepare(["--config", str(config(base)), "--resume", str(folder / "ppo_512_steps.zip")])
    assert str(folder / "ppo_128_steps.zip") in str(info.value)


def test_a_cut_evals_line_is_dropped_on_resume_and_the_curve_drawn(base, tmp_path, capsys):
    """A kill in the middle of a line of ``evals.jsonl``: the resumed run writes whole lines
    after the whole ones, and draws its learning curve."""
    done = straight(base)
    out = tmp_path / "cut"
    shutil.copytree(done, out)
    (out / "learning_curve.png").unlink()
    text = (out / "evals.jsonl").read_text()
    (out / "evals.jsonl").write_text(text[: len(text) - 20])  # the line of step 512 cut
    run(config(base), out, "--resume", str(out / "checkpoints" / "ppo_384_steps.zip"))
    assert evals(out) == evals(done)
    assert (out / "learning_curve.png").is_file()
    assert "note: no learning_curve.png" not in capsys.readouterr().err


def test_damaged_json_files_are_named(base, tmp_path, capsys):
    from agents.training.checkpoints import read_json

    (tmp_path / "x.json").write_text('{"score": 1')
    with pytest.raises(ValueError, match=str(tmp_path / "x.json")):
        read_json(tmp_path / "x.json")
    done = straight(base)
    out = tmp_path / "json"
    shutil.copytree(done, out)
    (out / "best.json").write_text('{"score": 4')
    run(config(base), out, "--resume", str(out / "checkpoints" / "ppo_384_steps.zip"))
    err = capsys.readouterr().err
    assert f"{out / 'best.json'} is damaged" in err
    assert_same_training_state(done / "final_model.zip", out / "final_model.zip")


def test_rllib_checkpoint_folders_damaged_or_cut_short(tmp_path, capsys):
    """A checkpoint folder whose step file is damaged is named and the previous one taken; a
    folder written through ``atomic_path`` replaces the old one whole or not at all."""
    from agents.training.checkpoints import STEPS_FILE, atomic_path, write_json
    from agents.training.config import config_from_dict

    RLLIB = config_from_dict({"backend": "rllib"})
    folder = tmp_path / "checkpoints"
    for steps in (128, 256, 384):
        with atomic_path(folder / f"rllib_{steps}_steps") as tmp:
            tmp.mkdir()
            write_json(tmp / STEPS_FILE, {"env_steps": steps})
    (folder / "rllib_384_steps" / STEPS_FILE).write_text('{"env_st')
    (folder / "rllib_256_steps" / STEPS_FILE).unlink()
    assert train.find_resume(tmp_path, RLLIB) == folder / "rllib_128_steps"
    err = capsys.readouterr().err
    assert str(folder / "rllib_384_steps" / STEPS_FILE) in err and str(folder / "rllib_256_steps") in err
    with pytest.raises(RuntimeError):
        with atomic_path(folder / "rllib_128_steps") as tmp:
            tmp.mkdir()
            raise RuntimeError("killed while saving")
    assert train.find_resume(folder / "rllib_128_steps", RLLIB) == folder / "rllib_128_steps"
    assert sorted(p.name for p in folder.iterdir()) == [f"rllib_{n}_steps" for n in (128, 256, 384)]


# ---------------------------------------------------------------- atomic files
def test_a_write_cut_short_leaves_the_old_file(tmp_path, monkeypatch):
    from agents.training.checkpoints import append_jsonl, atomic_path, atomic_write
    from agents.training.resume import save_model

    path = atomic_write(tmp_path / "a.json", '{"old": 1}')
    with pytest.raises(RuntimeError):
        with atomic_path(path) as tmp:
            tmp.write_text('{"new"')
            raise RuntimeError("killed")
    assert path.read_text() == '{"old": 1}' and os.listdir(tmp_path) == ["a.json"]

    class Breaks:
        def save(self, where):
            Path(where).write_bytes(b"PK half a zip")
            raise RuntimeError("killed")

    (tmp_path / "m.zip").write_bytes(b"the old model")
    with pytest.raises(RuntimeError):
        save_model(Breaks(), tmp_path / "m.zip")
    assert (tmp_path / "m.zip").read_bytes() == b"the old model"
    append_jsonl(tmp_path / "e.jsonl", {"step": 1})
    (tmp_path / "e.jsonl").write_text((tmp_path / "e.jsonl").read_text() + '{"step": 2, "sc')
    append_jsonl(tmp_path / "e.jsonl", {"step": 3})
    assert (tmp_path / "e.jsonl").read_text() == '{"step": 1}\n{"step": 3}\n'


# ---------------------------------------------------------------- Lucky Numbers
def lucky_config(tmp: Path, **changes) -> Path:
    data = yaml.safe_load((ROOT / "configs" / "lucky_ppo.yaml").read_text())
    data.update(n_envs=2, ship_to=None, progress_bar=False, total_timesteps=256)
    data["ppo"].update(n_steps=32, batch_size=32)
    data["env"]["players"] = 2
    data["eval"].update(every_steps=128, games=2)
    data["checkpoint"]["every_steps"] = 64
    data["pretrain"]["games"] = 0
    data["final_eval"]["games"] = 0
    data.update(changes)
    path = tmp / "lucky.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_lucky_numbers_runs_resume_exactly_and_stop_on_ctrl_c(tmp_path, monkeypatch, capsys):

    cfg = lucky_config(tmp_path)
    run(cfg, tmp_path / "straight")
    done = tmp_path / "straight"
    assert_same_training_state(done / "checkpoints" / "ppo_256_steps.zip", done / "final_model.zip")
    run(cfg, tmp_path / "b", "--resume", str(done / "checkpoints" / "ppo_128_steps.zip"))
    assert_same_training_state(done / "final_model.zip", tmp_path / "b" / "final_model.zip")

    def scores(run_dir: Path) -> list[tuple]:
        return [(e["step"], e["win_rate"], e["score_mean"]) for e in map(json.loads, evals(run_dir))]

    assert scores(tmp_path / "b") == scores(done)

    make = sb3.make_env
    monkeypatch.setattr(sb3, "make_env", lambda env_cfg, game: CtrlCAt(make(env_cfg, game), at=40))
    CtrlCAt.fired = False
    result = run(cfg, tmp_path / "c")
    assert result["interrupted"] and result["steps"] == 128
    assert f"--resume {tmp_path / 'c' / 'checkpoints' / 'ppo_128_steps.zip'}" in capsys.readouterr().err
    monkeypatch.setattr(sb3, "make_env", make)
    run(cfg, tmp_path / "c", "--resume", str(tmp_path / "c"))
    assert_same_training_state(done / "final_model.zip", tmp_path / "c" / "final_model.zip")
