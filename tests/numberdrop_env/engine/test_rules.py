"""Scenario tests of the engine against /work/shared/RULES.md, one group per numbered rule.

Every test drives ``SoloGame`` through its public decisions (``legal_mask``, ``step``,
``describe``) from a position built with ``to_dict``/``from_dict`` (see helpers.py).
Test names start with the RULES.md section they check.
"""

from __future__ import annotations

import itertools
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest

from numberdrop_env import DEFAULT_RULES, EMPTY, WILD, Phase, Rules, Sheet, SoloGame, X
from tests.support.helpers import (
    add_cells,
    can_confirm,
    connected_order,
    drop,
    drop_block,
    finish_turn,
    legal_actions,
    make_game,
    offered,
    pass_turn,
    picture,
    placement_at,
    placement_for,
    placements,
    score_combo,
    select_action,
    selectable,
    slide,
)

R = DEFAULT_RULES
W = WILD
STAR_DICE = (W, 1, 2, 1)  # die 1 shows a star; faces of dice 2..4
PLAIN_DICE = (1, 2, 3, 5)  # no star


# ----------------------------------------------------------------- independent geometry
def _norm(cells):
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def _orientations(cells):
    out = set()
    shape = list(cells)
    for mirror in (False, True):
        s = [(r, -c) for r, c in shape] if mirror else shape
        for _ in range(4):
            s = [(c, -r) for r, c in s]
            out.add(_norm(s))
    return out


I_V = [(0, 0), (1, 0), (2, 0), (3, 0)]
I_H = [(0, 0), (0, 1), (0, 2), (0, 3)]
O_SQ = [(0, 0), (0, 1), (1, 0), (1, 1)]
T_UP = [(0, 0), (0, 1), (0, 2), (1, 1)]  # flat side down
T_DOWN = [(0, 1), (1, 0), (1, 1), (1, 2)]  # stem down


def landed_cells(game):
    return [sorted(tuple(c) for c in d["cells"]) for d in placements(game).values()]


def x_count(game):
    return int((game.sheet.values == X).sum())


def shapes_of(descs):
    return {d["shape"] for d in descs.values()}


# ====================================================================== §1 the sheet
def test_s1_grid_is_7_columns_by_14_rows_and_row_0_is_the_bottom():
    assert (R.rows, R.cols) == (14, 7)
    assert Sheet(R).values.shape == (14, 7)
    game = make_game({0: "1......"}, phase="place", shape_face="I")
    # a vertical I dropped on an empty column lands on row 0
    assert placement_for(game, [(0, 3), (1, 3), (2, 3), (3, 3)]) is not None
    assert placement_for(game, [(1, 3), (2, 3), (3, 3), (4, 3)], legal_only=False) is None


def test_s1_regular_rows_0_to_10_have_line_boxes_rows_11_to_13_are_penalty_rows():
    assert R.regular_rows == 11
    assert list(R.penalty_rows) == [11, 12, 13]
    sheet = Sheet(R)
    assert sheet.lines.shape == (11,) and sheet.penalties.shape == (3,)
    assert (R.line_points, R.penalty_points) == (2, 5)


def test_s1_score_track_boxes_bonus_and_letters():
    assert R.box_sizes == (3, 4, 5, 6, 7)
    assert R.bonus_size == 8
    assert dict(zip(R.letters, R.box_sizes)) == {"A": 3, "B": 4, "C": 5, "D": 6, "E": 7}
    sheet = Sheet(R)
    assert sheet.identical.shape == sheet.consecutive.shape == (5,)
    assert sheet.bonus is False


def test_s1_cells_hold_empty_numbers_or_x_and_only_numbers_can_be_used():
    sheet = Sheet(R)
    sheet.write([(0, 0), (0, 1)], [0, X])
    sheet.write([(0, 2)], [9])
    assert sheet.values[0, :4].tolist() == [0, X, 9, EMPTY]
    with pytest.raises(ValueError):
        sheet.write([(0, 0)], [5])  # already filled
    with pytest.raises(ValueError, match="only number cells"):
        make_game({0: "XXX1..."}, used=[(0, 0), (0, 1), (0, 2)], identical=(3,))


# ====================================================================== §2 components
def test_s2_default_number_dice_faces():
    assert R.number_dice == (
        (1, W, 3, 4, 5, 7),
        (1, 2, W, 4, 5, 6),
        (2, 3, 4, W, 6, 7),
        (1, 2, 3, 5, 6, 7),
    )


def test_s2_shape_die_faces():
    assert R.shape_die == ("I", "O", "T", "L", "S", "*")


def test_s2_tetrominoes_have_19_fixed_orientations():
    game = make_game({0: "1......"})
    table = game.table
    counts = Counter(table.names[s] for s in table.orientation_shape)
    assert counts == {"I": 2, "O": 1, "T": 4, "L": 8, "S": 4}
    assert len(table.orientations) == 19
    base = dict(R.tetrominoes)
    for name in "IOTLS":
        got = {frozenset(o) for o, s in zip(table.orientations, table.orientation_shape) if table.names[s] == name}
        assert got == _orientations(base[name]), name
    # L and J, S and Z are all there
    all_o = {frozenset(o) for o in table.orientations}
    assert frozenset({(0, 0), (0, 1), (1, 1), (2, 1)}) in all_o  # J
    assert frozenset({(0, 0), (1, 0), (2, 0), (0, 1)}) in all_o  # L
    assert frozenset({(0, 0), (0, 1), (1, 1), (1, 2)}) in all_o  # Z (as drawn bottom-up)
    assert frozenset({(1, 0), (1, 1), (0, 1), (0, 2)}) in all_o  # S


def test_s2_multiplayer_block_set_is_l3_i3_u5_x5_t5():
    expected = {
        "L3": [(0, 0), (1, 0), (0, 1)],
        "I3": [(0, 0), (0, 1), (0, 2)],
        "U5": [(0, 0), (0, 2), (1, 0), (1, 1), (1, 2)],
        "X5": [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)],
        "T5": [(0, 0), (0, 1), (0, 2), (1, 1), (2, 1)],
    }
    got = dict(R.multi_blocks)
    assert set(got) == set(expected)
    for name, cells in expected.items():
        assert _norm(got[name]) in _orientations(cells), name


