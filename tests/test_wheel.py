"""The package as a user gets it: a wheel built from the checkout, installed in a fresh virtual
environment outside it, every registered agent playing one game and the smoke configs training
by name, from another folder.

A base install plays every agent that needs no extra and trains the n-tuple value; each torch
agent and trainer fails with one line naming the `train` extra and the install's own pip
command; the same environment with the `train` extra added then plays those and trains the
smallest PPO config (the RLlib one refuses in one line: no `rllib` extra). One
environment for both keeps numba's compiled planner (about 80 CPU-s to compile, cached in the
installed package) for the second install; each install's games run in one process. ``uv``
installs from its cache, with pip's find-links folders (where a machine keeps torch's CPU wheel)
passed on, as the Makefile does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from agents.registry import GAMES

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
TORCH = "torch==2.13.0"  # the Makefile's pin: the CPU wheel of pip's find-links folders
LEFT_OUT = {"numberdrop/rllib": "it needs a trained RLlib checkpoint, which the package does not ship"}
NOT_SOURCE = ("__pycache__", "*.pyc", "*.egg-info", ".git", ".venv", "build", "dist", "runs", "site", ".*_cache")

PLAYER = """
import json, sys
import agents
from agents.registry import make_policy
from luckynumbers_env import Game, Rules
from numberdrop_env import SoloGame

def numberdrop(name):
    policy, game = make_policy(name), SoloGame(seed=0)
    policy.reset(0)
    while not game.is_over:
        game.step(int(policy.act(game, game.legal_mask())))
    return game.score()

def luckynumbers(name):  # against random: two seats that never draw face down would never end
    game = Game(Rules(players=2), seed=0)
    seats = [make_policy(name, game="luckynumbers"), make_policy("random", game="luckynumbers")]
    for seat, policy in enumerate(seats):
        policy.reset(seat)
    while not game.over:
        game.step(seats[game.player].act(game, game.legal_mask()))
    return game.scores().tolist()

names, out = json.loads(sys.argv[1]), {"package": agents.__file__}
for key in names:
    game, name = key.split("/")
    try:
        out[key] = {"numberdrop": numberdrop, "luckynumbers": luckynumbers}[game](name)
    except ImportError as err:
        out[key] = "ImportError: " + str(err)
