"""Solo games on Ray tasks, as the previous release called them: ``run_on_ray`` is
``agents.evaluation.solo.run`` with ``backend="ray"`` (the Ray backend itself is
``agents.evaluation.runner.ray_pool``).

``numberdrop-evaluate --agents greedy,random --games 200 --backend ray [--address HOST:6379]``
"""

from __future__ import annotations

from typing import Any

from .solo import GameResult, run


def run_on_ray(
    agents: list[str],
    games: int,
    seed: int,
    options: dict[str, dict[str, Any]] | None = None,
    address: str | None = None,
    progress: bool = True,
    num_cpus: int | None = None,
) -> dict[str, list[GameResult]]:
    """Results per agent, in seed order, as ``solo.run`` gives them; ``num_cpus`` sizes a local Ray."""
    return run(agents, games, seed, num_cpus or 0, options, progress, backend="ray", address=address)