def test_s2_max_score_is_100():
    assert R.max_score == 100
    assert 2 * sum(R.box_sizes) + R.bonus_size + 2 * R.full_column_points + R.line_points * R.regular_rows == 100


@pytest.mark.parametrize(
    "kwargs",
    [
        {"letters": "ABCD"},
        {"max_number": 10},
        {"number_dice": ((1, 2, 3, 4, 5, 12),) * 4},
        {"number_dice": ((1, 2, 3, 4, 5, -3),) * 4},
        {"shape_die": ("I", "O", "T", "L", "Z", "*")},
        {"regular_rows": 0},
        {"regular_rows": 15},
    ],
    ids=["letters", "max_number", "die_face_high", "die_face_low", "shape_face", "no_regular_rows", "too_many_rows"],
)
def test_s2_rules_refuse_an_inconsistent_variant(kwargs):
    with pytest.raises(ValueError):
        Rules(**kwargs)


def test_s2_dice_faces_are_configuration():
    rules = Rules(number_dice=((W,) * 6,) * 4, shape_die=("O",) * 6)
    game = SoloGame(rules, seed=1)
    game.step(game.layout.start + 3)
    assert game.dice == (W, W, W, W)
    assert game.shape_face == "O"
    assert game.sorted_dice() == [W, W, W, W]


@lru_cache(maxsize=1)
def random_games():
    """Play 25 full games with random legal decisions; per turn record what the rules constrain."""
    games = []
    for seed in range(25):
        game = SoloGame(seed=seed)
        pick = np.random.default_rng(1000 + seed)
        total = game.step(int(pick.choice(legal_actions(game))))
        turns = []
        while not game.is_over:
            turn, dice, face, before = game.turn, game.dice, game.shape_face, game.notches.copy()
            phases = set()
            while not game.is_over and game.turn == turn:
                phases.add(game.phase)
                total += game.step(int(pick.choice(legal_actions(game))))
            turns.append({"dice": dice, "face": face, "before": before, "after": game.notches.copy(), "phases": phases})
        games.append({"game": game, "total": total, "turns": turns})
    return games


def test_s2_rolls_show_only_faces_of_each_die_and_every_face_occurs():
    seen = [Counter() for _ in range(5)]
    for g in random_games():
        for t in g["turns"]:
            for i, v in enumerate(t["dice"]):
                assert v in R.number_dice[i]
                seen[i][v] += 1
            assert t["face"] in R.shape_die
            seen[4][t["face"]] += 1
    for i in range(4):
        assert set(seen[i]) == set(R.number_dice[i])
    assert set(seen[4]) == set(R.shape_die)


# ====================================================================== §3 dropping a shape
def test_s3_1_shape_die_fixes_the_shape():
    game = make_game({0: "1......"}, phase="place", shape_face="T")
    descs = placements(game)
    assert shapes_of(descs) == {"T"}
    assert {d["orientation"] for d in descs.values()} == {
        game.table.orientations.index(tuple(sorted(o))) for o in _orientations(T_UP)
    }


def test_s3_1_star_on_shape_die_allows_every_tetromino():
    game = make_game({0: "1......"}, phase="place", shape_face="*", star_pending=False)
    descs = placements(game)
    assert shapes_of(descs) == set("IOTLS")
    assert len({d["orientation"] for d in descs.values()}) == 19


def test_s3_2_any_rotation_or_flip_and_cells_stay_inside_columns():
    game = make_game({0: "1......"}, phase="place", shape_face="L")
    descs = placements(game)
    assert len({d["orientation"] for d in descs.values()}) == 8
    for d in descs.values():
        assert all(0 <= c < 7 and 0 <= r < 14 for r, c in d["cells"])
    game = make_game({0: "1......"}, phase="place", shape_face="I")
    mask = game.legal_mask()
    for col in range(7):
        horizontal = placement_at(game, I_H, col)
        assert mask[horizontal] == (col <= 3)  # columns 4..6 would push cells past column 6
        assert mask[placement_at(game, I_V, col)]
    assert len(placements(game)) == 4 + 7


def test_s3_3_four_dice_values_go_in_any_arrangement():
    game = make_game({0: "......1"}, phase="place", shape_face="I", dice=(1, 2, 3, 5))
    game.step(placement_for(game, [(0, 0), (0, 1), (0, 2), (0, 3)]))
    assert game.phase is Phase.ARRANGE
    written = set()
    for a in legal_actions(game):
        g = game.clone()
        g.step(a)
        assert g.phase is Phase.COMBO
        written.add(tuple(int(v) for v in g.sheet.values[0, :4]))
    assert written == set(itertools.permutations((1, 2, 3, 5)))


def test_s3_3_equal_dice_give_each_distinct_arrangement_once():
    game = make_game({0: "......1"}, phase="place", shape_face="I", dice=(4, 4, 4, 5))
    game.step(placement_for(game, [(0, 0), (0, 1), (0, 2), (0, 3)]))
    written = []
    for a in legal_actions(game):
        g = game.clone()
        g.step(a)
        written.append(tuple(int(v) for v in g.sheet.values[0, :4]))
    assert sorted(written) == sorted(set(itertools.permutations((4, 4, 4, 5))))


def test_s3_3_each_wild_die_becomes_any_value_0_to_9_chosen_per_cell():
    game = make_game({0: "......1"}, phase="place", shape_face="I", dice=(W, W, W, 1))
    cells = [(0, 0), (0, 1), (0, 2), (0, 3)]
    game.step(placement_for(game, cells))
    arrangement = next(a for a in legal_actions(game) if game.describe(a)["values"] == ["*", "*", "*", 1])
    game.step(arrangement)
    chosen = {}
    for value in (0, 8, 9):
        assert game.phase is Phase.WILD
        wild_actions = legal_actions(game)
        assert [game.describe(a)["value"] for a in wild_actions] == list(range(10))
        cell = tuple(game.describe(wild_actions[0])["cell"])
        chosen[cell] = value
        game.step(game.layout.wild + value)
    assert game.phase is Phase.COMBO
    assert set(chosen) == set(cells[:3])
    assert [int(v) for v in game.sheet.values[0, :4]] == [0, 8, 9, 1]


