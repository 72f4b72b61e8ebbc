"""Files a run may be killed in the middle of: written whole or not at all, damaged ones named,
checkpoints found (the previous good one when one is damaged), the run states of the trainers
in generations, and Ctrl-C honoured at the next update boundary."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import zipfile
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

STEP_NAME = re.compile(r"_(\d+)_steps(?:\.zip)?$")
"""A numbered checkpoint's name: ``<prefix>_<steps>_steps`` (a folder) or ``...steps.zip``."""
STEPS_FILE = "numberdrop_progress.json"
"""Written into every checkpoint folder (RLlib): the env steps it was taken at."""


@contextmanager
def atomic_path(path: str | Path, suffix: str = "") -> Iterator[Path]:
    """A temporary path beside ``path`` (``suffix``: what the writer adds, SB3's ``.zip``) that
    replaces it on success; a folder by two renames, so a kill never leaves half of one there."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".tmp{suffix}", dir=path.parent)
    os.close(handle)
    tmp = Path(name)
    tmp.unlink()  # the writer creates it (a file or a folder)
    old = path.with_name(f".{path.name}.old-{os.getpid()}")
    try:
        yield tmp
        if tmp.is_file():
            with tmp.open("rb") as fh:
                os.fsync(fh.fileno())
        elif tmp.is_dir() and path.exists():  # a folder cannot replace a folder: the old one moves aside
            _remove(old)
            os.replace(path, old)
        os.replace(tmp, path)
        _remove(old)
    finally:
        _remove(tmp)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists() or path.is_symlink():
        path.unlink()


def atomic_write(path: str | Path, text: str) -> Path:
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(text)
    return path


def write_json(path: str | Path, obj: Any, indent: int | None = None) -> Path:
    return atomic_write(path, json.dumps(obj, indent=indent))


def read_json(path: str | Path) -> Any:
    """A damaged file raises a ``ValueError`` that names it."""
    path = Path(path)
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is damaged: not valid JSON ({err})") from None


def read_arrays(path: Path, fields: Collection[str], what: str) -> dict[str, np.ndarray]:
    """Saved arrays (``ValueError`` naming the file when it is damaged or lacks one of ``fields``)."""
    try:
        with np.load(path) as f:
            data = dict(f)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"{path}: damaged {what} ({type(err).__name__}: {err})") from None
    missing = set(fields) - set(data)
    if missing:
        raise ValueError(f"{path}: {what} without the fields {sorted(missing)}")
    return data


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """The objects of a JSON-lines file; a line cut by a kill is left out with a note."""
    path = Path(path)
    if not path.is_file():
        return []
    entries = []
    for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            entry = None
        if not isinstance(entry, dict):
            print(f"note: {path}:{n} is not a whole JSON object (a write cut short?); left out", file=sys.stderr)
            continue
        entries.append(entry)
    return entries


def write_jsonl(path: str | Path, entries: list[dict[str, Any]]) -> Path:
    return atomic_write(path, "".join(json.dumps(e) + "\n" for e in entries))


def append_jsonl(path: str | Path, entry: dict[str, Any]) -> Path:
    """Add one line atomically: files of a few hundred lines, rewritten each time."""
    return write_jsonl(path, read_jsonl(path) + [entry])


def keep_up_to(path: str | Path, last: int, key: str = "step") -> None:
    """Drop the entries past ``last`` (and any cut line): a resumed run writes them again."""
    path = Path(path)
    if path.is_file():
        write_jsonl(path, [e for e in read_jsonl(path) if _at(e, key) <= last])


def last_step(path: str | Path, up_to: int) -> int:
    """The step of the latest entry at or before ``up_to`` (0 when none)."""
    return max((_at(e, "step") for e in read_jsonl(path) if _at(e, "step") <= up_to), default=0)


def _at(entry: dict[str, Any], key: str) -> int:
    value = entry.get(key)
    return value if isinstance(value, int) else 0


class Every:
    """Due every ``every`` steps (0: never), counted from the multiple at or below ``since``."""

    def __init__(self, every: int, since: int) -> None:
        self.every, self.last = every, since - since % every if every else 0

    def due(self, steps: int) -> bool:
        if not self.every or steps - self.last < self.every:
            return False
        self.last = steps - steps % self.every
        return True


def checkpoint_step(path: str | Path) -> int | None:
    match = STEP_NAME.search(Path(path).name)
    return int(match.group(1)) if match else None


def numbered_checkpoints(folder: Path) -> list[Path]:
    """The numbered checkpoints of a folder (temporary files left out), newest first."""
    found = folder.iterdir() if folder.is_dir() else []
    numbered = [p for p in found if not p.name.startswith(".") and checkpoint_step(p) is not None]
    return sorted(numbered, key=checkpoint_step, reverse=True)


def pick_checkpoint(path: str | Path, check: Callable[[Path], int]) -> Path:
    """What ``--resume PATH`` resumes from: the checkpoint named or a run's newest; ``check``
    raises a ``ValueError`` naming a damaged one, and the next older one is tried."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"--resume checkpoint {str(path)!r} not found")
    candidates = _candidates(path)
    if not candidates:
        raise FileNotFoundError(f"--resume: no checkpoint in {str(path)!r}")
    problems = []
    for candidate in candidates:
        try:
            check(candidate)
        except ValueError as err:
            problems.append(str(err))
            print(f"warning: {err}", file=sys.stderr)
            continue
        if problems:
            print(f"resuming from the previous good checkpoint {candidate} instead", file=sys.stderr)
        return candidate
    raise ValueError(f"--resume: no good checkpoint at {str(path)!r}: " + "; ".join(problems))


