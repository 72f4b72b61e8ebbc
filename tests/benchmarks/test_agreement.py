"""The agreement benchmark: centred gaps, and a short run on the shipped value network."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("torch")  # the benchmark plays a network (the train extra)

from benchmarks.agreement import centred_gap, main, measure  # noqa: E402

Q_MODEL = "agents/models/q_turn.zip"


def test_a_constant_offset_is_no_gap():
    a = np.array([3.0, 1.0, -2.0])
    assert centred_gap(a, a + 7.5) == pytest.approx(0.0, abs=1e-12)
    assert centred_gap(a, a[::-1]) == centred_gap(a[::-1], a)  # symmetric
    # centred: [1, -1] against [-1, 1] -> |2| and |-2|
    assert centred_gap([1.0, -1.0], [5.0, 7.0]) == pytest.approx(2.0)


def test_the_benchmark_runs_on_the_network_s_own_turns(capsys):
    main(["--model", Q_MODEL, "--turns", "3", "--top", "4", "--samples", "2", "--exact", "4", "--no-progress"])
    out = capsys.readouterr().out
    gaps = [float(x) for x in re.findall(r"look-ahead.*?\s(\d+\.\d+)$", out, re.M)]
    assert len(gaps) == 3 and all(g >= 0 for g in gaps)
    assert re.search(r"look-ahead's: \d+% of turns, \d+\.\d+ points a turn", out)


def test_bad_arguments_are_refused():
    with pytest.raises(SystemExit):
        main(["--model", Q_MODEL, "--top", "1"])


def test_a_network_that_scores_no_candidates_is_refused():
    with pytest.raises(ValueError, match="candidate-scoring"):
        main(["--model", "agents/models/ppo_solo.zip", "--turns", "1"])


def test_the_measure_repeats_from_its_seeds():
    first = measure(Q_MODEL, turns=2, top=3, samples=2, exact=3, progress=False)
    assert first == measure(Q_MODEL, turns=2, top=3, samples=2, exact=3, progress=False)
    assert 0.0 <= first["differs"] <= 1.0 and first["regret"] >= 0.0