def test_s3_4_shape_stops_on_the_first_obstacle_and_leaves_holes_under_an_overhang():
    game = make_game({0: "X.....1", 1: "X......", 2: "X......"}, phase="place", shape_face="I")
    a = placement_at(game, I_H, 0)
    assert game.legal_mask()[a]
    assert game.describe(a)["cells"] == [[3, 0], [3, 1], [3, 2], [3, 3]]
    drop(game, {(3, 0): 1, (3, 1): 2, (3, 2): 3, (3, 3): 5})
    assert (game.sheet.values[0:3, 1:4] == EMPTY).all()  # holes remain


def test_s3_4_shape_falls_straight_down_so_a_hole_under_a_filled_cell_is_unreachable():
    game = make_game({0: "1......", 5: "..X...."}, phase="place", shape_face="I")
    a = placement_at(game, I_V, 2)
    assert game.describe(a)["cells"] == [[6, 2], [7, 2], [8, 2], [9, 2]]
    assert placement_for(game, [(0, 2), (1, 2), (2, 2), (3, 2)], legal_only=False) is None


def test_s3_4_each_column_of_the_shape_lands_by_its_own_lowest_cell():
    game = make_game({0: ".1....."}, phase="place", shape_face="T")
    down = placement_at(game, T_DOWN, 0)
    up = placement_at(game, T_UP, 0)
    assert game.describe(down)["cells"] == [[1, 1], [2, 0], [2, 1], [2, 2]]  # stem rests on the 1
    assert game.describe(up)["cells"] == [[1, 0], [1, 1], [1, 2], [2, 1]]
    game.step(down)
    game.step(legal_actions(game)[0])
    assert game.sheet.values[0, 0] == EMPTY and game.sheet.values[1, 0] == EMPTY  # hole under the arm
    assert game.sheet.values[0, 2] == EMPTY and game.sheet.values[1, 2] == EMPTY
    # the stem of a T pointing down falls into a one-cell gap: its arms rest on the sides
    game = make_game({0: "1.1...."}, phase="place", shape_face="T")
    assert game.describe(placement_at(game, T_DOWN, 0))["cells"] == [[0, 1], [1, 0], [1, 1], [1, 2]]
    assert game.describe(placement_at(game, T_UP, 0))["cells"] == [[1, 0], [1, 1], [1, 2], [2, 1]]


def test_s3_5_placement_is_legal_only_inside_rows_0_to_13():
    col0 = {r: "XX....." for r in range(10)}
    col0[10] = "X......"
    game = make_game(col0, phase="place", shape_face="*", star_pending=False)
    mask = game.legal_mask()
    assert not mask[placement_at(game, I_V, 0)]  # rows 11..14
    assert mask[placement_at(game, I_V, 1)]  # rows 10..13 (crosses the Game Over line)
    assert game.describe(placement_at(game, I_V, 1))["cells"] == [[10, 1], [11, 1], [12, 1], [13, 1]]
    assert mask[placement_at(game, I_H, 0)]  # row 11
    assert mask[placement_at(game, O_SQ, 0)]  # rows 11..12
    upright_l = placement_at(game, [(0, 0), (1, 0), (2, 0), (0, 1)], 0)
    assert mask[upright_l]  # rows 11..13: row 13 is still inside
    assert game.describe(upright_l)["cells"] == [[11, 0], [11, 1], [12, 0], [13, 0]]
    for d in placements(game).values():
        assert max(r for r, _ in d["cells"]) <= 13


def test_s3_5_a_shape_whose_lower_cell_drops_into_a_gap_fits_in_the_last_rows():
    # mid-turn position (after blocks dropped this turn): columns 0 and 2 filled up to row 12,
    # column 1 up to row 11
    rows = {r: "X1X...." if r == 0 else "XXX...." for r in range(11)}
    game = add_cells(make_game(rows, phase="place", shape_face="T"), {11: "XXX....", 12: "X.X...."})
    down = placement_at(game, T_DOWN, 0)
    assert game.legal_mask()[down]
    assert game.describe(down)["cells"] == [[12, 1], [13, 0], [13, 1], [13, 2]]
    assert not game.legal_mask()[placement_at(game, T_UP, 0)]  # flat side down would need row 14


# columns 1, 3, 5 filled up to row 12: no O fits anywhere, an I still does. Rows 11 and 12 are
# written after the position is built, as blocks dropped earlier in this turn would be.
CROWDED = {r: "5X.X.X." if r < 3 else ".X.X.X." for r in range(11)}
CROWDED_TOP = {11: ".X.X.X.", 12: ".X.X.X."}


def test_s3_5_block_without_legal_placement_is_discarded_and_the_turn_goes_on():
    game = add_cells(make_game(CROWDED, notches=(0, 3, 0, 0, 0), dice=STAR_DICE, shape_face="I"), CROWDED_TOP)
    before = game.sheet.values.copy()
    slide(game, "B")  # the O tile reaches notch 4; its block has nowhere to go
    assert game.notches.tolist() == [1, 4, 0, 0, 0]  # discarded, then the star slide moved the I tile
    assert game.phase is Phase.PLACE
    assert (game.sheet.values == before).all()
    assert shapes_of(placements(game)) == {"I"}
    finish_turn(game)
    assert game.is_over  # a penalty row is occupied


def test_s3_5_no_legal_tetromino_loses_the_piece_ends_the_turn_without_combination_and_the_game():
    game = add_cells(make_game(CROWDED, dice=PLAIN_DICE, shape_face="O"), CROWDED_TOP)
    before = game.sheet.values.copy()
    slide(game, "A")
    assert game.is_over
    assert (game.sheet.values == before).all()
    assert not game.sheet.used.any() and not game.sheet.identical.any()  # the 5-5-5 was not offered
    assert game.sheet.penalties.tolist() == [True, True, False]
    assert game.score() == -10


