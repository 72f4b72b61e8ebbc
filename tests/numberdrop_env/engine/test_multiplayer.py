"""Multiplayer Number Drop (RULES.md §6 *Multiplayer*): the table engine, its persistence and
the PettingZoo environments."""

from __future__ import annotations

import numpy as np
import pytest

from numberdrop_env import WILD, Phase, X
from numberdrop_env.engine.rules import DEFAULT_RULES
from numberdrop_env.engine.table import Table, block_table
from numberdrop_env.envs.decision import observe

R = DEFAULT_RULES
L = Table(2, seed=0).seats[0].layout
STAR = ((1, 2, 3, 5), "*")  # the shape die shows a star
PLAIN = ((1, 2, 3, 5), "I")  # no star anywhere
WILD_DIE = ((1, WILD, 3, 5), "O")  # a star on a number die


def started(n: int, seed: int = 0, rolls=None) -> Table:
    """A table after every seat wrote its number in column p; ``rolls`` fixes the coming rolls."""
    table = Table(n, seed=seed)
    if rolls is not None:
        queue = list(rolls)
        table.roll = lambda: queue.pop(0) if queue else PLAIN
    for p in range(n):
        table.step(p, L.start + p)
    return table


def circle(table: Table, seat: int, letter: int) -> None:
    """Hand-build a circled letter (both boxes of its size scored)."""
    s = table.seats[seat].sheet
    s.identical[letter] = s.consecutive[letter] = s.circled[letter] = True


def circle_on_the_sheet(table: Table, seat: int, letter: int, row: int) -> None:
    """A circled letter with its two combinations written and used (a sheet a state file accepts)."""
    s, k = table.seats[seat].sheet, R.box_sizes[letter]
    cells = [(row, c) for c in range(k)]
    s.write(cells, [2] * k)
    s.score_combination(cells, "identical")
    cells = [(row + 1, c) for c in range(k)]
    s.write(cells, list(range(1, k + 1)))
    s.score_combination(cells, "consecutive")
    assert s.circled[letter]


def play_turn(table: Table, seats=None, choose=lambda legal: legal[0]) -> None:
    """Every seat (or the given ones) plays until it waits; lowest legal decisions by default."""
    turn = table.turn
    while table.turn == turn and not table.over:
        ready = [p for p in table.to_act() if seats is None or p in seats]
        if not ready:
            return
        p = ready[0]
        table.step(p, int(choose(np.flatnonzero(table.legal_mask(p)))))


def fill(table: Table, seat: int, rows: int) -> None:
    """Fill the lowest ``rows`` rows of a seat's grid with X cells (a hand-built sheet)."""
    s = table.seats[seat].sheet
    s.values[:rows] = np.where(s.values[:rows] == -1, X, s.values[:rows])
    s.heights[:] = np.maximum(s.heights, rows)
    table.seats[seat]._mask = None


# ----------------------------------------------------------------------------- setup
def test_setup_blocks_numbers_and_shared_roll():
    table = Table(4, seed=3)
    assert sorted(table.blocks) == sorted(name for name, _ in R.multi_blocks)
    assert table.to_act() == [0, 1, 2, 3] and all(s.phase is Phase.START for s in table.seats)
    for p in range(4):
        assert table.seats[p].describe(L.start + 2)["number"] == p + 1
        table.step(p, L.start + 2)
        assert table.seats[p].sheet.values[0, 2] == p + 1
    assert table.turn == 1
    assert len({(s.dice, s.shape_face) for s in table.seats}) == 1 and table.seats[0].dice == table.dice


@pytest.mark.parametrize("bad", [1, 7, 0])
def test_player_count_is_2_to_6(bad):
    with pytest.raises(ValueError, match="num_players"):
        Table(bad)
    with pytest.raises(TypeError):
        Table(2.0)


def test_first_player_rotates_each_turn():
    table = started(3, rolls=[PLAIN] * 5)
    firsts = []
    for _ in range(4):
        firsts.append(table.first_player)
        play_turn(table)
    assert firsts == [0, 1, 2, 0]


