"""Compile the engine's and the agents' numba code ahead of first use: ``python -m agents.warmup``,
the engine's warm-up then the n-tuple value's kernels (installed, the engine's command finds this
step by the entry point group ``numberdrop_env.warmup``)."""

from __future__ import annotations

import sys

from numberdrop_env import warmup

from .values import ntuple

STEPS = (("n-tuple value", ntuple.warm_up),)
"""The agents' warm-up steps, after the engine's (the name is the entry point's)."""


def cli(argv: list[str] | None = None) -> int:
    return warmup.cli(argv, extra=STEPS, prog="python -m agents.warmup")


if __name__ == "__main__":
    sys.exit(cli())
