"""Tests of the brute-force oracle itself (tests/oracles/oracle.py), on hand-made scenarios."""

import time

import numpy as np

from tests.oracles import oracle
from tests.oracles.oracle import (
    TETROMINOES,
    X,
    combo_options,
    consecutive_paths,
    drop,
    fixed_orientations,
    identical_combos,
    legal_landings,
    score_from_sheet,
)


def empty_grid():
    return np.full((14, 7), -1, dtype=np.int8)


def no_used():
    return np.zeros((14, 7), dtype=bool)


def all_orientations():
    out = set()
    for cells in TETROMINOES.values():
        out |= fixed_orientations(cells)
    return out


# --------------------------------------------------------------------------- shapes


def test_orientation_counts():
    counts = {name: len(fixed_orientations(cells)) for name, cells in TETROMINOES.items()}
    assert counts == {"I": 2, "O": 1, "T": 4, "L": 8, "S": 4}
    assert len(all_orientations()) == 19


def test_orientations_are_normalised_tetrominoes():
    for shape in all_orientations():
        assert len(shape) == 4
        assert min(r for r, _ in shape) == 0
        assert min(c for _, c in shape) == 0


def test_orientation_contents():
    assert fixed_orientations(TETROMINOES["I"]) == {
        frozenset({(0, 0), (0, 1), (0, 2), (0, 3)}),
        frozenset({(0, 0), (1, 0), (2, 0), (3, 0)}),
    }
    # L and J both appear.
    l_shapes = fixed_orientations(TETROMINOES["L"])
    assert frozenset({(0, 0), (1, 0), (2, 0), (0, 1)}) in l_shapes
    assert frozenset({(0, 0), (0, 1), (1, 1), (2, 1)}) in l_shapes  # J
    # S and Z both appear.
    s_shapes = fixed_orientations(TETROMINOES["S"])
    assert frozenset({(0, 0), (0, 1), (1, 1), (1, 2)}) in s_shapes
    assert frozenset({(1, 0), (1, 1), (0, 1), (0, 2)}) in s_shapes


# --------------------------------------------------------------------------- drop

I_H = frozenset({(0, 0), (0, 1), (0, 2), (0, 3)})
I_V = frozenset({(0, 0), (1, 0), (2, 0), (3, 0)})
T_DOWN = frozenset({(0, 1), (1, 0), (1, 1), (1, 2)})  # stem pointing down


def test_drop_on_empty_grid():
    g = empty_grid()
    assert drop(g, I_H, 0) == frozenset({(0, 0), (0, 1), (0, 2), (0, 3)})
    assert drop(g, I_V, 6) == frozenset({(0, 6), (1, 6), (2, 6), (3, 6)})
    assert drop(g, T_DOWN, 2) == frozenset({(0, 3), (1, 2), (1, 3), (1, 4)})


def test_drop_outside_columns():
    g = empty_grid()
    assert drop(g, I_H, 3) is not None
    assert drop(g, I_H, 4) is None
    assert drop(g, I_V, 6) is not None
    assert drop(g, I_V, 7) is None
    assert drop(g, I_V, -1) is None


def test_drop_leaves_hole_under_overhang():
    g = empty_grid()
    g[3, 1] = X  # a floating X, nothing under it
    # A vertical I in column 1 cannot pass through the X: it lands on top of it.
    assert drop(g, I_V, 1) == frozenset({(4, 1), (5, 1), (6, 1), (7, 1)})
    assert all(g[r, 1] == -1 for r in range(3))  # hole under the overhang stays

    # T pointing down, column 0 of height 2: the bar rests on (1, 0).
    g = empty_grid()
    g[0, 0] = 5
    g[1, 0] = 6
    landed = drop(g, T_DOWN, 0)
    assert landed == frozenset({(1, 1), (2, 0), (2, 1), (2, 2)})
    for hole in [(0, 1), (0, 2), (1, 2)]:
        assert hole not in landed and g[hole] == -1


def test_drop_stops_on_first_obstacle_from_above():
    # Two-level column: the piece is caught by the upper obstruction.
    g = empty_grid()
    g[0, 2] = 1
    g[5, 3] = 2
    assert drop(g, I_H, 0) == frozenset({(6, 0), (6, 1), (6, 2), (6, 3)})


def test_shape_that_cannot_fit():
    g = empty_grid()
    for r in range(13):  # column 0 filled up to row 12
        g[r, 0] = 4
    assert drop(g, I_V, 0) is None  # would occupy rows 13..16
    assert drop(g, I_H, 0) == frozenset({(13, 0), (13, 1), (13, 2), (13, 3)})
    g[13, 0] = X  # column completely filled
    assert drop(g, I_H, 0) is None
    assert drop(g, I_V, 1) == frozenset({(0, 1), (1, 1), (2, 1), (3, 1)})