def _candidates(path: Path) -> list[Path]:
    """``path`` then the older numbered checkpoints beside it, or a run folder's checkpoints (a
    checkpoint: a file, or a folder of RLlib's, ``rllib_<steps>_steps/`` or ``final_checkpoint/``)."""
    step = checkpoint_step(path)
    if not (path.is_file() or (path / STEPS_FILE).exists() or step is not None or path.name.endswith("_checkpoint")):
        return [p for folder in (path / "checkpoints", path) for p in numbered_checkpoints(folder)]
    folders = [path.parent] if step is not None else [path.parent / "checkpoints", path.parent]
    older = [
        p for f in folders for p in numbered_checkpoints(f) if p != path and (step is None or checkpoint_step(p) < step)
    ]
    return [path, *older]


def folder_steps(path: str | Path) -> int:
    """The step count of a checkpoint folder; a damaged one raises a ``ValueError`` naming it."""
    path = Path(path)
    steps_file = path / STEPS_FILE
    if not steps_file.is_file():
        raise ValueError(f"checkpoint {path} is damaged or not one of this trainer's (no {STEPS_FILE})")
    try:
        steps = read_json(steps_file)["env_steps"]
    except (KeyError, TypeError) as err:
        raise ValueError(f"{steps_file} is damaged (no env_steps: {err})") from None
    if not isinstance(steps, int) or steps < 0:
        raise ValueError(f"{steps_file} is damaged (env_steps {steps!r})")
    return steps


find_folder_checkpoint = partial(pick_checkpoint, check=folder_steps)
"""``--resume`` of an RLlib run."""


def find_state(path: str | Path, state_file: str, what: str) -> Path:
    """The run directory ``--resume`` names (the directory, or its ``state_file``)."""
    path = Path(path)
    run_dir = path.parent if path.name == state_file else path
    if not (run_dir / state_file).is_file():
        raise FileNotFoundError(f"{str(run_dir)!r} holds no {state_file}: not {what} that finished a generation")
    return run_dir


def resume_state(
    run_dir: Path, state_file: str, settings: dict[str, Any], section: str, free: Collection[str], key: str
) -> dict[str, Any]:
    """A stopped run's state, whose ``settings`` must not change (but ``free``); ``evals.jsonl``
    loses the lines past the state's ``key``."""
    state = read_json(run_dir / state_file)
    before = state.get("settings", {})
    changed = sorted(k for k in {*settings, *before} if before.get(k) != settings.get(k))
    if changed:
        may = " and ".join(f"{section}.{k}" for k in sorted(free))
        raise ValueError(
            f"{run_dir} was trained with other settings of {', '.join(changed)}: "
            f"a resumed run must keep them (only {may} may change)"
        )
    keep_up_to(run_dir / "evals.jsonl", state[key], key)
    print(f"resuming {run_dir} after {key} {state[key]}", file=sys.stderr)
    return state


def resume_command(config: str | Path, checkpoint: str | Path) -> str:
    return f"numberdrop-train --config {config} --resume {checkpoint}"


class Interrupted(Exception):
    """Training stopped on request at an update boundary; ``checkpoint`` holds its state."""

    def __init__(self, checkpoint: Path, steps: int) -> None:
        super().__init__(f"stopped at step {steps}; checkpoint {checkpoint}")
        self.checkpoint, self.steps = checkpoint, steps


class Boundaries:
    """A PPO trainer's update boundary (start, after each update, end): ``save(steps)`` when due
    (every ``every`` steps and at the end; 0: on request), ``evaluate(steps, final)``, then after a
    first Ctrl-C (``requested``, while the trainer is inside ``with``) a checkpoint and
    ``Interrupted``; a second raises ``KeyboardInterrupt``. ``latest``: the newest checkpoint."""

    def __init__(
        self,
        save: Callable[[int], Path],
        every: int,
        evaluate: Callable[[int, bool], None],
        start: int,
        resumed_from: Path | None = None,
    ) -> None:
        self.save, self.every, self.evaluate = save, every, evaluate
        self.latest, self.saved_at = resumed_from, start if resumed_from is not None else -1
        self.schedule = Every(every, start)
        self.requested = False
        self._previous: Any = None  # the SIGINT handler while inside ``with``

    def __enter__(self) -> Boundaries:
        if threading.current_thread() is threading.main_thread():  # signals reach the main thread only
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print(
            "\nCtrl-C: stopping after the current update, with a checkpoint (Ctrl-C again to stop at once)",
            file=sys.stderr,
            flush=True,
        )

    def checkpoint(self, steps: int) -> Path:
        """The checkpoint of ``steps``, saved once."""
        if steps != self.saved_at or self.latest is None:
            self.latest, self.saved_at = self.save(steps), steps
        return self.latest

    def __call__(self, steps: int, final: bool = False) -> None:
        if self.schedule.due(steps) or (final and self.every):
            self.checkpoint(steps)
        self.evaluate(steps, final)
        if self.requested:
            self.checkpoint(steps)
            if not final:
                raise Interrupted(self.latest, steps)