def test_s3_5_while_the_penalty_rows_are_empty_every_tetromino_has_a_legal_placement():
    # the highest possible surface below the Game Over line: rows 0..10 full
    game = make_game({r: "XXXXXXX" for r in range(11)}, phase="place", shape_face="*", star_pending=False)
    assert game.sheet.lines.all()
    assert shapes_of(placements(game)) == set("IOTLS")


def test_s3_5_no_legal_tetromino_ends_the_game_even_in_a_variant_without_penalty_row_occupied():
    rules = Rules(rows=12)  # 11 regular rows and one penalty row
    crowded = {r: ".X.X.X." for r in range(11)}
    game = make_game(crowded, dice=PLAIN_DICE, shape_face="O", rules=rules)
    before = game.sheet.values.copy()
    slide(game, "A")
    assert (game.sheet.values == before).all()  # the O fits nowhere: the piece is lost
    assert game.is_over, "RULES §3.5: after a lost piece the game ends after that turn"


# ====================================================================== §4 combinations
ODD_SHAPES = {
    "bent3": [(0, 0), (0, 1), (1, 1)],
    "L4": [(0, 0), (1, 0), (2, 0), (0, 1)],
    "T4": [(0, 0), (0, 1), (0, 2), (1, 1)],
    "zigzag4": [(0, 0), (0, 1), (1, 1), (1, 2)],
    "square4": [(0, 0), (0, 1), (1, 0), (1, 1)],
    "plus5": [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)],
    "U5": [(0, 0), (0, 2), (1, 0), (1, 1), (1, 2)],
    "stairs6": [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (2, 3)],
    "ring7": [(0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)],
}


@pytest.mark.parametrize("name", list(ODD_SHAPES))
def test_s4_identical_numbers_connected_in_any_shape_are_scorable(name):
    cells = ODD_SHAPES[name]
    game = make_game(picture({c: 5 for c in cells}), phase="combo")
    assert offered(game, cells)
    reward = score_combo(game, connected_order(cells))
    size = len(cells)
    assert reward == size
    assert game.sheet.identical.tolist() == [s == size for s in R.box_sizes]
    assert all(game.sheet.used[c] for c in cells)


def test_s4_identical_numbers_not_orthogonally_connected_are_not_scorable():
    diagonal = [(0, 0), (1, 1), (2, 2), (3, 3)]
    game = make_game(picture({c: 5 for c in diagonal}), phase="combo")
    assert selectable(game) == set()
    assert not offered(game, diagonal)
    game = make_game({0: "555.5..", 1: "....5.."}, phase="combo")
    assert offered(game, [(0, 0), (0, 1), (0, 2)])
    assert not offered(game, [(0, 0), (0, 1), (0, 2), (0, 4)])  # the fourth 5 is apart
    assert not offered(game, [(0, 1), (0, 2), (0, 4)])


def test_s4_consecutive_numbers_along_a_bent_path_are_scorable():
    game = make_game({0: "3......", 1: "45.....", 2: ".6....."}, phase="combo")
    path = [(0, 0), (1, 0), (1, 1), (2, 1)]
    assert offered(game, path)
    assert score_combo(game, path) == 4
    assert game.sheet.consecutive.tolist() == [False, True, False, False, False]


def test_s4_consecutive_values_that_do_not_form_a_path_are_not_scorable():
    game = make_game({0: "354...."}, phase="combo")  # 3 is not next to 4
    assert not offered(game, [(0, 0), (0, 1), (0, 2)])
    assert selectable(game) == set()
    game = make_game({0: "345....", 1: ".6....."}, phase="combo")  # the 6 touches the 4, not the 5
    assert offered(game, [(0, 0), (0, 1), (0, 2)])
    assert not offered(game, [(0, 0), (0, 1), (0, 2), (1, 1)])
    assert not offered(game, [(0, 1), (0, 2), (1, 1)])


def test_s4_descending_path_can_be_selected_from_the_high_end():
    game = make_game({0: "7......", 1: "6......", 2: "5......"}, phase="combo")
    game.step(select_action(game, (0, 0)))  # the 7
    assert (1, 0) in selectable(game)
    assert score_combo(game, [(1, 0), (2, 0)]) == 3
    assert game.sheet.consecutive[0]
    game = make_game({0: "7......", 1: "6......", 2: "5......"}, phase="combo")
    assert score_combo(game, [(2, 0), (1, 0), (0, 0)]) == 3  # or from the low end


@pytest.mark.parametrize("start", range(8))
def test_s4_consecutive_path_may_start_at_any_value(start):
    game = make_game({0: f"{start}{start + 1}{start + 2}....", 1: "......1"}, phase="combo")
    assert score_combo(game, [(0, 0), (0, 1), (0, 2)]) == 3
    assert game.sheet.consecutive[0]


@pytest.mark.parametrize("kind", ["identical", "consecutive"])
@pytest.mark.parametrize("size", [3, 4, 5, 6, 7])
def test_s4_each_size_3_to_7_scores_its_box_worth_its_size(kind, size):
    cells = [(r, 0) for r in range(size)]
    values = [5] * size if kind == "identical" else list(range(1, size + 1))
    game = make_game(picture(dict(zip(cells, values))), phase="combo")
    assert score_combo(game, cells) == size
    boxes = getattr(game.sheet, kind)
    assert boxes.tolist() == [s == size for s in R.box_sizes]
    assert not game.sheet.bonus


BONUS_PICTURES = {
    "eight_identical": ({0: "5555...", 1: "5555..."}, [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (1, 2), (1, 1), (1, 0)]),
    "path_0_to_7": ({0: "0123...", 1: "7654..."}, [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (1, 2), (1, 1), (1, 0)]),
    "path_2_to_9": ({0: "2345...", 1: "9876..."}, [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (1, 2), (1, 1), (1, 0)]),
}