def test_legal_landings_empty_grid():
    g = empty_grid()
    landings = legal_landings(g, all_orientations())
    # widths: sum over the 19 orientations of (7 - width + 1) = 105
    assert len(landings) == 105
    assert all(min(r for r, _ in s) == 0 for s in landings)


def test_legal_landings_full_grid():
    g = np.zeros((14, 7), dtype=np.int8)
    assert legal_landings(g, all_orientations()) == set()
    # Only a one-row gap at the top: only horizontal I fits.
    g[13, :] = -1
    landings = legal_landings(g, all_orientations())
    assert landings == {frozenset({(13, c) for c in range(c0, c0 + 4)}) for c0 in range(4)}


# --------------------------------------------------------------------------- identical


def test_identical_l_shape_of_four():
    g = empty_grid()
    l_cells = [(0, 0), (1, 0), (2, 0), (0, 1)]
    for cell in l_cells:
        g[cell] = 7
    g[0, 2] = 3  # other value next to it
    combos4 = identical_combos(g, no_used(), {4})
    assert combos4 == {frozenset(l_cells)}
    combos3 = identical_combos(g, no_used(), {3})
    assert combos3 == {
        frozenset({(0, 0), (1, 0), (2, 0)}),
        frozenset({(1, 0), (0, 0), (0, 1)}),
    }
    assert identical_combos(g, no_used(), {5, 6, 7, 8}) == set()
    assert identical_combos(g, no_used(), {3, 4}) == combos3 | combos4


def test_identical_not_connected():
    g = empty_grid()
    for cell in [(0, 0), (0, 2), (0, 4), (0, 6)]:
        g[cell] = 7
    assert identical_combos(g, no_used(), {3, 4}) == set()
    # Diagonal does not count.
    g = empty_grid()
    for cell in [(0, 0), (1, 1), (2, 2), (1, 0)]:
        g[cell] = 7
    assert identical_combos(g, no_used(), {3, 4}) == {frozenset({(0, 0), (1, 0), (1, 1)})}


def test_identical_square_counts():
    g = empty_grid()
    for cell in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        g[cell] = 2
    assert len(identical_combos(g, no_used(), {3})) == 4  # drop any one cell
    assert len(identical_combos(g, no_used(), {4})) == 1


def test_identical_eight_bonus():
    g = empty_grid()
    g[0, :] = 5
    g[1, 0] = 5
    combos = identical_combos(g, no_used(), {8})
    assert combos == {frozenset([(0, c) for c in range(7)] + [(1, 0)])}
    # Row of 7: 7-sets are the full row, or the row minus (0,6) plus (1,0).
    assert len(identical_combos(g, no_used(), {7})) == 2


def test_identical_used_and_x_excluded():
    g = empty_grid()
    for c in range(4):
        g[0, c] = 1
    used = no_used()
    used[0, 1] = True
    assert identical_combos(g, used, {3}) == set()
    assert identical_combos(g, no_used(), {3}) == {
        frozenset({(0, 0), (0, 1), (0, 2)}),
        frozenset({(0, 1), (0, 2), (0, 3)}),
    }
    g2 = empty_grid()
    g2[0, 0:4] = X
    assert identical_combos(g2, no_used(), {3, 4}) == set()
    g2[0, 4] = 1
    g2[0, 5] = 1
    assert identical_combos(g2, no_used(), {3}) == set()


# --------------------------------------------------------------------------- consecutive


def test_ascending_path_both_directions():
    g = empty_grid()
    g[0, 0], g[0, 1], g[0, 2] = 2, 3, 4
    a, b, c = (0, 0), (0, 1), (0, 2)
    assert consecutive_paths(g, no_used(), {3}) == {(a, b, c), (c, b, a)}
    assert consecutive_paths(g, no_used(), {4, 5}) == set()


def test_not_in_path_order():
    g = empty_grid()
    g[0, 0], g[0, 1], g[0, 2] = 2, 4, 3
    assert consecutive_paths(g, no_used(), {3}) == set()
    # Same numbers, not adjacent.
    g = empty_grid()
    g[0, 0], g[0, 2], g[0, 4] = 2, 3, 4
    assert consecutive_paths(g, no_used(), {3}) == set()
    # Equal neighbours are not consecutive.
    g = empty_grid()
    g[0, 0], g[0, 1], g[0, 2] = 3, 3, 4
    assert consecutive_paths(g, no_used(), {3}) == set()