# ----------------------------------------------------------------------------- block phase
def test_block_phase_drops_on_everyone_who_has_not_circled_then_ends_the_turn():
    table = started(3, rolls=[PLAIN, STAR, PLAIN])
    circle_on_the_sheet(table, 0, 1, row=5)  # seat 0 circled B during the first turn
    play_turn(table)
    assert table.block_letter == 1 and table.turn == 2
    assert [s.phase for s in table.seats] == [Phase.WAIT, Phase.BLOCK, Phase.BLOCK]
    restored = Table.from_dict(table.to_dict())  # a saved block phase is seen the same way
    for a, b in zip(table.seats, restored.seats):
        seen, again = observe(a), observe(b)
        assert all(np.array_equal(seen[k], again[k]) for k in seen)
    shape = table.blocks[1]
    legal = block_table(R, shape).legal(table.seats[1].sheet.heights)
    assert np.array_equal(table.legal_mask(1)[L.block : L.block + len(legal)], legal)
    assert not table.legal_mask(1)[L.place :].any()
    before = [(s.sheet.values == X).sum() for s in table.seats]
    play_turn(table)
    after = [(s.sheet.values == X).sum() for s in table.seats]
    size = len(dict(R.multi_blocks)[shape])
    assert [a - b for a, b in zip(after, before)] == [0, size, size]
    assert all(s.sheet.crossed[1] for s in table.seats)  # crossed off on every sheet
    assert table.turn == 3 and table.block_letter is None  # no tetromino that turn
    assert all(s.phase is Phase.PLACE for s in table.seats)


@pytest.mark.parametrize("roll", [WILD_DIE, STAR])
def test_any_star_among_the_five_dice_starts_the_block_phase(roll):
    table = started(2, rolls=[PLAIN, roll])
    circle(table, 1, 0)
    play_turn(table)
    assert table.block_letter == 0 and table.seats[0].phase is Phase.BLOCK


def test_no_star_no_block_phase_and_the_first_active_letter_goes_first():
    table = started(2, rolls=[PLAIN, PLAIN, STAR])
    circle(table, 0, 3)
    circle(table, 1, 2)
    play_turn(table)
    assert table.block_letter is None and table.seats[0].phase is Phase.PLACE
    play_turn(table)
    assert table.block_letter == 2  # C before D
    assert [s.phase for s in table.seats] == [Phase.BLOCK, Phase.WAIT]


def test_a_crossed_letter_is_never_active_again():
    table = started(2, rolls=[PLAIN, STAR, STAR])
    circle(table, 0, 0)
    play_turn(table)
    play_turn(table)  # the block phase of A
    assert table.seats[0].sheet.crossed[0] and table.active_letters() == []
    assert table.block_letter is None and table.seats[0].phase is Phase.PLACE


def test_a_letter_crossed_off_cannot_be_circled():
    table = started(2)
    s = table.seats[0].sheet
    s.crossed[0] = True
    s.identical[0] = True
    s.values[1, 0:3] = 4
    s.score_combination([(1, 0), (1, 1), (1, 2)], "consecutive")
    assert s.consecutive[0] and not s.circled[0]


def test_decision_a_letter_everyone_circled_is_crossed_at_the_end_of_that_turn():
    table = started(3, rolls=[PLAIN, STAR])
    for p in range(3):
        circle(table, p, 4)
    play_turn(table)
    assert all(s.sheet.crossed[4] for s in table.seats)
    assert table.block_letter is None  # the star roll found no active letter


def test_a_block_with_no_legal_placement_is_discarded():
    """Hand-built (it cannot happen from an empty sheet): the next roll meets a full grid."""
    table = started(2, rolls=[PLAIN, STAR])
    circle(table, 0, 0)
    fill(table, 1, R.rows)
    table._start_turn()  # the star roll of turn 2 on the hand-built sheets
    assert table.seats[1].piece_lost is False  # a discarded block is not a lost piece
    assert all(s.sheet.crossed[0] for s in table.seats)  # nobody dropped it; A is crossed anyway
    assert table.over  # seat 1's full grid crossed the Game Over line


def test_a_lost_tetromino_ends_that_players_turn_and_the_game_after_it():
    table = started(3, rolls=[PLAIN, PLAIN])
    fill(table, 2, R.rows)
    table._start_turn()  # turn 2 rolled on the hand-built sheets
    assert table.seats[2].phase is Phase.WAIT and table.seats[2].piece_lost
    assert table.to_act() == [0, 1]
    filled = [(s.sheet.values != -1).sum() for s in table.seats[:2]]
    play_turn(table)  # the others finish the turn
    assert [(s.sheet.values != -1).sum() - f for s, f in zip(table.seats, filled)] == [4, 4]
    assert table.over