@pytest.mark.parametrize("name", list(BONUS_PICTURES))
def test_s4_eight_cells_score_the_bonus_box(name):
    rows, order = BONUS_PICTURES[name]
    game = make_game(rows, phase="combo")
    assert score_combo(game, order) == 8
    assert game.sheet.bonus
    assert not game.sheet.identical.any() and not game.sheet.consecutive.any()


def test_s4_bonus_needs_eight_cells():
    seven = make_game({0: "5555...", 1: "555...."}, identical=(3, 4, 5, 6, 7), phase="combo")
    assert selectable(seven) == set()  # 7 identical with every identical box closed: nothing to score
    eight = make_game({0: "5555...", 1: "5555..."}, identical=(3, 4, 5, 6, 7), phase="combo")
    cells = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)]
    assert offered(eight, cells)
    assert not offered(eight, cells[:7])
    assert score_combo(eight, connected_order(cells)) == 8
    assert eight.sheet.bonus


def test_s4_no_combination_has_more_than_eight_cells():
    game = make_game({0: "55555..", 1: "5555..."}, phase="combo")
    eight = [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 0), (1, 1), (1, 2)]
    for cell in connected_order(eight):
        game.step(select_action(game, cell))
    assert selectable(game) == set()  # the ninth 5 cannot join
    assert can_confirm(game)
    game.step(game.layout.confirm)
    assert game.sheet.bonus


def test_s4_a_combination_larger_than_every_open_box_is_not_offered():
    # identical 5, 6, 7 and the bonus scored: six connected 5s may only score 3 or 4
    game = make_game({0: "555....", 1: "555...."}, identical=(5, 6, 7), bonus=True, phase="combo")
    cells = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert offered(game, cells[:3]) and offered(game, cells[:4])
    assert not offered(game, cells[:5]) and not offered(game, cells)
    for cell in [(0, 0), (0, 1), (0, 2), (1, 2)]:
        game.step(select_action(game, cell))
    assert selectable(game) == set()
    assert can_confirm(game)


@pytest.mark.parametrize("name", ["path_0_to_7", "path_2_to_9", "eight_identical"])
def test_s4_wild_dice_make_the_eight_bonus_possible(name):
    if name == "path_2_to_9":
        rows = {0: "234567."}
        values = {(0, 6): 8, (1, 6): 9, (2, 6): 2, (3, 6): 1}
        order = [(0, c) for c in range(7)] + [(1, 6)]
        dice = (W, W, 2, 1)
    elif name == "path_0_to_7":
        rows = {0: "1234567"}
        values = {(1, 0): 0, (2, 0): 1, (3, 0): 2, (4, 0): 1}
        order = [(1, 0)] + [(0, c) for c in range(7)]
        dice = (W, 1, 2, 1)
    else:  # seven 9s and a wild 9
        rows = {0: "9999...", 1: "999...."}
        values = {(1, 3): 9, (2, 3): 1, (3, 3): 2, (4, 3): 1}
        order = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (1, 2), (1, 1), (1, 0)]
        dice = (W, 1, 2, 1)
    game = make_game(rows, phase="place", shape_face="I", dice=dice)
    drop(game, values)
    assert offered(game, order)
    score_combo(game, order)
    assert game.sheet.bonus


def test_s4_used_cells_cannot_be_part_of_another_combination():
    game = make_game({0: "5556...", 1: "...7..."}, used=[(0, 0), (0, 1), (0, 2)], identical=(3,), phase="combo")
    assert selectable(game) == set()  # neither a 5-5-5 again nor 5-6-7 through a used 5
    assert not offered(game, [(0, 2), (0, 3), (1, 3)])
    # a free set next to used cells of the same value cannot grow into them
    game = make_game({0: "555....", 1: "5555..."}, used=[(0, 0), (0, 1), (0, 2)], identical=(3,), phase="combo")
    assert selectable(game) == {(1, 0), (1, 1), (1, 2), (1, 3)}
    for cell in [(1, 0), (1, 1), (1, 2)]:
        game.step(select_action(game, cell))
    assert selectable(game) == {(1, 3)}
    # and cells scored in a turn stay out of later turns
    game = make_game({0: "555....", 1: "......1"}, phase="combo")
    score_combo(game, [(0, 0), (0, 1), (0, 2)])
    while game.phase is not Phase.COMBO:
        game.step(legal_actions(game)[0])
    assert not selectable(game) & {(0, 0), (0, 1), (0, 2)}


def test_s4_x_cells_never_count():
    game = make_game({0: "55X5...", 1: "...5..."}, phase="combo")
    assert selectable(game) == set()
    assert not offered(game, [(0, 0), (0, 1), (0, 2)])
    control = make_game({0: "5555...", 1: "...5..."}, phase="combo")
    assert offered(control, [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3)])
    game = make_game({0: "34X56.."}, phase="combo")
    assert selectable(game) == set()


