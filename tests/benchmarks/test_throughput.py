"""The throughput benchmark's pairing of two loops in alternating windows."""

from __future__ import annotations

import time

from benchmarks.throughput import _paired


def steady(rate: float):
    """A loop that makes ``rate`` steps a second until its deadline, a game every 10 steps (so
    counting whole games loses under 10 steps a window)."""

    def run(deadline: float) -> tuple[int, int]:
        start = time.perf_counter()
        time.sleep(max(0.0, deadline - start))
        steps = round(rate * (time.perf_counter() - start))
        return steps, steps // 10

    return run


def test_paired_windows_give_both_rates_and_the_median_ratio():
    calls = []

    def counted(deadline: float) -> tuple[int, int]:
        calls.append(deadline)
        return steady(10_000)(deadline)

    first, second, ratio = _paired(counted, steady(30_000), seconds=0.5, windows=5)
    assert len(calls) == 1 + 5  # one compiling call, then one per window
    assert abs(ratio - 3.0) < 0.05 and abs(second[0] / first[0] - 3.0) < 0.05
    assert abs(first[0] - 10_000) < 200 and abs(first[1] * 10 - first[0]) < 200
