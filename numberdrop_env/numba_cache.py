"""What of ``numberdrop_env``'s numba code this process has compiled, what numba's on-disk cache
holds (where it lives and when it is dropped: ``docs/speed.md``), and the line the environments log
when their first steps would compile. numba's API cannot tell what its cache holds without
compiling, so ``warm_up`` records beside it (``RECORD``) numba's version, the CPU and the size and
modification time of each compiled function's file; an entry stays while its file is unchanged.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import sys
from collections.abc import Iterable
from typing import Any

log = logging.getLogger(__name__)
_warned = False  # the hint is logged at most once per process

PACKAGE = "numberdrop_env"
RECORD = "numberdrop_env-warmup.json"
"""The file ``warm_up`` writes beside numba's cache: what it compiled, for what."""

ENTRY_POINTS: dict[str, tuple[str, ...]] = {
    "NumberDropTurn-v0": (
        "planner.enumeration.enumerate_packed",
        "planner.features.candidate_features",
        "planner.features.turn_state",
        "planner.packing.state_offsets",
    ),
    "NumberDropTurn-v0 vector": (
        "planner.batch.enumerate_many",
        "planner.batch.finish_turns",
        "planner.batch.start_turns",
        "planner.batch.score_rows",
        "planner.batch.turn_costs",
        "planner.features.turn_states_packed",
    ),
    "NumberDrop-v0": (
        "envs.observe.write_observation",
        "engine.placements.write_placements",
        "engine.combos._structures",
        "engine.combos._write_options",
    ),
}
"""Compiled functions each environment's first steps call from Python (``module.function`` under
``numberdrop_env``, resolved when used: the environments import this module). Only functions every
game reaches in its first turn belong here: ``warm_up`` fails when one was not compiled."""

FIRST_USE = {
    "NumberDropTurn-v0": "about a minute",
    "NumberDropTurn-v0 vector": "about a minute",
    "NumberDrop-v0": "5 to 10 seconds",
}
"""What compiling costs the first steps without a cache (measured on a 2-core CPU)."""

COMPILED_MODULES = ("envs.turn", "envs.decision", "engine.table")
"""Modules whose imports load every compiled function (``--clear`` and ``--check`` import them)."""


def silence() -> None:
    """No hint from this process on: it is compiling ahead of time (``warm_up``)."""
    global _warned
    _warned = True


def compiled_functions() -> dict[str, Any]:
    """Every numba function defined in the loaded ``numberdrop_env`` modules, by ``module.function``,
    less those compiled only inside their callers (``inline="always"``: never cached alone)."""
    from numba.extending import is_jitted

    out = {}
    for modname, module in sorted(sys.modules.items()):
        if module is None or not modname.startswith(PACKAGE + "."):
            continue
        for name, value in vars(module).items():
            value = _SWAPPED.get((modname, name), value)
            inlined = is_jitted(value) and value.targetoptions.get("inline") == "always"
            if is_jitted(value) and value.py_func.__module__ == modname and not inlined:
                out[f"{modname[len(PACKAGE) + 1 :]}.{name}"] = value
    return out


_SWAPPED: dict[tuple[str, str], Any] = {}
"""While ``interpreted``: each module global that held a compiled function, and that function."""
PACKAGES: list[str] = [PACKAGE]
"""Packages whose compiled functions ``interpret`` sets aside (the agents add theirs: this
package may not import them)."""


def interpret() -> int:
    """Run the loaded modules' numba functions as Python, compiling nothing: each module global of
    ``PACKAGES`` holding a compiled function is bound to its Python function (whose callees are then
    Python too); again, it covers modules imported since. ``restore`` undoes it. Returns how many."""
    from numba.extending import is_jitted

    prefixes = tuple(p + "." for p in PACKAGES)
    for modname, module in list(sys.modules.items()):
        if module is None or not modname.startswith(prefixes):
            continue
        for name, value in list(vars(module).items()):
            if is_jitted(value) and hasattr(value, "py_func"):
                _SWAPPED[(modname, name)] = value
                setattr(module, name, value.py_func)
    return len(_SWAPPED)


def interpreted() -> bool:
    """Whether ``interpret`` has set the compiled functions aside."""
    return bool(_SWAPPED)


def restore() -> None:
    """Bind every global that ``interpret`` changed to its compiled function again."""
    while _SWAPPED:
        (modname, name), compiled = _SWAPPED.popitem()
        module = sys.modules.get(modname)
        if module is not None and getattr(module, name, None) is compiled.py_func:
            setattr(module, name, compiled)


def resolve(names: Iterable[str]) -> dict[str, Any]:
    """The compiled function of each name (``module.function`` under ``numberdrop_env``); a name that
    does not resolve raises (ImportError, AttributeError, TypeError): a renamed function fails."""
    from numba.extending import is_jitted

    out = {}
    for name in names:
        module_name, _, attr = name.rpartition(".")
        module = importlib.import_module(f"{PACKAGE}.{module_name}")
        if not hasattr(module, attr):
            raise AttributeError(f"{PACKAGE}.{module_name} has no function {attr!r} (listed as {name!r})")
        f = _SWAPPED.get((module.__name__, attr), getattr(module, attr))
        if not is_jitted(f):
            raise TypeError(f"{PACKAGE}.{name} is not a numba function")
        out[name] = f
    return out