def test_s4_each_box_scores_once_but_the_other_kind_of_that_size_stays_open():
    game = make_game({0: "5555.12", 1: "......3"}, identical=(3,), phase="combo")
    fives = [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert not offered(game, fives[:3])  # identical 3 already scored
    assert not offered(game, fives[1:])
    assert offered(game, fives)  # identical 4 is open
    for cell in fives[:3]:
        game.step(select_action(game, cell))
    assert not can_confirm(game)
    assert (0, 3) in selectable(game)
    game = make_game({0: "5555.12", 1: "......3"}, identical=(3,), phase="combo")
    assert offered(game, [(0, 5), (0, 6), (1, 6)])  # consecutive 3 is open
    assert score_combo(game, [(0, 5), (0, 6), (1, 6)]) == 3
    assert game.sheet.consecutive[0]
    only_three = make_game({0: "555..12", 1: "......3"}, identical=(3,), phase="combo")
    assert not offered(only_three, [(0, 0), (0, 1), (0, 2)])


def test_s4_the_combination_need_not_include_a_cell_written_this_turn():
    game = make_game({0: "....555", 1: "....1.."}, phase="place", shape_face="I", dice=PLAIN_DICE)
    drop(game, {(0, 0): 1, (1, 0): 3, (2, 0): 2, (3, 0): 5})
    assert score_combo(game, [(0, 4), (0, 5), (0, 6)]) == 3
    assert game.sheet.identical[0]


def test_s4_the_starting_number_is_an_ordinary_number_cell():
    game = SoloGame(seed=5)
    game.step(game.layout.start + 0)
    data = game.to_dict()
    data.update(dice=[1, 2, 3, 5], shape_face="I", star_pending=False, notches=[0] * 5)
    game = SoloGame.from_dict(data)
    slide(game, "A")
    drop(game, {(0, 1): 2, (0, 2): 3, (0, 3): 5, (0, 4): 1})
    assert offered(game, [(0, 0), (0, 1), (0, 2)])
    assert score_combo(game, [(0, 0), (0, 1), (0, 2)]) == 3


def test_s4_exactly_one_combination_per_turn():
    game = make_game({0: "555.123", 1: "......."}, phase="combo", turn=4)
    score_combo(game, [(0, 0), (0, 1), (0, 2)])
    assert game.phase is Phase.SLIDE and game.turn == 5  # the turn ended: no second combination
    assert not game.legal_mask()[game.layout.confirm]
    assert not game.sheet.consecutive.any()


def test_s4_passing_scores_nothing():
    game = make_game({0: "555.123"}, phase="combo", turn=2)
    before = game.sheet.to_dict()
    assert pass_turn(game) == 0
    assert game.turn == 3 and game.phase is Phase.SLIDE
    assert game.sheet.to_dict() == before
    assert game.score() == 0


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7])
def test_s4_scoring_both_boxes_of_a_size_circles_its_letter(size):
    letter = R.letters[R.box_sizes.index(size)]
    path = [(r, 0) for r in range(size)]
    game = make_game(picture({c: v for c, v in zip(path, range(1, size + 1))}), identical=(size,), phase="combo")
    assert not game.sheet.circled.any()
    score_combo(game, path)
    assert game.sheet.circled.tolist() == [x == letter for x in R.letters]
    one_kind = make_game(picture({c: v for c, v in zip(path, range(1, size + 1))}), phase="combo")
    score_combo(one_kind, path)
    assert not one_kind.sheet.circled.any()


def test_s4_a_crossed_off_letter_is_not_circled():
    sheet = Sheet(R)
    sheet.write([(0, c) for c in range(6)], [5, 5, 5, 1, 2, 3])
    sheet.crossed[0] = True
    sheet.score_combination([(0, 0), (0, 1), (0, 2)], "identical")
    sheet.score_combination([(0, 3), (0, 4), (0, 5)], "consecutive")
    assert sheet.identical[0] and sheet.consecutive[0]
    assert not sheet.circled.any()


# ====================================================================== §5 end of each turn
@pytest.mark.parametrize("row0", ["123456.", "XX1XXX."])
def test_s5_a_completed_regular_row_scores_2_once(row0):
    game = make_game({0: row0}, phase="place", shape_face="I", dice=PLAIN_DICE)
    assert drop(game, {(0, 6): 5, (1, 6): 1, (2, 6): 3, (3, 6): 2}) == 0  # scored at the end of the turn
    assert pass_turn(game) == 2
    assert game.sheet.lines.tolist() == [True] + [False] * 10
    assert game.score() == 2
    assert finish_turn(game) == 0  # not again in the next turn
    assert game.sheet.lines.sum() == 1 and game.score() == 2


@pytest.mark.parametrize(
    "cells, penalty_rows",
    [
        ([(11, 0), (11, 1), (11, 2), (11, 3)], [11]),
        ([(10, 1), (11, 1), (12, 1), (13, 1)], [11, 12, 13]),
    ],
    ids=["one_row", "three_rows"],
)
def test_s5_each_occupied_penalty_row_scores_minus_5_and_the_game_ends_after_that_turn(cells, penalty_rows):
    rows = {r: "XX..555" if r == 0 else "XX....." for r in range(10)}
    rows[10] = "X......"
    game = make_game(rows, phase="place", shape_face="I", dice=PLAIN_DICE)
    drop(game, dict(zip(cells, (1, 2, 3, 5))))
    assert game.phase is Phase.COMBO  # the turn goes on: a combination may still be scored
    reward = score_combo(game, [(0, 4), (0, 5), (0, 6)])
    assert reward == 3 - 5 * len(penalty_rows)
    assert game.sheet.penalties.tolist() == [r in penalty_rows for r in (11, 12, 13)]
    assert game.is_over
    assert game.score() == 3 - 5 * len(penalty_rows)


def test_s5_a_turn_below_the_game_over_line_does_not_end_the_game():
    game = make_game({0: "1......"}, phase="place", shape_face="I", dice=PLAIN_DICE, turn=3)
    finish_turn(game)
    assert not game.is_over and game.turn == 4
    assert not game.sheet.penalties.any()


# ====================================================================== §6 solo turn structure
# Sheets with the X blocks of the tiles (default mapping A=I B=O C=T D=L E=S) already at notch 4.
BLOCK_O = {0: "1XX....", 1: ".XX...."}
BLOCKS_IL = {0: "1..XXXX", 1: "...XX..", 2: "...X...", 3: "...X..."}
BLOCKS_IOT = {0: "1XXXXXX", 1: ".XXXXX.", 2: "....X.."}
BLOCKS_IOTL = {0: "1XXXXXX", 1: ".XXXXX.", 2: ".XX.X..", 3: ".X.....", 4: ".X....."}


def test_s6_setup_random_letter_to_tetromino_mapping_depends_on_seed():
    mappings = [SoloGame(seed=s).tiles for s in range(30)]
    for tiles in mappings:
        assert sorted(tiles) == sorted("IOTLS")
    assert len(set(mappings)) > 5
    assert SoloGame(seed=7).tiles == SoloGame(seed=7).tiles
    assert SoloGame(seed=7).notches.tolist() == [0] * 5