def test_the_game_ends_after_the_turn_someone_crosses_the_game_over_line():
    table = started(3, rolls=[PLAIN, PLAIN])
    fill(table, 1, R.regular_rows + 1)  # seat 1 already has a penalty row filled
    play_turn(table, seats=[1])
    assert not table.over and table.to_act() == [0, 2]  # the others finish the turn
    play_turn(table)
    assert table.over and table.to_act() == []
    assert all(s.phase is Phase.OVER for s in table.seats)
    assert table.seats[1].sheet.penalties.any()
    with pytest.raises(ValueError, match="over"):
        table.step(0, 0)


def test_ties_share_the_win():
    table = started(4)
    for p in (1, 3):
        table.seats[p].sheet.bonus = True
    assert table.winners() == [1, 3]
    assert Table(2, seed=1).winners() == [0, 1]


# ----------------------------------------------------------------------------- actions
def test_masked_actions_and_waiting_seats_raise_and_change_nothing():
    table = started(2, rolls=[PLAIN])
    state = table.to_dict()
    with pytest.raises(ValueError, match="not legal"):
        table.step(0, L.slide)
    with pytest.raises(ValueError, match="seat"):
        table.step(2, L.place)
    with pytest.raises(TypeError):
        table.step(0, "1")
    play_turn(table, seats=[0])
    state = table.to_dict()
    with pytest.raises(ValueError, match="waits"):
        table.step(0, L.place)
    assert table.to_dict() == state


def test_seed_fixes_the_whole_game():
    def play(seed):
        table, rng, log = Table(4, seed=seed), np.random.default_rng(7), []
        while not table.over:
            p = table.to_act()[0]
            a = int(rng.choice(np.flatnonzero(table.legal_mask(p))))
            log.append((p, a, tuple(table.step(p, a))))
        return log, table.to_dict()

    assert play(5) == play(5)
    assert play(5)[1]["rng"] != play(6)[1]["rng"]


# ----------------------------------------------------------------------------- persistence
def test_state_round_trips_mid_game_and_continues_identically():
    table = started(3, seed=2)
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = table.to_act()[0]
        table.step(p, int(rng.choice(np.flatnonzero(table.legal_mask(p)))))
    copy = Table.from_dict(table.to_dict())
    assert copy.to_dict() == table.to_dict()
    for _ in range(30):
        if table.over:
            break
        p = table.to_act()[0]
        a = int(rng.choice(np.flatnonzero(table.legal_mask(p))))
        assert np.array_equal(table.legal_mask(p), copy.legal_mask(p))
        assert np.array_equal(table.step(p, a), copy.step(p, a))
    assert copy.to_dict() == table.to_dict()


@pytest.mark.parametrize(
    "mutate, words",
    [
        (lambda d: d.update(blocks=["L3", "L3", "U5", "X5", "T5"]), "blocks"),
        (lambda d: d["seats"][1]["sheet"]["crossed"].__setitem__(0, True), "crossed"),
        (lambda d: d["seats"][0].update(phase="slide"), "phase"),
        (lambda d: d.update(seats=d["seats"] * 4), "seats"),
        (lambda d: d.update(block_letter=3), "block_letter"),
        (lambda d: d.update(extra=1), "unknown"),
        (lambda d: d.update(over=True), "over"),
    ],
)
def test_malformed_states_are_refused(mutate, words):
    table = started(2)
    data = table.to_dict()
    mutate(data)
    with pytest.raises((ValueError, TypeError), match=words):
        Table.from_dict(data)


# ----------------------------------------------------------------------------- random games
def test_random_games_with_2_to_6_players_without_error():
    rng = np.random.default_rng(0)
    turns = []
    for g in range(500):
        table = Table(2 + g % 5, seed=g)
        while not table.over:
            ready = table.to_act()
            assert ready, "a live game always has a seat to act"
            p = ready[rng.integers(len(ready))]
            mask = table.legal_mask(p)
            assert mask.any()
            table.step(p, int(rng.choice(np.flatnonzero(mask))))
        assert (table.scores() == [s.sheet.score() for s in table.seats]).all()
        turns.append(table.turn)
    assert min(turns) >= 2
