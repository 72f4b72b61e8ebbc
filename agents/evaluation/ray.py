"""The runner's Ray backend: the same chunks of games, played by Ray tasks.

``numberdrop-evaluate --agents greedy,random --games 200 --backend ray [--address HOST:6379]``

Each chunk the runner cuts (``agents.evaluation.runner``) runs ``play_seeds``, what a local
worker runs, as one Ray task. A game depends only on its seed and agents, so every game is
the one the local backend plays and the table is identical (tested). Without ``--address``
(or ``RAY_ADDRESS``) a local Ray is started for the evaluation and stopped after it; a Ray
that is already running in this process (a training run) is used as it is. Every node needs
this project installed in the same environment (the tasks import it).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..registry import require_extra
from .runner import Progress
from .solo import GameResult, run


class RayTasks:
    """A pool whose tasks are Ray tasks of one CPU each."""

    def __init__(self, ray: Any) -> None:
        self.ray = ray
        self.parallel = max(1, int(ray.available_resources().get("CPU", 1)))

    def map(self, work: Callable, tasks: Sequence, bar: Progress, size: Callable) -> list:
        play = self.ray.remote(num_cpus=1)(work)
        pending = {play.remote(task): i for i, task in enumerate(tasks)}
        done: dict[int, Any] = {}
        while pending:
            ready, _ = self.ray.wait(list(pending), num_returns=1)
            for ref in ready:
                i = pending.pop(ref)
                done[i] = self.ray.get(ref)
                bar.update(size(tasks[i]))
        return [done[i] for i in range(len(tasks))]


@contextmanager
def ray_pool(address: str | None = None, num_cpus: int | None = None) -> Iterator[RayTasks]:
    """Ray as it runs in this process, else the cluster at ``address`` (or ``RAY_ADDRESS``),
    else a local Ray of ``num_cpus`` CPUs (None: all) stopped at the end."""
    try:
        require_extra("rllib", "the Ray backend")
    except ImportError as err:
        raise ValueError(str(err)) from None
    import ray

    started = not ray.is_initialized()
    if started:
        address = address or os.environ.get("RAY_ADDRESS")
        if address:
            print(f"joining the Ray cluster at {address}", file=sys.stderr)
            ray.init(address=address, logging_level=logging.WARNING)
        else:
            ray.init(num_cpus=num_cpus, include_dashboard=False, logging_level=logging.WARNING)
    try:
        yield RayTasks(ray)
    finally:
        if started:
            ray.shutdown()


def run_on_ray(
    agents: list[str],
    games: int,
    seed: int,
    options: dict[str, dict[str, Any]] | None = None,
    address: str | None = None,
    progress: bool = True,
    num_cpus: int | None = None,
) -> dict[str, list[GameResult]]:
    """``agents.evaluation.solo.run`` on Ray: results per agent, in seed order."""
    return run(agents, games, seed, num_cpus or 0, options, progress, backend="ray", address=address)