def test_descending_read_and_bent_path():
    g = empty_grid()
    # Column 3 read upward: 5, 4, 3, then turns right to 2.
    g[0, 3], g[1, 3], g[2, 3], g[2, 4] = 5, 4, 3, 2
    paths = consecutive_paths(g, no_used(), {3, 4})
    desc4 = ((0, 3), (1, 3), (2, 3), (2, 4))
    assert desc4 in paths
    assert tuple(reversed(desc4)) in paths
    assert ((0, 3), (1, 3), (2, 3)) in paths
    assert ((1, 3), (2, 3), (2, 4)) in paths
    assert len(paths) == 6


def test_branching_paths():
    g = empty_grid()
    # 1 in the middle, two 2s beside it, a 3 above each 2.
    g[0, 1], g[0, 0], g[0, 2], g[1, 0], g[1, 2] = 1, 2, 2, 3, 3
    asc = {p for p in consecutive_paths(g, no_used(), {3}) if g[p[0]] < g[p[-1]]}
    assert asc == {((0, 1), (0, 0), (1, 0)), ((0, 1), (0, 2), (1, 2))}


def test_consecutive_eight_and_longer():
    g = empty_grid()
    # Snake 0..9 along row 0 (cols 0..6) then row 1 (cols 6..4).
    cells = [(0, c) for c in range(7)] + [(1, 6), (1, 5), (1, 4)]
    for v, cell in enumerate(cells):
        g[cell] = v
    p8 = consecutive_paths(g, no_used(), {8})
    assert len(p8) == 6  # starts 0, 1, 2, each in two directions
    assert tuple(cells[:8]) in p8
    assert tuple(reversed(cells[2:])) in p8
    assert len(consecutive_paths(g, no_used(), {3})) == 2 * 8


def test_consecutive_used_and_x_excluded():
    g = empty_grid()
    g[0, 0], g[0, 1], g[0, 2], g[0, 3] = 7, 8, 9, X
    assert consecutive_paths(g, no_used(), {3}) == {
        ((0, 0), (0, 1), (0, 2)),
        ((0, 2), (0, 1), (0, 0)),
    }
    assert consecutive_paths(g, no_used(), {4}) == set()  # X is not 10
    used = no_used()
    used[0, 1] = True
    assert consecutive_paths(g, used, {3}) == set()


# --------------------------------------------------------------------------- combo_options


def small_scenario():
    g = empty_grid()
    # row 0: 1 2 3 3 3
    for c, v in enumerate([1, 2, 3, 3, 3]):
        g[0, c] = v
    return g


def test_combo_options_small_scenario():
    g = small_scenario()
    u = no_used()

    def opts(sel, ident=(3,), consec=(3,), bonus=False):
        return combo_options(g, u, set(ident), set(consec), bonus, sel)

    # Empty selection: starts of 3-paths (1 or the first 3) and any cell of the 3-3-3 set.
    assert opts([]) == ({(0, 0), (0, 2), (0, 3), (0, 4)}, False)
    # (0,1) alone starts nothing.
    assert opts([(0, 1)]) == (set(), False)
    # After the 3 next to the 2: identical grows to (0,3); descending path goes to (0,1).
    assert opts([(0, 2)]) == ({(0, 1), (0, 3)}, False)
    # (0,4) is not adjacent to (0,2), even though it is in the same identical set.
    assert (0, 4) not in opts([(0, 2)])[0]
    # Identical growth: adjacent to ANY selected cell, order irrelevant.
    assert opts([(0, 2), (0, 3)]) == ({(0, 4)}, False)
    assert opts([(0, 3), (0, 2)]) == ({(0, 4)}, False)
    assert opts([(0, 4)]) == ({(0, 3)}, False)
    assert opts([(0, 4), (0, 3)]) == ({(0, 2)}, False)
    # Confirm.
    assert opts([(0, 2), (0, 3), (0, 4)]) == (set(), True)
    assert opts([(0, 3), (0, 4), (0, 2)]) == (set(), True)
    # Consecutive path, grown from its last cell.
    assert opts([(0, 0)]) == ({(0, 1)}, False)
    assert opts([(0, 0), (0, 1)]) == ({(0, 2)}, False)
    assert opts([(0, 0), (0, 1), (0, 2)]) == (set(), True)
    assert opts([(0, 2), (0, 1)]) == ({(0, 0)}, False)
    assert opts([(0, 2), (0, 1), (0, 0)]) == (set(), True)
    # Not a prefix in order: (0,1) then (0,0) is no path start.
    assert opts([(0, 1), (0, 0)]) == (set(), False)


