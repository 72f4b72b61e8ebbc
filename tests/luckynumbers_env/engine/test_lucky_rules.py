"""One scenario per rule and per Decision of LUCKY_NUMBERS.md."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from luckynumbers_env import Game, Phase, Rules, layout_for
from tests.support.lucky_helpers import board, diagonal, position

R2 = Rules(players=2)
L = layout_for(R2)
DRAW, DISCARD, STOP = L.draw, L.discard, L.stop


def place(row: int, col: int) -> int:
    return L.place(row * 4 + col)


def all_tiles(game: Game) -> Counter:
    s = game.to_dict()
    return Counter(
        [v for b in s["boards"] for v in b if v] + s["pool"] + s["table"] + ([s["hand"]] if s["hand"] else [])
    )


# ---------------------------------------------------------------- components and setup
@pytest.mark.parametrize("players", [2, 3, 4])
def test_components_one_set_of_1_to_20_per_player(players):
    game = Game(Rules(players=players), seed=3)
    assert all_tiles(game) == Counter({v: players for v in range(1, 21)})
    assert sum(all_tiles(game).values()) == 20 * players


def test_standard_setup_diagonals_ascending_in_draw_order_and_nothing_face_up():
    rules = Rules(players=3)
    game = Game(rules, seed=11)
    shuffled = np.random.default_rng(11).permutation(np.repeat(np.arange(1, 21), 3)).tolist()
    for p in range(3):  # Decision: player 0 takes the first four tiles, then player 1, ...
        diag = [game.boards[p][k * 5] for k in range(4)]
        assert diag == sorted(shuffled[4 * p : 4 * p + 4])
        assert sum(1 for v in game.boards[p] if v) == 4
    assert game.pool_order() == shuffled[12:]
    assert game.face_up() == [] and game.phase is Phase.CHOOSE


def test_standard_setup_equal_numbers_sit_next_to_each_other():
    for seed in range(200):
        game = Game(R2, seed=seed)
        diag = [game.boards[0][k * 5] for k in range(4)]
        if len(set(diag)) < 4:
            assert diag == sorted(diag)
            break
    else:
        pytest.fail("no seed with a repeated number on a diagonal")


def test_michael_setup_four_rounds_in_turn_order_free_diagonal_cell():
    rules = Rules(players=2, setup="michael")
    game = Game(rules, seed=5)
    shuffled = np.random.default_rng(5).permutation(np.repeat(np.arange(1, 21), 2)).tolist()
    order = []
    for k in range(8):
        assert game.phase is Phase.SETUP and game.drawn
        assert game.hand == shuffled[k]  # one tile drawn at a time, in turn order
        order.append(game.player)
        legal = game.legal_actions()
        assert legal == [L.setup(j) for j in range(4) if game.boards[game.player][j * 5] == 0]
        game.step(legal[-1])  # the last free diagonal cell: bottom-right first
    assert order == [0, 1] * 4
    assert game.phase is Phase.CHOOSE and game.player == 0
    # placed bottom-right first, so the diagonal holds the tiles in reverse draw order
    assert [game.boards[0][k * 5] for k in range(4)] == [shuffled[6], shuffled[4], shuffled[2], shuffled[0]]


def test_michael_setup_may_leave_the_diagonal_out_of_order_and_dead_cells():
    rules = Rules(players=2, setup="michael")
    game = position(rules, [diagonal(15, 3, 0, 0), diagonal(1, 2, 0, 0)], phase="setup", hand=9, drawn=True)
    assert game.legal_actions() == [L.setup(2), L.setup(3)]
    # (0,1) must exceed 15 (row 0) and stay below 3 (column 1): no number is ever legal there
    lo, hi = game.bounds(0)
    assert lo[1] == 15 and hi[1] == 3


def test_michael_setup_placement_never_gives_bruno_an_extra_action():
    rules = Rules(players=2, setup="michael", bruno=True)
    game = position(
        rules, [diagonal(0, 7, 0, 0), diagonal(0, 2, 0, 0)], phase="setup", hand=7, drawn=True, pool_first=(4,)
    )
    game.step(L.setup(2))  # (2,2) is diagonally next to the 7 on (1,1)
    assert game.player == 1 and game.phase is Phase.SETUP and not game.extra


def test_player_0_starts_then_1_2():
    game = Game(Rules(players=3), seed=0)
    seen = []
    while len(seen) < 7:
        seen.append(game.player)
        game.step(DRAW)
        game.step(DISCARD)
    assert seen == [0, 1, 2, 0, 1, 2, 0]


# ---------------------------------------------------------------- a turn
def test_a_draw_then_place_or_put_on_the_table_even_if_placeable():
    game = position(R2, [diagonal(2, 6, 12, 18), diagonal(3, 7, 13, 19)], pool_first=(10,))
    game.step(DRAW)
    assert game.phase is Phase.PLACE and game.hand == 10 and game.drawn
    legal = game.legal_actions()
    assert place(1, 2) in legal and DISCARD in legal
    game.step(DISCARD)  # may go on the table although it fits
    assert game.face_up() == [10] and game.player == 1 and game.phase is Phase.CHOOSE


def test_b_take_a_face_up_tile_and_place_it_no_discard():
    game = position(R2, [diagonal(2, 6, 12, 18), diagonal(3, 7, 13, 19)], table=(10,))
    assert L.take(10) in game.legal_actions()
    game.step(L.take(10))
    assert game.hand == 10 and not game.drawn and game.face_up() == []
    assert DISCARD not in game.legal_actions()
    with pytest.raises(ValueError, match="not legal"):
        game.step(DISCARD)
    game.step(place(1, 2))
    assert game.boards[0][6] == 10


def test_decision_take_only_if_the_board_has_a_legal_placement():
    # a position reached in play (seed 0, 3 players, random moves): two 19s on the board, so a
    # third fits nowhere: each 19 blocks its row and column, and a swap must change the number
    b = board([[2, 0, 0, 0], [0, 1, 7, 11], [3, 12, 19, 0], [0, 15, 0, 19]])
    game = position(Rules(players=3), [b, diagonal(4, 8, 13, 18), diagonal(5, 9, 14, 17)], table=(19, 10))
    assert not game.fits(0, 19)
    legal = game.legal_actions()
    assert L.take(19) not in legal and L.take(10) in legal and DRAW in legal
    before = game.to_dict()
    with pytest.raises(ValueError, match="not legal"):
        game.step(L.take(19))
    assert game.to_dict() == before


# ---------------------------------------------------------------- placement
def test_place_on_an_empty_cell_or_swap_strictly_increasing_rows_and_columns():
    game = position(R2, [diagonal(2, 6, 12, 18), diagonal(3, 7, 13, 19)], pool_first=(9,))
    game.step(DRAW)
    # 9 may not go left of the 6 or above it, nor right of the 12 or below it; every other
    # cell works, the four diagonal cells as swaps (9 differs from 2, 6, 12 and 18)
    illegal = {(0, 1), (1, 0), (2, 3), (3, 2)}
    expect = {place(r, c) for r in range(4) for c in range(4) if (r, c) not in illegal} | {DISCARD}
    assert set(game.legal_actions()) == expect


def test_decision_only_the_placed_tiles_row_and_column_count_empty_cells_ignored():
    game = position(R2, [diagonal(10, 11, 12, 18), diagonal(3, 7, 13, 19)], pool_first=(5,))
    game.step(DRAW)
    legal = set(game.legal_actions())
    assert place(0, 0) in legal  # a swap: 5 replaces the 10, alone in its row and column
    assert place(1, 0) not in legal  # column 0 holds 10 above it
    assert place(3, 0) not in legal  # column 0 holds 10 above it, two empty cells between
    assert place(0, 3) not in legal  # row 0 holds 10 to its left, two empty cells between
    game2 = position(R2, [diagonal(2, 6, 12, 18), diagonal(3, 7, 13, 19)], pool_first=(4,))
    game2.step(DRAW)
    # (3,0): row 3 holds 18 to its right, column 0 holds 2 above: legal, although the 6 and
    # the 12 of other rows and columns sit up and to the right of it
    assert place(3, 0) in game2.legal_actions()
    game2.step(place(3, 0))
    assert game2.boards[0][12] == 4


def test_equal_numbers_never_share_a_row_or_column():
    game = position(R2, [diagonal(2, 6, 12, 18), diagonal(3, 7, 13, 19)], pool_first=(6,))
    game.step(DRAW)
    legal = set(game.legal_actions())
    for c in range(4):
        if c != 1:
            assert place(1, c) not in legal
    for r in range(4):
        if r != 1:
            assert place(r, 1) not in legal


def test_swap_puts_the_old_tile_face_up_on_the_table():
    game = position(R2, [diagonal(2, 6, 12, 18), diagonal(3, 7, 13, 19)], pool_first=(8,))
    game.step(DRAW)
    assert place(1, 1) in game.legal_actions()
    assert "swapping tile 6" in game.describe_action(place(1, 1))
    game.step(place(1, 1))
    assert game.boards[0][5] == 8 and game.face_up() == [6]


def test_decision_a_swap_must_change_the_number():
    game = position(R2, [diagonal(2, 6, 12, 18), diagonal(3, 7, 13, 19)], pool_first=(12,))
    game.step(DRAW)
    assert place(2, 2) not in game.legal_actions()
    before = game.to_dict()
    with pytest.raises(ValueError, match="not legal"):
        game.step(place(2, 2))
    assert game.to_dict() == before


def test_decision_rows_and_columns_stay_increasing_and_every_new_number_has_a_cell():
    rng = np.random.default_rng(0)
    for seed in range(60):
        game = Game(Rules(players=3), seed=seed)
        while not game.over:
            for p in range(3):
                b = game.boards[p]
                for line in [b[r * 4 : r * 4 + 4] for r in range(4)] + [b[c::4] for c in range(4)]:
                    tiles = [v for v in line if v]
                    assert tiles == sorted(set(tiles))
                # every number the board does not already hold has a legal cell (a number held
                # twice can be stuck: see test_decision_take_only_if_the_board_has_a_legal_placement)
                assert all(game.fits(p, v) for v in range(1, 21) if v not in b)
            legal = game.legal_actions()
            game.step(legal[rng.integers(len(legal))])


# ---------------------------------------------------------------- Bruno's variant
RB = Rules(players=2, bruno=True)


def test_bruno_extra_action_after_placing_diagonally_next_to_the_same_number():
    # player 0 has 9 on (1,2); placing 9 on (2,1)... shares no row or column with it and is diagonal
    b0 = board([[2, 0, 0, 0], [0, 6, 9, 0], [0, 0, 12, 0], [0, 0, 0, 18]])
    game = position(RB, [b0, diagonal(3, 7, 13, 19)], pool_first=(9, 4))
    game.step(DRAW)
    assert place(2, 1) in game.legal_actions()
    game.step(place(2, 1))
    assert game.player == 0 and game.phase is Phase.CHOOSE and game.extra
    assert set(game.legal_actions()) == {DRAW, STOP}
    assert "stop" in game.describe_action(STOP)
    game.step(DRAW)  # the extra action
    assert game.hand == 4 and not game.extra


def test_bruno_extra_action_is_optional():
    b0 = board([[2, 0, 0, 0], [0, 6, 9, 0], [0, 0, 12, 0], [0, 0, 0, 18]])
    game = position(RB, [b0, diagonal(3, 7, 13, 19)], pool_first=(9,))
    game.step(DRAW)
    game.step(place(2, 1))
    game.step(STOP)
    assert game.player == 1 and not game.extra and game.phase is Phase.CHOOSE


def test_bruno_a_swap_counts_a_discard_does_not():
    b0 = board([[2, 0, 0, 0], [0, 6, 9, 0], [0, 8, 12, 0], [0, 0, 0, 18]])
    game = position(RB, [b0, diagonal(3, 7, 13, 19)], pool_first=(9, 4))
    game.step(DRAW)
    game.step(place(2, 1))  # swaps the 8, lands next to the 9 on (1,2)
    assert game.extra and game.face_up() == [8]
    game.step(DRAW)
    game.step(DISCARD)  # putting a tile on the table gives nothing
    assert game.player == 1 and not game.extra


def test_bruno_no_extra_action_without_a_diagonal_match_or_when_the_variant_is_off():
    b0 = board([[2, 0, 0, 0], [0, 6, 9, 0], [0, 0, 12, 0], [0, 0, 0, 18]])
    plain = position(R2, [b0, diagonal(3, 7, 13, 19)], pool_first=(9,))
    plain.step(DRAW)
    plain.step(place(2, 1))
    assert plain.player == 1 and not plain.extra
    other = position(RB, [b0, diagonal(3, 7, 13, 19)], pool_first=(10,))
    other.step(DRAW)
    other.step(place(0, 3))
    assert other.player == 1 and not other.extra


def test_bruno_turn_ends_when_no_action_is_possible():
    # a small board (3x3, tiles 1..5) lets pool and table run empty: the last 2 lands next to a 2
    rules = Rules(players=2, size=3, max_tile=5, bruno=True)
    small = layout_for(rules)
    b0 = board([[1, 2, 0], [0, 3, 4], [0, 0, 5]])
    b1 = board([[1, 0, 0], [0, 3, 4], [0, 0, 5]])
    game = position(rules, [b0, b1], pool_first=(2,))
    assert game.pool_size == 1 and game.face_up() == []
    game.step(small.draw)
    game.step(small.place(3))  # (1,0): diagonally next to the 2 on (0,1)
    assert game.over and game.ended_by == "pool" and game.winners == [0]


# ---------------------------------------------------------------- end of the game
def test_full_board_ends_the_game_at_once_and_wins():
    b0 = board([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 0, 16]])
    game = position(Rules(players=2), [b0, diagonal(3, 7, 13, 19)], pool_first=(15,))
    assert game.pool_size > 10
    assert game.step(DRAW).tolist() == [0, 0]
    rewards = game.step(place(3, 2))
    assert game.over and game.ended_by == "full" and game.winners == [0]
    assert rewards.tolist() == [2, -12]


def test_full_board_ends_the_game_even_when_bruno_would_give_an_extra_action():
    b0 = board([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 15], [13, 14, 0, 16]])
    game = position(RB, [b0, diagonal(3, 7, 12, 19)], table=(15,))
    game.step(L.take(15))
    game.step(place(3, 2))  # diagonally next to the 15 on (2,3), and the last empty cell
    assert game.over and game.ended_by == "full" and game.winners == [0] and not game.extra


def test_pool_empty_ends_after_the_last_drawers_turn_fewest_empty_cells_win_ties_share():
    rules = Rules(players=3)
    boards = [diagonal(2, 6, 12, 18), diagonal(3, 7, 13, 19), diagonal(1, 5, 11, 17)]
    game = position(rules, boards, pool_first=(9,), pool_size=1, player=1)
    game.step(DRAW)
    assert game.pool_size == 0 and not game.over  # the turn is not finished
    rewards = game.step(place(1, 2))  # player 1: 11 empty cells, the others 12
    assert game.over and game.ended_by == "pool" and game.winners == [1]
    assert rewards.tolist() == [-12, 2, -12]
    tie = position(rules, boards, pool_first=(9,), pool_size=1, player=1)
    tie.step(DRAW)
    rewards = tie.step(DISCARD)
    assert tie.winners == [0, 1, 2] and rewards.tolist() == [2, 2, 2]


def test_reward_is_zero_until_the_end_and_then_the_tournament_score():
    game = Game(Rules(players=4), seed=2)
    rng = np.random.default_rng(2)
    total = np.zeros(4)
    while not game.over:
        legal = game.legal_actions()
        r = game.step(legal[rng.integers(len(legal))])
        if not game.over:
            assert not r.any()
        total += r
    expect = [2 if p in game.winners else -game.empty_cells(p) for p in range(4)]
    assert total.tolist() == expect


# ---------------------------------------------------------------- bad input
def test_masked_action_raises_and_changes_nothing_bad_types_raise_typeerror():
    game = Game(R2, seed=0)
    before = game.to_dict()
    for action in (DISCARD, place(0, 1), STOP, L.setup(0), 5 if 5 not in game.face_up() else 6):
        with pytest.raises(ValueError, match="not legal"):
            game.step(action)
        assert game.to_dict() == before
    with pytest.raises(ValueError, match="outside"):
        game.step(L.n)
    with pytest.raises(ValueError, match="outside"):
        game.step(-1)
    for bad in (1.0, "0", None, True):
        with pytest.raises(TypeError):
            game.step(bad)
    assert game.to_dict() == before
    game.step(np.int64(DRAW))  # NumPy integers are actions too


def test_describe_action_speaks_the_games_words():
    game = position(R2, [diagonal(2, 6, 12, 18), diagonal(3, 7, 13, 19)], table=(10,), pool_first=(9,))
    assert game.describe_action(DRAW) == "draw a tile from the pool"
    assert game.describe_action(L.take(10)) == "take face-up tile 10 from the table"
    game.step(DRAW)
    assert game.describe_action(place(1, 2)) == "place tile 9 on row 1, column 2"
    assert game.describe_action(DISCARD) == "put tile 9 face up on the table"


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"players": 1}, ValueError),
        ({"players": 5}, ValueError),
        ({"players": 2.0}, TypeError),
        ({"setup": "bruno"}, ValueError),
        ({"bruno": 1}, TypeError),
        ({"max_tile": 5}, ValueError),
        ({"size": True}, TypeError),
    ],
)
def test_rules_refuse_bad_values(kwargs, error):
    with pytest.raises(error):
        Rules(**kwargs)


def test_game_over_refuses_actions():
    rules = Rules(players=2)
    game = position(rules, [diagonal(2, 6, 12, 18), diagonal(3, 7, 13, 19)], pool_first=(9,), pool_size=1)
    game.step(DRAW)
    game.step(DISCARD)
    assert game.over and game.legal_actions() == [] and not game.legal_mask().any()
    with pytest.raises(ValueError, match="over"):
        game.step(DRAW)
