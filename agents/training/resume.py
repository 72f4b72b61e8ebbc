"""Checkpoints of a MaskablePPO run that continue exactly where the run stopped.

A checkpoint is taken at an update boundary (after the PPO update on a rollout, before the
next rollout), where the rollout buffer holds nothing the next rollout will not overwrite: the
model's own zip (weights, Adam state, step count, last observations) plus the zip entry
``numberdrop_resume.pkl``, the training environments mid-game with their dice generators and
the random states of Python, NumPy and PyTorch. Resumed with the same config, a run continues
bit for bit (``tests/agents/training/test_resume.py``). A checkpoint without the entry, or
resumed with other environments (``vec_env``, ``n_envs``, ``env``), continues from its
weights, optimizer and step count on new games. ``MaskablePPO.load`` ignores the entry.
"""

from __future__ import annotations

import json
import pickle
import random
import sys
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import SubprocVecEnv, VecEnv

from .checkpoints import Every, Interrupted, StopRequest, atomic_path, ignore_ctrl_c, pick_checkpoint

RESUME_ENTRY = "numberdrop_resume.pkl"
VERSION = 1


# ---------------------------------------------------------------- environments
class Resumable(gym.Wrapper):
    """An environment whose whole state crosses a process boundary: ``snapshot()`` pickles
    the wrapped environment (its game and generator included) and ``restore()`` puts such a
    copy in its place. ``SubprocVecEnv`` reaches both through ``env_method``."""

    def snapshot(self) -> bytes:
        return pickle.dumps(self.env)

    def restore(self, blob: bytes) -> None:
        self.env = pickle.loads(blob)


def worker_env(make: Callable[[], gym.Env]) -> gym.Env:
    """The environment of a ``SubprocVecEnv`` worker: resumable, and deaf to Ctrl-C (the
    trainer answers it, and needs its workers alive to save the checkpoint)."""
    ignore_ctrl_c()
    return Resumable(make())


def capture_envs(venv: VecEnv) -> bytes:
    """Every training environment's state: a ``SubprocVecEnv``'s workers one by one (their
    environments built by ``worker_env``), a vector env of this process whole."""
    if isinstance(venv, SubprocVecEnv):
        return pickle.dumps({"each": venv.env_method("snapshot")})
    return pickle.dumps({"whole": venv})


def restore_envs(venv: VecEnv, blob: bytes) -> VecEnv:
    """The vector env to continue with: ``venv`` given the saved states, or the saved one
    (``venv`` is then closed)."""
    saved = pickle.loads(blob)
    if "each" in saved:
        if not isinstance(venv, SubprocVecEnv):
            raise ValueError("the checkpoint's environments ran in worker processes, these do not")
        for i, env in enumerate(saved["each"]):
            venv.env_method("restore", env, indices=[i])
        return venv
    venv.close()
    return saved["whole"]


# ---------------------------------------------------------------- random states
def rng_state() -> dict[str, Any]:
    return {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}


def set_rng_state(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])


