"""Start at once: play the first turns while numba compiles the engine in another process.

With numba's cache lacking an environment's code, its first ``reset`` (or an agent's first game,
``begin``) starts ``python -m numberdrop_env.warmup --background`` and runs the compiled functions
as their Python (``numba_cache.interpret``; the planner plays ``planner.turns_python``) until
``poll`` finds the cache filled. A process, not a thread: numba compiles under a lock, mostly in
Python, and would read the globals the interpreted mode rebinds. How and why: ``docs/speed.md``.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from . import numba_cache
from .compile_progress import FIRST_USE, waiting

__all__ = ["ENV_VAR", "STEPS", "begin", "compiled", "enabled", "poll", "suspended"]

log = logging.getLogger(__name__)

ENV_VAR = "NUMBERDROP_QUICK_START"
"""``0`` (or ``false``, ``no``, ``off``) turns the quick start off."""
STEPS: dict[str, tuple[str, ...]] = {
    "NumberDrop-v0": ("NumberDrop-v0 game",),
    "NumberDropTurn-v0": ("NumberDropTurn-v0 game",),
}
"""The ``warmup`` steps whose games compile what each environment's turns call."""
LOCK = "numberdrop_env-compiling.lock"
"""Beside ``numba_cache``'s record while a background compile runs (its pid inside)."""
STALE_S = 900.0
"""A lock older than this was left by a process that died."""
CHECK_S = 0.5
WAITED_FOR = f"the background compile of the planner (it takes {FIRST_USE})"
"""What a caller that cannot interpret (the batch planner) waits for, on its progress line."""


class _State:
    def __init__(self) -> None:
        self.off = False
        self.child: subprocess.Popen | None = None
        self.wanted: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}  # key: its steps and names
        self.settled: set[str] = set()  # keys found compiled or cached: not asked again
        self.since = self.checked = 0.0


_state = _State()


def enabled() -> bool:
    """Whether ``begin`` may interpret (the environment variable, and numba's JIT on)."""
    from numba import config

    off = _state.off or os.environ.get(ENV_VAR, "1").strip().lower() in ("0", "false", "no", "off")
    return not off and not config.DISABLE_JIT


@contextmanager
def suspended() -> Iterator[None]:
    """Compiled code and no quick start inside (``warm_up``: it is the compile)."""
    compiled()
    before, _state.off = _state.off, True
    try:
        yield
    finally:
        _state.off = before


def begin(key: str, steps: tuple[str, ...] | None = None, names: tuple[str, ...] | None = None) -> bool:
    """At an environment's first reset (or an agent's first game): when the compiled code it
    needs is neither cached nor already in this process, start compiling it in a child process
    and interpret until it is done. ``key`` names an environment of ``STEPS``; another caller
    (an agent) gives the ``warmup`` steps that compile its code and the ``numba_cache`` names
    that tell whether they are cached. Returns whether this process is interpreting."""
    steps = STEPS.get(key) if steps is None else tuple(steps)
    names = numba_cache.ENTRY_POINTS.get(key) if names is None else tuple(names)
    if key in _state.wanted or key in _state.settled or not steps or not names or not enabled():
        return numba_cache.interpreted()
    try:
        if not numba_cache.not_compiled(names) or not numba_cache.not_cached(names):
            _state.settled.add(key)  # asked once per process: an agent's every game starts here
            return numba_cache.interpreted()
    except Exception:  # noqa: BLE001 - a name that does not resolve: compile as before (warm_up reports it)
        _state.settled.add(key)
        return numba_cache.interpreted()
    _state.wanted[key] = (steps, names)
    if not _lock_held():
        _spawn()
    if not numba_cache.interpreted():
        _state.since = time.perf_counter()
    numba_cache.interpret()
    if key in STEPS:  # the environments say so themselves (numba_cache.warn_if_not_compiled)
        log.info("%s: interpreting while the engine compiles in the background", key)
    else:
        log.warning(
            "%s: numba's cache lacks the compiled planner: the first games play it as Python while a "
            "background process compiles it (about a minute of one core, once; %s=0 compiles here instead)",
            key,
            ENV_VAR,
        )
    return True


def poll() -> None:
    """Between turns: bind the compiled functions again once they are ready (cheap to call
    often: it reads the cache's record at most every half second)."""
    if not numba_cache.interpreted():
        return
    now = time.perf_counter()
    if now - _state.checked < CHECK_S:
        return
    _state.checked = now
    if _ready():
        _switch()
    else:
        numba_cache.interpret()  # modules imported since (an agent's, say) are interpreted too


def compiled(timeout: float | None = None) -> None:
    """Wait for the background compile (if any) and bind the compiled functions again: what the
    batch entry points call, as they are not interpreted."""
    if not numba_cache.interpreted():
        return
    deadline = None if timeout is None else time.perf_counter() + timeout
    if not _ready():
        with waiting(WAITED_FOR, time.perf_counter() - _state.since):
            while not _ready() and (deadline is None or time.perf_counter() < deadline):
                time.sleep(0.1)
    _switch()


def _ready() -> bool:
    child = _state.child
    if child is not None and child.poll() is None:
        return _cached()
    if child is not None and child.returncode != 0:
        log.warning("the background compile failed (exit %s): compiling in this process", child.returncode)
        _state.child = None
        return True
    return _cached() or not _lock_held()


def _cached() -> bool:
    try:
        return not numba_cache.not_cached([n for _, names in _state.wanted.values() for n in names])
    except Exception:  # noqa: BLE001 - unresolvable names: stop waiting for them
        return True


def _switch() -> None:
    numba_cache.restore()
    log.info("compiled engine in use (interpreted for %.1f s)", time.perf_counter() - _state.since)


def _spawn() -> None:
    steps = list(dict.fromkeys(s for wanted, _ in _state.wanted.values() for s in wanted))
    command = [sys.executable, "-m", f"{numba_cache.PACKAGE}.warmup", "--only", ",".join(steps), "--background"]
    try:
        _state.child = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    except OSError as e:
        log.warning("cannot start the background compile (%s): compiling in this process", e)


# ---------------------------------------------------------------------------- the lock
def lock_path() -> str:
    """Where the background compile's lock lives: beside the record ``numba_cache`` keeps, in
    the first of its folders that can be written."""
    folders = [os.path.dirname(p) for p in numba_cache.record_paths()]
    for folder in folders:
        probe = folder
        while not os.path.exists(probe) and os.path.dirname(probe) != probe:
            probe = os.path.dirname(probe)
        if os.access(probe, os.W_OK):
            return os.path.join(folder, LOCK)
    return os.path.join(folders[-1], LOCK)


def _lock_held() -> bool:
    """A background compile holds the lock: it is recent and (where that can be asked) its process lives."""
    path = lock_path()
    try:
        if time.time() - os.stat(path).st_mtime >= STALE_S:
            return False
        with open(path, encoding="utf-8") as f:
            pid = int(f.read().strip() or 0)
    except (OSError, ValueError):
        return False
    return pid <= 0 or os.name != "posix" or _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # POSIX: signal 0 only asks
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def take_lock() -> bool:
    """In the background compile: take the lock, or return False when another process holds it."""
    path = lock_path()
    if os.path.exists(path) and not _lock_held():
        release_lock()  # left by a process that died
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except OSError:
        return False
    with os.fdopen(fd, "w") as f:
        f.write(str(os.getpid()))
    return True


def release_lock() -> None:
    try:
        os.remove(lock_path())
    except OSError:
        pass
