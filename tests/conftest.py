"""Test-run setup shared by every test file.

numba compiles the engine's and the planner's kernels on first use (about 75 s on one core with an
empty cache, most of it the turn planner). The run compiles them once: alone, before the tests;
or, under pytest-xdist, in a process of its own started first, while the workers run the tests
that need no compiled code (``NO_NUMBA``, run first), then those that need only the decision
engine's (``ENGINE_ONLY``, compiled in the warm-up's first seconds). A test that needs more waits
for that process, then loads the kernels from numba's on-disk cache instead of compiling them
side by side. The warm-up then compiles the n-tuple value's kernels (``agents.values.ntuple``),
which the tests of ``VALUES``, run last, wait for.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from numberdrop_env import warmup

os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(32))
"""Ray's local clusters (the Ray backend's tests) authenticate with a token. One for the whole
run, in the environment, reaches every cluster a test starts, in its process or another, and no
test writes ``~/.ray/auth_token``; Ray caches the first token a process finds, so a token file
in a per-test home failed once another test in that process had started Ray."""

WORKER_NICENESS = 10
"""The workers run below the warm-up process's priority: it is the run's critical path (every
test of the planner waits for it), and with three processes on two cores it would otherwise get
two thirds of one. Among themselves the workers, and what they start, stay equal."""

WARMED = "NUMBERDROP_TESTS_WARMED"
"""The environment variable naming the folder the warm-up process writes its stages to."""

NO_NUMBA = (
    "tests/luckynumbers_env/",
    "tests/agents/test_lucky_agents.py",
    "tests/web/test_docs_search.py",
    "tests/test_docs.py::test_commands_name_what_exists",
    "tests/test_docs.py::test_version_histories_are_in_date_order",
    "tests/test_docs.py::test_no_docstring_shows_a_sphinx_role",
    "tests/test_documented_commands.py::test_a_documented_command_parses",
    "tests/test_documented_commands.py::test_each_console_script_answers_help",
)
"""Tests that run no compiled Number Drop code: node-id prefixes."""

ENGINE_STEP = "NumberDrop-v0 game"
ENGINE_ONLY = (
    "tests/gamekit/test_public_names.py",
    "tests/gamekit/test_state_fuzz.py",
    "tests/numberdrop_env/envs/test_env_api.py",
    "tests/numberdrop_env/envs/test_multiplayer_env.py",
    "tests/numberdrop_env/engine/test_golden.py",
    "tests/numberdrop_env/engine/test_masks.py",
    "tests/numberdrop_env/engine/test_multiplayer.py",
    "tests/numberdrop_env/engine/test_persistence.py",
    "tests/numberdrop_env/engine/test_rules.py",
    "tests/numberdrop_env/engine/test_state_and_determinism.py",
    "tests/numberdrop_env/functional/",
)
"""Tests that run only the decision engine's compiled code (its placements and combinations),
compiled by the warm-up's first step: they start while it compiles the turn planner. One that
reached further would still pass, only compiling what it needs itself."""

VALUES = (
    "tests/agents/values/",
    "tests/agents/test_shipped_ntuple.py",
    "tests/agents/training/test_ntuple_trainer.py",
)
"""Tests of the n-tuple value, whose kernels the warm-up compiles last."""


def _parallel(config: pytest.Config) -> bool:
    workers = getattr(config.option, "numprocesses", None)
    return bool(workers) and not getattr(config.option, "collectonly", False)


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        if WARMED in os.environ:
            os.nice(WORKER_NICENESS)
        return
    if not _parallel(config) or WARMED in os.environ:
        return
    folder = tempfile.mkdtemp(prefix="numberdrop-warm-")
    os.environ[WARMED] = folder  # the workers, started after this, inherit it
    config._numberdrop_warm = subprocess.Popen([sys.executable, "-c", _warm_up(folder)])  # type: ignore[attr-defined]


def _warm_up(folder: str) -> str:
    """The warm-up process's code: it leaves ``engine`` in ``folder`` once the decision engine's
    code is compiled, ``all`` once the engine's and the planner's are and ``values`` once the n-tuple
    value's are, each holding ``0`` or the error that stopped it."""
    return f"""
import os, pathlib, traceback
from numberdrop_env import warmup

folder = pathlib.Path({folder!r})

def write(stage, text):
    (folder / (stage + ".tmp")).write_text(text)
    os.replace(folder / (stage + ".tmp"), folder / stage)  # whole, or not there yet

try:
    warmup.warm_up(after=lambda step: step.name == {ENGINE_STEP!r} and write("engine", "0"))
    if not (folder / "engine").exists():
        write("engine", "the warm-up has no step named " + {ENGINE_STEP!r} + ": update tests/conftest.py")
    write("all", "0")
    from agents.values import ntuple
    ntuple.warm_up()
    write("values", "0")
except BaseException:
    for stage in ("engine", "all", "values"):
        if not (folder / stage).exists():
            write(stage, traceback.format_exc())
    raise
"""