def not_compiled(names: Iterable[str] | None = None) -> list[str]:
    """The functions (default: all of ``compiled_functions``) this process has neither compiled nor
    loaded (a function loaded from the cache holds its callees' code: they are not loaded)."""
    functions = compiled_functions() if names is None else resolve(names)
    return [name for name, f in functions.items() if not f.signatures]


def not_cached(names: Iterable[str] | None = None) -> list[str]:
    """The functions (default: all of ``compiled_functions``) whose first call will compile them:
    ``warm_up``'s record is missing, from another numba or CPU, or older than their file."""
    functions = compiled_functions() if names is None else resolve(names)
    files = _cached_files()
    return [name for name, f in functions.items() if files.get(name) != _file_key(f)]


def _numba_key() -> list[str]:
    """What every numba cache entry depends on besides its source: numba, Python and the CPU."""
    import numba
    from llvmlite import binding
    from numba import config

    cpu = config.CPU_NAME or binding.get_host_cpu_name()
    features = config.CPU_FEATURES if config.CPU_FEATURES is not None else binding.get_host_cpu_features().flatten()
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return [numba.__version__, python, binding.get_process_triple(), cpu, features]


def _file_key(f: Any) -> list[float]:
    """The size and modification time of the file defining ``f`` (numba's key of its cache entries)."""
    stat = os.stat(f.py_func.__code__.co_filename)
    return [stat.st_size, stat.st_mtime]


def record_paths() -> list[str]:
    """Where the record lives, in the order numba picks its cache folder."""
    from numba import config

    if config.CACHE_DIR:
        return [os.path.join(config.CACHE_DIR, RECORD)]
    package = os.path.dirname(os.path.abspath(__file__))
    user = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [os.path.join(package, "__pycache__", RECORD), os.path.join(user, "numba", RECORD)]


def _cached_files() -> dict[str, list[float]]:
    """The record's compiled functions, each with its file's key when compiled (none when stale)."""
    for path in record_paths():
        try:
            with open(path, encoding="utf-8") as f:
                record = json.load(f)
        except (OSError, ValueError):
            continue
        return record.get("files", {}) if record.get("numba") == _numba_key() else {}
    return {}


def write_record() -> None:
    """Add what this process compiled or loaded to the record, keeping the entries whose file has
    not changed, in the first folder that takes it (none on a read-only install: the hint then
    says every time what numba does anyway)."""
    functions = {name: f for name, f in compiled_functions().items() if f.stats.cache_path}
    now = {name: _file_key(f) for name, f in functions.items()}
    # a function this process did not load keeps its entry: a worker that loads a few modules must
    # not make the next process think the others' compiled code is gone
    files = {name: key for name, key in _cached_files().items() if name not in now or now[name] == key}
    files.update({name: now[name] for name, f in functions.items() if f.signatures})
    record = {"numba": _numba_key(), "files": files}
    for path in record_paths():
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(f"{path}.{os.getpid()}", "w", encoding="utf-8") as out:
                json.dump(record, out)
            os.replace(f"{path}.{os.getpid()}", path)  # whole or not at all, for processes reading it
            return
        except OSError:
            continue


def clear_cache() -> int:
    """Delete the numba cache files of the ``numberdrop_env`` modules, stale ones included, and the
    record; returns how many. numba does not notice an edited callee in another file."""
    removed = 0
    for folder in cache_dirs():
        for name in os.listdir(folder):
            if name.endswith((".nbi", ".nbc")):
                try:
                    os.remove(os.path.join(folder, name))
                    removed += 1
                except FileNotFoundError:  # another process got there first
                    pass
    for path in record_paths():
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
    return removed


def cache_dirs() -> list[str]:
    """The folders numba's cache of the loaded ``numberdrop_env`` modules is written to."""
    return sorted({d for d in (f.stats.cache_path for f in compiled_functions().values()) if d})


def warn_if_not_compiled(env_id: str, quick_start: bool = False) -> None:
    """Log one line (once per process) when ``env_id``'s first steps will compile numba code
    (``quick_start``: in the background, while they play). It only informs: a failure says nothing."""
    global _warned
    if _warned:
        return
    try:
        from numba import config

        if config.DISABLE_JIT:
            return
        missing = not_cached(ENTRY_POINTS.get(env_id, ()))
    except Exception:  # noqa: BLE001 - a hint, never an error
        return
    if missing:
        _warned = True
        how = (
            ": the first turns play it as Python while a background process compiles it "
            "(%s, once; NUMBERDROP_QUICK_START=0 compiles here instead)"
            if quick_start
            else ", so the first steps compile it (%s, once)"
        )
        log.warning(
            f"%s: the engine's compiled code is not in numba's cache yet{how}; "
            "`python -m numberdrop_env.warmup` does it ahead of time",
            env_id,
            FIRST_USE.get(env_id, "a while"),
        )
