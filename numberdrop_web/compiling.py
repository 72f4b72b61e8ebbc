"""A hint that waits for numba says so. On first use after an install the planner compiles in a
background process (``numberdrop_env.startup``); the agents that play its Python meanwhile never
wait, the others (the look-aheads, the networks) wait for it, and their progress must say what
they wait for and how long that takes rather than show a stage that seems stuck."""

from __future__ import annotations

import time

from numberdrop_env import numba_cache, startup

from .analysis import Job

INTERPRETING = frozenset({"random", "greedy", "ntuple"})
"""Agents that play the planner's Python while it compiles (``docs/speed.md``, first use)."""
WAITING = (
    "waiting for numba to compile the planner: the first use after an install or upgrade takes "
    "about a minute of one core, once; the agent then plays at its usual speed"
)
CHECK_S = 0.5


def wait_for_compile(job: Job, agent: str) -> None:
    """Until the background compile is done, when ``agent`` needs the compiled planner; the job's
    stage says so, and a cancel stops the wait (``Job.report`` raises ``Cancelled``)."""
    if agent in INTERPRETING:
        return
    while numba_cache.interpreted():
        job.report(WAITING)
        startup.poll()  # binds the compiled code once the cache has it
        if numba_cache.interpreted():
            time.sleep(CHECK_S)