# ---------------------------------------------------------------- files
def save_checkpoint(model: Any, path: str | Path, envs_key: dict[str, Any]) -> Path:
    """The model with everything an exact resume needs, written atomically. ``envs_key``
    describes the environments; a resume with other ones starts new games."""
    state = {
        "version": VERSION,
        "steps": int(model.num_timesteps),
        "rng": rng_state(),
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
    """The step count of a checkpoint read whole (every CRC checked); a damaged file raises a
    ``ValueError`` that names it."""
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


def find_checkpoint(path: str | Path) -> Path:
    """What ``--resume PATH`` resumes from: the checkpoint named, or the newest in a run
    directory; a damaged one is reported and the previous good one taken."""
    return pick_checkpoint(path, check_checkpoint, lambda p: p.is_file())


def _resume_entry(path: str | Path) -> dict[str, Any] | None:
    with zipfile.ZipFile(path) as zf:
        if RESUME_ENTRY not in zf.namelist():
            return None
        state = pickle.loads(zf.read(RESUME_ENTRY))
    return state if isinstance(state, dict) and state.get("version") == VERSION else None


@dataclass
class Resumed:
    """A model loaded from a checkpoint; ``rng`` is set (``set_rng_state``) just before
    training, after anything else that might draw random numbers."""

    model: Any
    venv: VecEnv
    exact: bool
    rng: dict[str, Any] | None


def envs_key(cfg: Any) -> dict[str, Any]:
    """What a checkpoint's environments must match for an exact resume (a trainer config's
    ``vec_env``, ``n_envs`` and ``env`` section)."""
    return {"vec_env": cfg.vec_env, "n_envs": cfg.n_envs, "env": cfg.to_dict()["env"]}


def start_or_resume(
    resume: Path | None,
    venv: VecEnv,
    build: Callable[[VecEnv], Any],
    custom_objects: dict[str, Any],
    key: dict[str, Any],
    seed: int,
) -> Resumed:
    """A new model (``build(venv)``), or the checkpoint ``resume`` continued: exactly when it
    holds environments like these, else on new games seeded by ``seed``."""
    if resume is None:
        return Resumed(build(venv), venv, False, None)
    state = _resume_entry(resume)
    if state is not None and state["envs_key"] == key:
        model = MaskablePPO.load(str(resume), device="cpu", custom_objects=custom_objects)
        venv = restore_envs(venv, state["envs"])
        model.set_env(venv, force_reset=False)  # its last observations are those of the restored games
        resumed = Resumed(model, venv, True, state["rng"])
    else:  # new games: load() seeds ``venv`` with the run's first seed, seeded again here
        model = MaskablePPO.load(str(resume), env=venv, device="cpu", custom_objects=custom_objects)
        resumed = Resumed(model, venv, False, None)
        venv.seed(seed)
        set_random_seed(seed)
    how = (
        "exactly where it stopped"
        if resumed.exact
        else "on new games (the checkpoint holds no environments like these: weights, optimizer and step count only)"
    )
    print(f"resuming from {resume} at step {resumed.model.num_timesteps}, {how}", file=sys.stderr)
    return resumed


# ---------------------------------------------------------------- update boundaries
class BoundaryHook(Protocol):
    def __call__(self, model: Any, steps: int, final: bool) -> None: ...


class UpdateBoundaries(BaseCallback):
    """The trainer's work at update boundaries (see the module docstring): when training
    starts, after every PPO update (at the start of the next rollout) and when it ends.

    At each, in order: a checkpoint ``<folder>/<prefix>_<steps>_steps.zip`` when one is due
    (every ``every`` steps, and at the end; ``every=0`` only on request), the ``hooks``
    (evaluations), then, if Ctrl-C asked to stop, a checkpoint and ``Interrupted``.
    ``latest`` is the newest checkpoint (the resumed one at first).
    """

    def __init__(
        self,
        folder: Path,
        prefix: str,
        every: int,
        envs_key: dict[str, Any],
        stop: StopRequest,
        hooks: Sequence[BoundaryHook] = (),
        resumed_from: Path | None = None,
    ) -> None:
        super().__init__()
        self.folder, self.prefix, self.every, self.envs_key = folder, prefix, every, envs_key
        self.stop, self.hooks = stop, list(hooks)
        self.latest = resumed_from
        self.saved_at = self.at = -1
        self.schedule = Every(every, 0)

    def _on_training_start(self) -> None:
        n = self.num_timesteps
        if self.latest is not None:  # the checkpoint resumed from holds this boundary
            self.saved_at = n
        self.schedule = Every(self.every, n)
        self._boundary(final=False)

    def _on_rollout_start(self) -> None:
        if self.num_timesteps != self.at:  # not the first rollout: an update just ended
            self._boundary(final=False)

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        self._boundary(final=True)

    def _boundary(self, final: bool) -> None:
        n = self.at = self.num_timesteps
        if self.schedule.due(n) or (final and self.every):
            self.save(n)
        for hook in self.hooks:
            hook(self.model, n, final)
        if self.stop.requested:
            self.save(n)
            if not final:
                raise Interrupted(self.latest, n)

    def save(self, n: int) -> Path:
        if n != self.saved_at or self.latest is None:
            self.latest = save_checkpoint(self.model, self.folder / f"{self.prefix}_{n}_steps.zip", self.envs_key)
            self.saved_at = n
        return self.latest