def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    if hasattr(config, "workerinput") or _parallel(config):
        return  # the warm-up process runs beside the workers
    if config.getoption("collectonly") or config.getoption("help", False):
        return
    warmup.warm_up()


def pytest_runtest_setup(item: pytest.Item) -> None:
    folder, stage = os.environ.get(WARMED), _stage(item)
    if folder is None or stage is None:
        return
    status = Path(folder) / stage
    while not status.exists():
        time.sleep(0.2)
    text = status.read_text()
    if text != "0":
        pytest.fail(f"numba's warm-up failed:\n{text}", pytrace=False)


def pytest_sessionfinish(session: pytest.Session) -> None:
    process = getattr(session.config, "_numberdrop_warm", None)
    if process is not None and process.wait() != 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


SLOW = (
    "tests/agents/training/",  # real (if short) training runs, resumes and Ctrl-C in subprocesses
    "tests/agents/cli/",  # the commands in fresh processes
    "tests/test_documented_commands.py::test_each_console_script_answers_help",
    "tests/test_documented_commands.py::test_train_py_answers_help",
    "tests/luckynumbers_env/engine/test_lucky_masks.py::test_three_thousand_random_games_without_error",
    "tests/numberdrop_env/engine/test_multiplayer.py::test_random_games_with_2_to_6_players_without_error",
    "tests/numberdrop_env/engine/test_masks.py::test_masks_and_transitions_along_games",
    "tests/numberdrop_env/envs/test_env_api.py::test_1000_random_games_end_properly_and_score_like_the_oracle",
    "tests/numberdrop_env/planner/test_turn_engine.py::test_greedy_and_random_turn_games_match_the_reference",
)
"""Tests of more than a few seconds each (``--durations`` in ``make test``'s output finds them),
left out by ``make test-fast``: node-id prefixes, kept in one table rather than on each test."""

INTEGRATION = (
    "tests/test_integrations.py",  # TorchRL, Tianshou, SuperSuit
    "tests/agents/training/test_rllib.py",  # RLlib on a local Ray
)
"""Tests that play the environments in another library, also left out by ``make test-fast``."""

BROWSER = ("tests/web/test_browser.py", "tests/web/test_docs_search.py")
"""Tests that drive a headless Chromium (Playwright, the ``web`` extra, and the system's Chromium:
``apt-get install chromium``); they skip, saying so, where it is missing."""


STAGES = (None, "engine", "all", "values")
"""The warm-up stages in the order they are written (None: a test that waits for none)."""


def _stage(item: pytest.Item) -> str | None:
    """The warm-up stage a test waits for."""
    if item.nodeid.startswith(NO_NUMBA):
        return None
    return "engine" if item.nodeid.startswith(ENGINE_ONLY) else "values" if item.nodeid.startswith(VALUES) else "all"


def _order(item: pytest.Item) -> int:
    return STAGES.index(_stage(item))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_order)  # stable: in the order of the warm-up stages they wait for (STAGES)
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
        if item.nodeid.startswith(INTEGRATION):
            item.add_marker(pytest.mark.integration)
        if item.nodeid.startswith(BROWSER):
            item.add_marker(pytest.mark.browser)
