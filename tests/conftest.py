"""Test-run setup shared by every test file.

numba compiles the planner's kernels on first use (about a minute on two cores with an empty
cache). The run compiles them once, in the process that starts it, before pytest-xdist starts
its workers; every worker then loads them from numba's on-disk cache instead of compiling the
same functions side by side.
"""

from __future__ import annotations

import pytest

from numberdrop_env import warmup


def pytest_sessionstart(session: pytest.Session) -> None:
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: the controller has filled the cache already
    if session.config.getoption("collectonly") or session.config.getoption("help", False):
        return
    warmup.warm_up()


SLOW = (
    "tests/agents/training/",  # real (if short) training runs, resumes and Ctrl-C in subprocesses
    "tests/agents/cli/",  # the commands in fresh processes
    "tests/test_documented_commands.py::test_each_console_script_answers_help",
    "tests/test_documented_commands.py::test_train_py_answers_help",
    "tests/luckynumbers_env/engine/test_lucky_masks.py::test_ten_thousand_random_games_without_error",
    "tests/numberdrop_env/engine/test_multiplayer.py::test_random_games_with_2_to_6_players_without_error",
    "tests/numberdrop_env/engine/test_masks.py::test_masks_and_transitions_along_games",
    "tests/numberdrop_env/envs/test_env_api.py::test_2000_random_games_end_properly_and_score_like_the_oracle",
    "tests/numberdrop_env/planner/test_turn_engine.py::test_greedy_and_random_turn_games_match_the_reference",
)
"""Tests of more than a few seconds each (``--durations`` in ``make test``'s output finds them),
left out by ``make test-fast``: node-id prefixes, kept in one table rather than on each test."""

INTEGRATION = (
    "tests/test_integrations.py",  # TorchRL, Tianshou, SuperSuit
    "tests/agents/training/test_rllib.py",  # RLlib on a local Ray
)
"""Tests that play the environments in another library, also left out by ``make test-fast``."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
        if item.nodeid.startswith(INTEGRATION):
            item.add_marker(pytest.mark.integration)