@pytest.mark.parametrize("col", [0, 4, 6])
def test_s6_setup_starting_1_in_the_chosen_column_of_row_0(col):
    game = SoloGame(seed=2)
    assert game.phase is Phase.START
    assert legal_actions(game) == list(range(game.layout.start, game.layout.start + 7))
    game.step(game.layout.start + col)
    expected = np.full((14, 7), EMPTY)
    expected[0, col] = 1
    assert (game.sheet.values == expected).all()
    assert game.phase is Phase.SLIDE and game.dice is not None and game.turn == 1


def test_s6_mandatory_slide_only_among_tiles_not_at_notch_4():
    game = make_game(BLOCKS_IL, notches=(4, 2, 0, 4, 1), dice=PLAIN_DICE)
    letters = {game.describe(a)["letter"] for a in legal_actions(game)}
    assert letters == {"B", "C", "E"}
    slide(game, "C")
    assert game.notches.tolist() == [4, 2, 1, 4, 1]


def test_s6_no_star_means_no_star_slide():
    game = make_game({0: "1......"}, dice=PLAIN_DICE, shape_face="I")
    slide(game, "B")
    assert game.notches.tolist() == [0, 1, 0, 0, 0]
    assert game.phase is Phase.PLACE


def test_s6_star_on_a_number_die_slides_the_tile_showing_the_shape_die_shape():
    tiles = ("L", "S", "I", "O", "T")
    game = make_game({0: "1......"}, tiles=tiles, dice=STAR_DICE, shape_face="O")
    slide(game, "A")
    assert game.notches.tolist() == [1, 0, 0, 1, 0]  # D shows the O
    assert game.phase is Phase.PLACE


def test_s6_star_slide_does_nothing_when_that_tile_is_at_notch_4():
    tiles = ("L", "S", "I", "O", "T")
    game = make_game(BLOCK_O, tiles=tiles, notches=(0, 0, 0, 4, 0), dice=STAR_DICE, shape_face="O")
    slide(game, "A")
    assert game.notches.tolist() == [1, 0, 0, 4, 0]
    assert game.phase is Phase.PLACE


@pytest.mark.parametrize("dice", [PLAIN_DICE, STAR_DICE], ids=["star_on_shape_die_only", "stars_on_both"])
def test_s6_star_on_the_shape_die_gives_a_free_star_slide(dice):
    game = make_game(BLOCK_O, notches=(0, 4, 0, 0, 0), dice=dice, shape_face="*")
    slide(game, "A")
    assert game.phase is Phase.STAR_SLIDE
    assert {game.describe(a)["letter"] for a in legal_actions(game)} == {"A", "C", "D", "E"}
    slide(game, "A")  # the same tile again: one tile two notches
    assert game.notches.tolist() == [2, 4, 0, 0, 0]
    assert game.phase is Phase.PLACE


def test_s6_a_rolled_star_on_the_shape_die_alone_triggers_the_star_slide():
    rules = Rules(number_dice=((1, 2, 3, 4, 5, 6),) * 4, shape_die=("*",) * 6)
    game = SoloGame(rules, seed=4)
    game.step(game.layout.start + 0)
    assert WILD not in game.dice and game.shape_face == "*"
    slide(game, "A")
    assert game.phase is Phase.STAR_SLIDE


def test_s6_one_tile_can_move_two_notches():
    game = make_game({0: "1......"}, dice=STAR_DICE, shape_face="I")  # A shows the I
    slide(game, "A")
    assert game.notches.tolist() == [2, 0, 0, 0, 0]


def test_s6_a_block_drops_as_soon_as_its_tile_reaches_notch_4_before_the_star_slide():
    game = make_game({0: "1......"}, notches=(0, 0, 0, 3, 0), dice=STAR_DICE, shape_face="T")
    slide(game, "D")  # D shows the L
    assert game.phase is Phase.BLOCK
    assert game.notches.tolist() == [0, 0, 0, 4, 0]  # the star slide of the T tile (C) is not resolved yet
    descs = placements(game)
    assert shapes_of(descs) == {"L"}
    assert len({d["orientation"] for d in descs.values()}) == 8  # the player chooses orientation and column
    cells = [(0, 3), (1, 3), (2, 3), (0, 4)]
    drop_block(game, cells)
    assert all(game.sheet.values[c] == X for c in cells) and x_count(game) == 4  # the L made of X cells
    assert game.notches.tolist() == [0, 0, 1, 4, 0]  # then the star slide
    assert game.phase is Phase.PLACE and shapes_of(placements(game)) == {"T"}  # the turn goes on


def test_s6_two_blocks_can_drop_in_one_turn_then_the_tetromino():
    game = make_game({0: "1......"}, notches=(0, 0, 3, 3, 0), dice=STAR_DICE, shape_face="T", turn=6)
    slide(game, "D")  # mandatory slide: L tile to notch 4
    assert game.phase is Phase.BLOCK and game.describe(legal_actions(game)[0])["letter"] == "D"
    assert game.notches.tolist() == [0, 0, 3, 4, 0]
    drop_block(game, [(0, 3), (1, 3), (2, 3), (0, 4)])
    assert game.phase is Phase.BLOCK and game.describe(legal_actions(game)[0])["letter"] == "C"
    assert game.notches.tolist() == [0, 0, 4, 4, 0]  # star slide: T tile to notch 4
    assert shapes_of(placements(game)) == {"T"}
    drop_block(game, [(1, 0), (1, 1), (1, 2), (2, 1)])  # T on the start 1
    assert x_count(game) == 8
    assert game.phase is Phase.PLACE
    finish_turn(game)
    assert not game.is_over and game.turn == 7


@pytest.mark.parametrize("via", ["mandatory_slide", "star_slide"])
def test_s6_the_game_ends_after_the_turn_in_which_the_last_tile_reached_notch_4(via):
    if via == "mandatory_slide":
        game = make_game(BLOCKS_IOTL, notches=(4, 4, 4, 4, 3), dice=PLAIN_DICE, shape_face="I")
        slide(game, "E")
    else:
        game = make_game(BLOCKS_IOT, notches=(4, 4, 4, 3, 3), dice=STAR_DICE, shape_face="S")
        slide(game, "D")
        assert game.phase is Phase.BLOCK and game.notches.tolist() == [4, 4, 4, 4, 3]
        drop_block(game, landed_cells(game)[0])  # the L block, then the star slide moves the S tile
    assert game.notches.tolist() == [4] * 5
    assert game.phase is Phase.BLOCK  # the S block still drops
    drop_block(game, landed_cells(game)[0])
    assert game.phase is Phase.PLACE  # and the tetromino too
    drop(game, dict(zip(landed_cells(game)[0], [max(v, 0) for v in game.sorted_dice()])))
    assert game.phase is Phase.COMBO and not game.is_over
    pass_turn(game)
    assert game.is_over


