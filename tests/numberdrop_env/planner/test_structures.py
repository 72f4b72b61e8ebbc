"""The structure counts a re-ranker reads: the compiled kernel equals its plain-Python reference
on the sheets games leave, and small sheets give the counts their definitions say."""

from __future__ import annotations

import numpy as np
import pytest

from numberdrop_env.engine.rules import DEFAULT_RULES, EMPTY, X
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.structures import structure_features, structure_features_reference, structure_names
from numberdrop_env.planner.turns import TurnPlanner

R = DEFAULT_RULES
NAMES = structure_names(R)
OPEN = np.zeros(len(R.box_sizes), bool)


def sheet(*rows: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Flat values (row 0 first) and column heights of a grid given from the bottom row up."""
    grid = np.full((R.rows, R.cols), EMPTY, np.int64)
    for r, row in enumerate(rows):
        grid[r, : len(row)] = row
    filled = grid != EMPTY
    heights = np.array([(np.flatnonzero(filled[:, c]).max() + 1) if filled[:, c].any() else 0 for c in range(R.cols)])
    return grid.ravel(), heights


def counts(values, heights, used=None, identical=OPEN, consecutive=OPEN, bonus=False) -> dict[str, float]:
    used = np.zeros(values.shape, bool) if used is None else used
    got = structure_features(values, used, heights, identical, consecutive, bonus, R)
    assert np.array_equal(got, structure_features_reference(values, used, heights, identical, consecutive, bonus, R))
    return {k: v for k, v in zip(NAMES, got) if v}


def test_a_region_of_three_threes_on_the_surface_is_ready_for_identical_3_and_short_of_4():
    values, heights = sheet([3, 3, 3])
    assert counts(values, heights) == {
        "regions_2_open": 1,
        "regions_3_open": 1,
        "identical_ready_3": 1,
        "identical_short_4": 1,
        "surface_3": 3,
    }
    scored = np.array([True, False, False, False, False])
    assert "identical_ready_3" not in counts(values, heights, identical=scored)
    assert counts(values, heights, used=values == 3) == {}  # used numbers are no structure


def test_an_increasing_path_counts_once_from_its_lowest_value():
    values, heights = sheet([1, 2, 3, 4, X, X, X])
    assert counts(values, heights) == {
        **{f"paths_{s}_open": 1 for s in (2, 3, 4)},
        "consecutive_ready_3": 1,
        "consecutive_ready_4": 1,
        "consecutive_short_5": 1,
        **{f"surface_{v}": 1 for v in (1, 2, 3, 4)},
    }


def test_a_covered_region_is_buried_and_so_is_a_path_from_0_to_9():
    values, heights = sheet([5, 5, X, X, X, X, X], [X, X])
    assert counts(values, heights) == {"regions_2_buried": 1}
    # 0..6 along the bottom row, then 7, 8, 9 up the last column: ten cells that no value extends
    values, heights = sheet(list(range(7)), [X] * 6 + [7], [X] * 6 + [8], [X] * 6 + [9])
    assert counts(values, heights) == {
        **{f"paths_{s}_buried": 1 for s in range(2, 9)},
        **{f"consecutive_ready_{k}": 1 for k in R.box_sizes},
        "bonus_ready": 1,
        "surface_9": 1,  # the only number next to a fillable cell
    }


def test_bonus_size_paths_are_counted_in_the_largest_column_and_ready_for_the_bonus_box():
    values, heights = sheet(list(range(7)), [X] * 6 + [7])
    found = counts(values, heights)
    assert found["paths_8_open"] == 1 and found["bonus_ready"] == 1
    assert "bonus_ready" not in counts(values, heights, bonus=True)


@pytest.mark.parametrize("seed", range(6))
def test_the_kernel_equals_the_reference_on_the_sheets_candidates_leave(seed):
    rng = np.random.default_rng(seed)
    game, planner = SoloGame(seed=seed), TurnPlanner()
    while not game.is_over:
        offered = planner.candidates(game, limit=64)
        for plan in offered[:: max(1, len(offered) // 8)]:
            flags = rng.random(2 * len(R.box_sizes) + 1) < 0.3
            args = (plan.values, plan.used, plan.heights, flags[:5], flags[5:10], bool(flags[10]), R)
            assert np.array_equal(structure_features(*args), structure_features_reference(*args))
        offered[int(rng.integers(len(offered)))].play(game)
