"""``python -m numberdrop_env.warmup``: it runs every compiled path (and so fills numba's
cache), prints plain lines, and the environments say when their first steps will compile; a
listed function that does not exist is an error, not skipped."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys

import gymnasium as gym
import numba
import pytest

import numberdrop_env  # noqa: F401  (registers the environments)
from numberdrop_env import numba_cache, warmup
from numberdrop_env.envs.decision import NumberDropEnv
from numberdrop_env.envs.turn import NumberDropTurnEnv

STEPS = ["NumberDrop-v0 game", "NumberDropTurn-v0 game", "TurnPlanner entry phases", "multiplayer Table game"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def steps():
    return warmup.warm_up()


def test_warm_up_runs_every_path(steps):
    names = [s.name for s in steps]
    assert names == STEPS + ["turn engine batch entry point"] + [name for name, _ in warmup.extra_steps()]
    by_name = {s.name: s.detail for s in steps}
    for phase in ("start", "slide", "star_slide", "block", "place", "arrange", "wild", "combo"):
        assert phase in by_name["NumberDrop-v0 game"]
    assert "not reached" not in by_name["TurnPlanner entry phases"]
    assert "(0 block turns)" not in by_name["multiplayer Table game"]
    assert all(s.seconds >= 0 for s in steps)


def test_every_compiled_function_is_compiled_or_cached_after_warm_up(steps):
    """A compiled function no path of warm_up reaches would make the first use compile again
    (and the environments' hint fire forever): extend warm_up when this fails, or run
    ``python -m numberdrop_env.warmup --clear`` when the functions listed are callees whose
    file changed under cached callers."""
    assert len(numba_cache.compiled_functions()) > 20
    assert numba_cache.not_cached() == []  # every one compiled by a warm-up since its file last changed
    for names in numba_cache.ENTRY_POINTS.values():
        assert numba_cache.not_compiled(names) == []  # called from Python: compiled or loaded here
        assert set(numba_cache.resolve(names).values()) <= set(numba_cache.compiled_functions().values())


def test_a_listed_function_that_does_not_exist_fails_loudly(steps):
    with pytest.raises(AttributeError, match="no_such_function"):
        numba_cache.not_compiled(["planner.enumeration.no_such_function"])
    with pytest.raises(ImportError, match="no_such_module"):
        numba_cache.not_cached(["no_such_module.f"])
    with pytest.raises(TypeError, match="not a numba function"):
        numba_cache.resolve(["planner.packing.rule_ints"])


def test_warm_up_fails_when_an_entry_point_was_renamed(steps, monkeypatch):
    monkeypatch.setitem(numba_cache.ENTRY_POINTS, "NumberDropTurn-v0", ("planner.enumeration.enumerate_renamed",))
    with pytest.raises(AttributeError, match="enumerate_renamed"):
        warmup.warm_up()


def test_without_warm_up_s_record_every_function_would_compile(steps, monkeypatch, tmp_path):
    names = numba_cache.ENTRY_POINTS["NumberDrop-v0"]
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))  # an empty cache folder
    assert numba_cache.not_cached(names) == list(names)
    assert numba_cache.not_compiled(names) == []  # this process has them all the same


def test_cli_prints_one_plain_line_per_step_and_a_total(steps, capsys):
    assert warmup.cli([]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == [s.name for s in steps] + ["total"]
    assert all(" s (" in line for line in lines[:-1]) and "numba cache:" in lines[-1]
    assert not any("\r" in line for line in lines)
    assert warmup.cli(["--check"]) == 0
    assert "compiled functions cached" in capsys.readouterr().out


def test_progress_only_in_a_terminal(steps):
    plain, terminal = io.StringIO(), _Terminal()
    warmup.warm_up(plain)
    warmup.warm_up(terminal)
    assert "\r" not in plain.getvalue() and "\033" not in plain.getvalue()
    assert "\r" in terminal.getvalue() and f"[1/{len(steps)}]" in terminal.getvalue()  # tqdm's line
    pieces = [piece for line in terminal.getvalue().splitlines() for piece in line.split("\r")]
    written = [piece.split(":")[0] for piece in pieces if " s (" in piece or piece.startswith("total:")]
    assert written == [line.split(":")[0] for line in plain.getvalue().splitlines()]  # the same lines besides


def test_only_runs_the_steps_named_and_refuses_unknown_ones(steps):
    assert [s.name for s in warmup.warm_up(only=["NumberDrop-v0 game"])] == ["NumberDrop-v0 game"]
    with pytest.raises(ValueError, match="no warm-up step named"):
        warmup.warm_up(only=["no such step"])


def test_other_packages_steps_come_from_entry_points_or_the_caller(steps, monkeypatch):
    class EntryPoint:
        name = "elsewhere"

        def load(self):
            return lambda: None

    monkeypatch.setattr("importlib.metadata.entry_points", lambda group: [EntryPoint()])
    assert [name for name, _ in warmup.extra_steps()] == ["elsewhere"]
    ran = warmup.warm_up(only=["elsewhere", "mine"], extra=[("mine", lambda: "done"), ("elsewhere", lambda: "twice")])
    assert [(s.name, s.detail) for s in ran] == [("elsewhere", "compiled"), ("mine", "done")]


def test_environments_log_once_when_their_code_is_not_compiled(monkeypatch, caplog):
    monkeypatch.setattr(numba_cache, "_warned", False)
    monkeypatch.setattr(numba_cache, "not_cached", lambda names: list(names))
    with caplog.at_level(logging.WARNING, logger="numberdrop_env.numba_cache"):
        NumberDropTurnEnv()
        NumberDropEnv()
    assert len(caplog.records) == 1
    assert "python -m numberdrop_env.warmup" in caplog.records[0].getMessage()


def test_environments_say_nothing_once_compiled(steps, monkeypatch, caplog):
    monkeypatch.setattr(numba_cache, "_warned", False)
    with caplog.at_level(logging.WARNING, logger="numberdrop_env.numba_cache"):
        gym.make("NumberDropTurn-v0")
        gym.make("NumberDrop-v0")
    assert caplog.records == []


def test_a_fresh_process_with_an_empty_cache_is_told_and_a_warm_one_is_not(steps, tmp_path):
    """End to end, in new processes: constructing an environment compiles nothing, so this is quick."""
    code = "import gymnasium as gym, numberdrop_env; gym.make('NumberDropTurn-v0'); gym.make('NumberDrop-v0')"

    def stderr(**env: str) -> str:
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env={**os.environ, **env}
        )
        assert run.returncode == 0, run.stderr
        return run.stderr

    cold = stderr(NUMBA_CACHE_DIR=str(tmp_path / "empty"))
    assert cold.count("python -m numberdrop_env.warmup") == 1
    assert "numberdrop_env.warmup" not in stderr()  # the cache warm_up just filled
    check = subprocess.run(
        [sys.executable, "-m", "numberdrop_env.warmup", "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty")},
    )
    assert check.returncode == 1 and "not cached: planner.enumeration.enumerate_packed" in check.stdout
    assert "Warning" not in check.stderr, check.stderr  # runpy's, were the package to import this module itself
