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
