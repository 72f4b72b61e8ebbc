"""The Ray backend of ``numberdrop-evaluate``: the same games, played by Ray tasks.

``numberdrop-evaluate --agents greedy,random --games 200 --backend ray [--address HOST:6379]``

The seeds are cut into chunks as the local backend cuts them, and each chunk runs
``agents.evaluation.solo.play_chunk`` (what a local worker runs) as one Ray task. A game depends
only on its seed and agent, so every game is the one the local backend plays and the
table is identical (tested). Without ``--address`` (or
``RAY_ADDRESS``) a local Ray is started for the evaluation and stopped after it; a Ray
that is already running in this process (a training run) is used as it is. Every node
needs this project installed in the same environment (the tasks import it).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

from tqdm import tqdm

from ..registry import make_policy, require_extra
from .solo import GameResult, chunks, play_chunk


def run_on_ray(
    agents: list[str],
    games: int,
    seed: int,
    options: dict[str, dict[str, Any]] | None = None,
    address: str | None = None,
    progress: bool = True,
    num_cpus: int | None = None,
) -> dict[str, list[GameResult]]:
    """Results per agent, in seed order, as ``agents.evaluation.solo.run`` returns them."""
    try:
        require_extra("rllib", "the Ray backend")
    except ImportError as err:
        raise ValueError(str(err)) from None
    import ray

    options = options or {}
    for name in agents:  # fail fast, here, before any task is sent
        make_policy(name, options.get(name))
    started = not ray.is_initialized()
    if started:
        address = address or os.environ.get("RAY_ADDRESS")
        if address:
            print(f"joining the Ray cluster at {address}", file=sys.stderr)
            ray.init(address=address, logging_level=logging.WARNING)
        else:
            ray.init(num_cpus=num_cpus, include_dashboard=False, logging_level=logging.WARNING)
    try:
        parallel = max(1, int(ray.available_resources().get("CPU", 1)))
        play = ray.remote(num_cpus=1)(play_chunk)
        tasks = chunks(agents, games, seed, parallel, options)
        pending = {play.remote(*task): i for i, task in enumerate(tasks)}
        done: dict[int, tuple[str, list[GameResult]]] = {}
        bar = tqdm(total=games * len(agents), desc="games", unit="game", disable=not progress)
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                i = pending.pop(ref)
                done[i] = ray.get(ref)
                bar.update(len(done[i][1]))
        bar.close()
    finally:
        if started:
            ray.shutdown()
    results: dict[str, list[GameResult]] = {a: [] for a in agents}
    for i in range(len(tasks)):
        agent, chunk_results = done[i]
        results[agent].extend(chunk_results)
    return results