print(json.dumps(out))
"""
"""Plays one game of each agent named ``game/name`` (seed 0) and prints a score, or the ImportError, for each."""


def uv() -> str:
    """``uv``: beside this interpreter (the Makefile's ``.venv/bin/uv``), else on the PATH."""
    found = Path(sys.executable).parent / "uv"
    path = str(found) if found.exists() else shutil.which("uv")
    if path is None:
        pytest.skip("uv is not installed (make test installs it in .venv)")
    return path


def find_links() -> list[str]:
    """``--find-links`` for each of pip's find-links folders (uv does not read pip's configuration)."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "config", "get", "global.find-links"], capture_output=True, text=True
    )
    folders = sorted({*os.environ.get("PIP_FIND_LINKS", "").split(), *done.stdout.split()})
    return [arg for folder in folders for arg in ("--find-links", folder)]


def build_wheel(out: Path) -> Path:
    """The wheel of a clean copy of the checkout (a stale ``build/`` folder would add deleted modules)."""
    source = out / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    run_uv(["build", "--wheel", "--quiet", "--out-dir", str(out), str(source)], cwd=out)
    return next(out.glob("*.whl"))


def run_uv(args: list[str], cwd: Path) -> None:
    """``uv`` from its cache alone (where ``make test``'s own install left every package), and
    from the index only when the cache lacks one."""
    if launch([uv(), "--offline", *args], cwd).returncode != 0:
        run([uv(), *args], cwd)


def launch(command: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    """The command run outside the checkout: nothing on ``PYTHONPATH``, no virtual environment active."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    start = time.monotonic()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    label = " ".join([Path(command[0]).name, *command[1:3]])[:40].replace("\n", " ")
    print(f"{label}: {time.monotonic() - start:.0f} s")  # each stage's time, shown when the test fails
    return done


def run(command: list[str], cwd: Path) -> str:
    done = launch(command, cwd)
    assert done.returncode == 0, f"{command[:3]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def missing_data(wheel: Path) -> list[str]:
    """The files of the wheel's packages in the checkout that are neither Python nor in the wheel
    (the models, the web app's page: what the packages read at run time)."""
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = {name.split("/")[0] for name in names if "/" in name and ".dist-info/" not in name}
    return sorted(
        path.relative_to(ROOT).as_posix()
        for package in packages
        for path in (ROOT / package).rglob("*")
        if path.is_file()
        and path.suffix not in (".py", ".pyc")
        and "__pycache__" not in path.parts
        and path.relative_to(ROOT).as_posix() not in names
    )


def play(python: Path, names: list[str], cwd: Path) -> dict[str, object]:
    results = json.loads(run([str(python), "-c", PLAYER, json.dumps(names)], cwd=cwd).splitlines()[-1])
    assert Path(results.pop("package")).is_relative_to(python.parents[1]), "the checkout was imported"
    return results


def test_the_wheel_installs_every_agent_outside_the_checkout(tmp_path):
    wheel = build_wheel(tmp_path / "wheel")
    assert missing_data(wheel) == []

    venv, elsewhere = tmp_path / "venv", tmp_path / "elsewhere"
    elsewhere.mkdir()
    python = venv / "bin" / "python"
    run([uv(), "venv", "--quiet", "--python", sys.executable, str(venv)], cwd=elsewhere)
    install = ["pip", "install", "--quiet", "--python", str(python), *find_links()]
    run_uv([*install, str(wheel)], cwd=elsewhere)

    agents = {f"{game}/{name}": entry for game, table in GAMES.items() for name, entry in table.items()}
    played = [key for key in agents if key not in LEFT_OUT]
    base = play(python, played, elsewhere)
    failed = sorted(key for key, result in base.items() if isinstance(result, str))
    extras = {key: extra for key in played for extra in ("train", "jax") if f"[{extra}]" in agents[key]}
    assert failed == sorted(extras), base
    for key in failed:
        assert f"needs the `{extras[key]}` extra" in base[key] and "\n" not in base[key], base[key]
        assert base[key].endswith(f"pip install 'numberdrop-env[{extras[key]}]'"), base[key]  # not a checkout's
    default = run([str(venv / "bin" / "numberdrop-play")], cwd=elsewhere).splitlines()[0]
    assert default == "agent: ntuple_expectimax (best needs the train extra)"
    train_smoke(venv, elsewhere, BASE_SMOKE)
    said = refused(venv, elsewhere, "ppo_turn_smoke")
    assert said == f"the sb3 trainer needs the `train` extra (torch is not installed): {INSTALL_TRAIN}", said

    run_uv([*install, f"{wheel}[train,jax]", TORCH], cwd=elsewhere)
    train = play(python, failed, elsewhere)
    assert all(isinstance(score, (int, list)) for score in train.values()), train
    train_smoke(venv, elsewhere, TRAIN_SMOKE)
    said = refused(venv, elsewhere, "rllib_smoke")
    assert said.startswith("backend 'rllib' needs the `rllib` extra") and said.endswith("[rllib]'"), said


BASE_SMOKE = ["ntuple_smoke"]
"""The smoke configs a base install trains (the n-tuple value needs no torch)."""
TRAIN_SMOKE = ["ppo_turn_smoke"]
"""The smallest smoke config of the torch trainers (SB3's MaskablePPO, 256 turns: about 20 s where
``q_smoke`` takes a minute; tests/agents/training trains the others from the checkout)."""
INSTALL_TRAIN = "pip install 'numberdrop-env[train]'"


def train_smoke(venv: Path, cwd: Path, names: list[str]) -> None:
    """Train each shipped config by name (``numberdrop-train --config NAME``) into ``cwd/runs``:
    each run ends with its best model saved."""
    for name in names:
        run([str(venv / "bin" / "numberdrop-train"), "--config", name, "--output-dir", f"runs/{name}"], cwd=cwd)
        written = sorted(p.name for p in (cwd / "runs" / name).iterdir())
        assert any(n.startswith("best") for n in written), f"{name}: no best model in {written}"


def refused(venv: Path, cwd: Path, name: str) -> str:
    """What ``numberdrop-train --config NAME`` says when its trainer's extra is missing: exit 2 and
    one line."""
    done = launch([str(venv / "bin" / "numberdrop-train"), "--config", name], cwd)
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-3000:]
    assert lines[0].startswith("numberdrop-train: error: "), lines[0]
    return lines[0].removeprefix("numberdrop-train: error: ")


@pytest.mark.parametrize("key", [key for key in LEFT_OUT if key.split("/")[1] in GAMES[key.split("/")[0]]])
def test_agents_left_out_of_the_install_test(key):
    pytest.skip(f"{key} is not played from the wheel: {LEFT_OUT[key]}")