def test_s6_the_game_goes_on_while_a_tile_is_not_at_notch_4():
    game = make_game(BLOCKS_IOTL, notches=(4, 4, 4, 4, 2), dice=PLAIN_DICE, shape_face="I", turn=9)
    slide(game, "E")
    finish_turn(game)
    assert not game.is_over and game.turn == 10


def test_s6_a_circled_letter_protects_from_its_block():
    used = [(0, c) for c in range(6)]
    # A: identical 3 and consecutive 3 scored, so the I tile (letter A) cannot hit
    game = make_game(
        {0: "555123."},
        used=used,
        identical=(3,),
        consecutive=(3,),
        notches=(3, 0, 0, 0, 0),
        dice=PLAIN_DICE,
        shape_face="O",
    )
    assert game.sheet.circled.tolist() == [True, False, False, False, False]
    slide(game, "A")
    assert game.notches[0] == 4 and game.phase is Phase.PLACE and x_count(game) == 0
    # the same when the star slide brings it to notch 4
    game = make_game(
        {0: "555123."},
        used=used,
        identical=(3,),
        consecutive=(3,),
        notches=(3, 0, 0, 0, 0),
        dice=STAR_DICE,
        shape_face="I",
    )
    slide(game, "B")
    assert game.notches.tolist() == [4, 1, 0, 0, 0] and game.phase is Phase.PLACE and x_count(game) == 0
    # an uncircled letter is not protected
    game = make_game(
        {0: "555123."},
        used=used,
        identical=(3,),
        consecutive=(3,),
        notches=(0, 3, 0, 0, 0),
        dice=PLAIN_DICE,
        shape_face="O",
    )
    slide(game, "B")
    assert game.phase is Phase.BLOCK


def test_s6_each_turn_moves_one_tile_one_notch_two_tiles_or_one_tile_two_notches():
    kinds = Counter()
    for g in random_games():
        game, turns = g["game"], g["turns"]
        assert len(turns) <= 20
        for t in turns:
            delta = t["after"] - t["before"]
            star = W in t["dice"] or t["face"] == "*"
            assert delta.min() >= 0 and delta.max() <= 2
            assert delta.sum() in ((1, 2) if star else (1,))
            kinds[tuple(sorted(delta[delta > 0].tolist()))] += 1
            if star and t["face"] != "*":
                tile = game.tiles.index(t["face"])
                assert t["after"][tile] >= min(t["before"][tile] + 1, 4)
            if not star:
                assert Phase.STAR_SLIDE not in t["phases"]
            if t["face"] == "*" and (t["before"] < 4).sum() >= 2:
                assert Phase.STAR_SLIDE in t["phases"]
        assert game.sheet.penalties.any() or (game.notches == 4).all()
        assert g["total"] == game.score()
    assert set(kinds) == {(1,), (1, 1), (2,)}


# ====================================================================== §7 final score
@pytest.mark.parametrize(
    "identical, consecutive, column_bonus",
    [
        ((3, 4, 5, 6, 7), (), 10),
        ((), (3, 4, 5, 6, 7), 10),
        ((3, 4, 5, 6, 7), (3, 4, 5, 6, 7), 20),
        ((3, 4, 5, 6), (4, 5, 6, 7), 0),
    ],
    ids=["all_identical", "all_consecutive", "both_columns", "no_full_column"],
)
def test_s7_column_bonus_of_10_for_all_five_boxes_of_a_kind(identical, consecutive, column_bonus):
    game = make_game({0: "1......"}, identical=identical, consecutive=consecutive, phase="combo")
    assert game.sheet.score_breakdown()["column_bonuses"] == column_bonus
    assert game.score() == sum(identical) + sum(consecutive) + column_bonus


def test_s7_final_score_formula():
    rows = {r: "XXXXXXX" for r in range(3)}
    rows.update({11: "X......", 12: "X......"})
    game = make_game(
        rows,
        identical=(3, 5),
        consecutive=(3, 4, 5, 6, 7),
        bonus=True,
        penalties=(11, 12),
        phase="game_over",
        star_pending=False,
    )
    assert game.sheet.lines.tolist() == [True] * 3 + [False] * 8
    expected = (3 + 5) + 25 + 10 + 8 + 2 * 3 - 5 * 2
    assert game.score() == expected == 47
    assert game.sheet.score_breakdown() == {
        "identical": 8,
        "consecutive": 25,
        "bonus": 8,
        "column_bonuses": 10,
        "lines": 6,
        "penalties": -10,
        "total": 47,
    }


def test_s7_a_perfect_sheet_scores_100():
    rows = {r: "1234567" for r in range(11)}
    used = [(r, c) for r in range(11) for c in range(7)][:58]
    game = make_game(
        rows,
        used=used,
        identical=(3, 4, 5, 6, 7),
        consecutive=(3, 4, 5, 6, 7),
        bonus=True,
        notches=(4, 4, 4, 4, 4),
        phase="game_over",
        star_pending=False,
    )  # every letter circled
    assert game.sheet.lines.all() and game.sheet.circled.all()
    assert game.score() == 100 == R.max_score


def test_s7_the_column_bonus_arrives_with_the_last_box_of_the_column():
    path = [(r, 0) for r in range(7)]
    game = make_game(picture({c: v for c, v in zip(path, range(1, 8))}), consecutive=(3, 4, 5, 6), phase="combo")
    assert game.score() == 18
    assert score_combo(game, path) == 7 + 10
    assert game.score() == 35
