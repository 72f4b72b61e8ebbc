"""The look-ahead budget benchmark: budget parsing, costs and the held-out replay."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.lookahead_budget import cost, main, parse_budget, replay


def test_budgets_parse_and_cost_what_the_agent_spends():
    assert parse_budget("8x4r3") == (8, 4, 3)
    assert parse_budget(" 4x8 ") == (4, 8, 0)
    assert cost(8, 4, 3) == 8 * 4 + 3 * 4
    assert cost(4, 8, 0) == 32
    assert cost(3, 4, 3) == 12  # nothing left to refine


@pytest.mark.parametrize("text", ["8by4", "8x4r1", "0x4", "8x"])
def test_malformed_budgets_are_refused(text):
    with pytest.raises(ValueError, match="budget"):
        parse_budget(text)


def test_replay_scores_the_choice_on_rolls_it_did_not_see():
    # candidate 2 is worth 2 more than the network's choice on every roll; 3 repeats 0's turn
    table = np.tile(np.array([[0.0], [0.5], [2.0], [-np.inf]]), (1, 8))
    rng = np.random.default_rng(0)
    assert replay(table, 1, 2, 0, rng) == (0.0, False)
    assert replay(table, 2, 2, 0, rng) == (0.5, True)
    assert replay(table, 4, 2, 2, rng) == (2.0, True)
    # roll noise: the first half of the rolls favours candidate 1, the held-out half does not
    noisy = np.array([[0.0] * 4, [1.0, 1.0, -3.0, -3.0]])
    gains = [replay(noisy, 2, 2, 0, np.random.default_rng(s))[0] for s in range(50)]
    assert min(gains) < 0  # a choice fooled by its own rolls is charged on the others


def test_the_benchmark_runs_and_the_network_alone_gains_nothing(capsys):
    main(["--turns", "1", "--top", "4", "--rolls", "8", "--budgets", "1x2,4x2r2", "--draws", "5", "--no-progress"])
    rows = {r.split()[0]: r.split() for r in capsys.readouterr().out.splitlines()[2:]}
    assert rows["1x2"][1:] == ["2", "0.000", "0%"]
    assert rows["4x2r2"][1] == "12"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--top", "4", "--budgets", "8x4"], "needs --top >= 8"),
        (["--rolls", "8", "--budgets", "4x5"], "--rolls >= 10"),
        (["--budgets", "8by4"], "is not KxS"),
        (["--turns", "0"], "must be >= 1"),
    ],
)
def test_bad_arguments_are_refused_before_any_game(argv, message, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert message in capsys.readouterr().err
