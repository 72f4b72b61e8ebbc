"""The throughput benchmark's pairing of two loops in alternating windows."""

from __future__ import annotations

import time

from benchmarks.throughput import _paired


def steady(steps: int):
    """A loop that makes ``steps`` steps (and one game) in whatever time it is given."""

    def run(deadline: float) -> tuple[int, int]:
        time.sleep(max(0.0, deadline - time.perf_counter()))
        return steps, 1

    return run


def test_paired_windows_give_both_rates_and_the_median_ratio():
    calls = []

    def counted(deadline: float) -> tuple[int, int]:
        calls.append(deadline)
        return steady(100)(deadline)

    first, second, ratio = _paired(counted, steady(300), seconds=0.5, windows=5)
    assert len(calls) == 1 + 5  # one compiling call, then one per window
    assert abs(ratio - 3.0) < 0.3 and abs(second[0] / first[0] - 3.0) < 0.3
    assert abs(first[1] * 100 - first[0]) < 1e-6 * first[0]  # games/s: one game per 100 steps