def test_combo_options_closed_boxes():
    g = small_scenario()
    u = no_used()
    # Identical 3 closed: only path starts remain.
    assert combo_options(g, u, set(), {3}, False, []) == ({(0, 0), (0, 2)}, False)
    assert combo_options(g, u, {4, 5}, {3}, False, [(0, 2), (0, 3), (0, 4)]) == (set(), False)
    # Consecutive 3 closed.
    assert combo_options(g, u, {3}, {4, 5, 6, 7}, False, []) == ({(0, 2), (0, 3), (0, 4)}, False)
    assert combo_options(g, u, {3}, set(), False, [(0, 0), (0, 1), (0, 2)]) == (set(), False)
    # Everything closed.
    assert combo_options(g, u, set(), set(), False, []) == (set(), False)
    # Used cell breaks both combinations.
    u2 = no_used()
    u2[0, 3] = True
    assert combo_options(g, u2, {3}, {3}, False, []) == ({(0, 0), (0, 2)}, False)


def test_combo_options_growing_past_a_smaller_open_size():
    # 4 identical in a row; sizes 3 and 4 open: after 3 cells both confirm and growth.
    g = empty_grid()
    g[0, 0:4] = 6
    u = no_used()
    sel = [(0, 0), (0, 1), (0, 2)]
    assert combo_options(g, u, {3, 4}, set(), False, sel) == ({(0, 3)}, True)
    assert combo_options(g, u, {4}, set(), False, sel) == ({(0, 3)}, False)
    assert combo_options(g, u, {3}, set(), False, sel) == (set(), True)


def test_combo_options_bonus():
    g = empty_grid()
    g[0, :] = 5
    g[1, 0] = 5
    u = no_used()
    row = [(0, c) for c in range(7)]
    all8 = set(row) | {(1, 0)}
    assert combo_options(g, u, set(), set(), True, []) == (all8, False)
    assert combo_options(g, u, set(), set(), True, row) == ({(1, 0)}, False)
    assert combo_options(g, u, {7}, set(), True, row) == ({(1, 0)}, True)
    assert combo_options(g, u, set(), set(), True, row + [(1, 0)]) == (set(), True)
    assert combo_options(g, u, set(), set(), False, row + [(1, 0)]) == (set(), False)


# --------------------------------------------------------------------------- score


def test_score():
    g = empty_grid()
    assert score_from_sheet(set(), set(), False, g) == 0
    assert score_from_sheet({3, 5}, {4}, False, g) == 12
    assert score_from_sheet({3, 4, 5, 6, 7}, set(), False, g) == 35
    assert score_from_sheet({3, 4, 5, 6, 7}, {3, 4, 5, 6, 7}, True, g) == 25 + 10 + 25 + 10 + 8
    full = np.zeros((14, 7), dtype=np.int8)
    full[11:, :] = -1
    full[4, 2] = X  # X cells count as filled
    assert score_from_sheet({3, 4, 5, 6, 7}, {3, 4, 5, 6, 7}, True, full) == 100
    g[0, :] = 1
    g[1, :6] = 1  # not complete
    assert score_from_sheet(set(), set(), False, g) == 2
    g[12, 3] = X
    assert score_from_sheet(set(), set(), False, g) == 2 - 5
    g[11, 0] = 4
    g[13, 6] = 9
    assert score_from_sheet(set(), set(), False, g) == 2 - 15


# --------------------------------------------------------------------------- speed


def test_speed_random_grid():
    rng = np.random.default_rng(0)
    g = rng.integers(0, 10, size=(14, 7)).astype(np.int8)
    g[rng.random((14, 7)) < 0.1] = X
    g[12:, :] = -1
    used = rng.random((14, 7)) < 0.1
    t0 = time.perf_counter()
    identical_combos(g, used, range(3, 9))
    consecutive_paths(g, used, range(3, 9))
    combo_options(g, used, {3, 4, 5, 6, 7}, {3, 4, 5, 6, 7}, True, [])
    assert time.perf_counter() - t0 < 1.0


def test_identical_large_uniform_region_is_consistent():
    # Cross-check the growth enumeration against itertools on a small region.
    import itertools

    g = empty_grid()
    region = [(r, c) for r in range(2) for c in range(4)]
    for cell in region:
        g[cell] = 8
    for k in range(3, 9):
        expected = set()
        for combo in itertools.combinations(region, k):
            s = set(combo)
            # connectivity via flood fill
            start = combo[0]
            seen = {start}
            stack = [start]
            while stack:
                cur = stack.pop()
                for n in oracle._neighbours(cur):
                    if n in s and n not in seen:
                        seen.add(n)
                        stack.append(n)
            if seen == s:
                expected.add(frozenset(s))
        assert identical_combos(g, no_used(), {k}) == expected
