"""Checkpoints of a MaskablePPO run that continue exactly where it stopped: the model's zip plus
``numberdrop_resume.pkl`` (the environments mid-game, the random states), which
``MaskablePPO.load`` ignores. See "Stopping and resuming" in ``docs/training.md``."""

from __future__ import annotations

import json
import pickle
import random
import signal
import sys
import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import SubprocVecEnv, VecEnv

from .checkpoints import atomic_path, pick_checkpoint

RESUME_ENTRY = "numberdrop_resume.pkl"
VERSION = 1


class Resumable(gym.Wrapper):
    """An environment whose whole state (game and generator) crosses a process boundary."""

    def snapshot(self) -> bytes:
        return pickle.dumps(self.env)

    def restore(self, blob: bytes) -> None:
        self.env = pickle.loads(blob)


def worker_env(make: Callable[[], gym.Env]) -> gym.Env:
    """A ``SubprocVecEnv`` worker's environment, deaf to Ctrl-C (the checkpoint needs it alive)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return Resumable(make())


def capture_envs(venv: VecEnv) -> bytes:
    """Every training environment's state: a ``SubprocVecEnv``'s workers one by one, else whole."""
    if isinstance(venv, SubprocVecEnv):
        return pickle.dumps({"each": venv.env_method("snapshot")})
    return pickle.dumps({"whole": venv})


def restore_envs(venv: VecEnv, blob: bytes) -> VecEnv:
    """``venv`` given the saved states, or the saved vector env (``venv`` then closed)."""
    saved = pickle.loads(blob)
    if "each" in saved:  # (the environments' key matched: ``venv`` is a ``SubprocVecEnv`` too)
        for i, env in enumerate(saved["each"]):
            venv.env_method("restore", env, indices=[i])
        return venv
    venv.close()
    return saved["whole"]


def set_rng_state(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])


def save_checkpoint(model: Any, path: str | Path, envs_key: dict[str, Any]) -> Path:
    """The model with everything an exact resume needs; ``envs_key`` describes the environments."""
    state = {
        "version": VERSION,
        "steps": int(model.num_timesteps),
        "rng": {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()},
        "envs_key": envs_key,
        "envs": capture_envs(model.get_env()),
    }
    return save_model(model, path, {RESUME_ENTRY: pickle.dumps(state)})


def save_model(model: Any, path: str | Path, extra: dict[str, bytes] | None = None) -> Path:
    """``model.save(path)``, atomically, with ``extra`` entries added to the zip."""
    path = Path(path)
    with atomic_path(path, ".zip") as tmp:
        model.save(tmp)
        if extra:
            with zipfile.ZipFile(tmp, "a") as zf:
                for name, data in extra.items():
                    zf.writestr(name, data)
    return path


def check_checkpoint(path: str | Path) -> int:
    """The step count of a checkpoint read whole (every CRC checked); ``ValueError`` naming a damaged one."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as zf:
            broken = zf.testzip()
            if broken is not None:
                raise ValueError(f"its entry {broken!r} fails its checksum")
            steps = json.loads(zf.read("data"))["num_timesteps"]
            if RESUME_ENTRY in zf.namelist():
                pickle.loads(zf.read(RESUME_ENTRY))
    except (zipfile.BadZipFile, KeyError, ValueError, EOFError, OSError, pickle.UnpicklingError) as err:
        raise ValueError(f"checkpoint {path} is damaged ({type(err).__name__}: {err})") from None
    if not isinstance(steps, int) or steps < 0:
        raise ValueError(f"checkpoint {path} is damaged (num_timesteps {steps!r})")
    return steps


find_checkpoint = partial(pick_checkpoint, check=check_checkpoint)
"""``--resume`` of an SB3 run."""


def _resume_entry(path: str | Path) -> dict[str, Any] | None:
    with zipfile.ZipFile(path) as zf:
        if RESUME_ENTRY not in zf.namelist():
            return None
        state = pickle.loads(zf.read(RESUME_ENTRY))
    return state if isinstance(state, dict) and state.get("version") == VERSION else None


def envs_key(cfg: Any) -> dict[str, Any]:
    """What a checkpoint's environments must match for an exact resume."""
    return {"vec_env": cfg.vec_env, "n_envs": cfg.n_envs, "env": cfg.env.model_dump()}


def resume_model(
    resume: Path, venv: VecEnv, custom_objects: dict[str, Any], key: dict[str, Any], seed: int
) -> tuple[Any, VecEnv, dict[str, Any] | None]:
    """``resume`` continued exactly with environments like these (``key``), else on new games; its
    environments; the random states to set just before training (``None``: none)."""
    state = _resume_entry(resume)
    if state is not None and state["envs_key"] == key:
        model = MaskablePPO.load(str(resume), device="cpu", custom_objects=custom_objects)
        venv = restore_envs(venv, state["envs"])
        model.set_env(venv, force_reset=False)  # its last observations are those of the restored games
        rng, how = state["rng"], "exactly where it stopped"
    else:  # new games: load() seeds ``venv`` with the run's first seed, seeded again here
        model = MaskablePPO.load(str(resume), env=venv, device="cpu", custom_objects=custom_objects)
        venv.seed(seed)
        set_random_seed(seed)
        rng = None
        how = "on new games (the checkpoint holds no environments like these: weights, optimizer and step count only)"
    print(f"resuming from {resume} at step {model.num_timesteps}, {how}", file=sys.stderr)
    return model, venv, rng
