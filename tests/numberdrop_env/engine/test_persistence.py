"""Saved states: what play reaches is saved and reloaded exactly, what it cannot reach is refused.

Every state of many games goes through ``to_dict`` / JSON / ``from_dict`` and must come back
equal and play on identically (solo, tables of 2 to 6 players, Lucky Numbers). Then each
defect once found in the loaders has its own test: a finished table that ended on a block
turn, numbers out of their range (never wrapped into a narrow dtype), states that no play
reaches, and clear messages for malformed lists.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest

from luckynumbers_env import Game
from luckynumbers_env import Rules as LuckyRules
from numberdrop_env import Phase, SoloGame, X
from numberdrop_env.engine.rules import DEFAULT_RULES, EMPTY
from numberdrop_env.engine.table import Table, block_table
from tests.support.helpers import eager

R = DEFAULT_RULES
L = SoloGame(seed=0).layout
PLAIN = ((1, 2, 3, 5), "I")  # no star anywhere
STAR = ((1, 2, 3, 5), "*")  # the shape die shows a star


def json_copy(data: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(data))


# ----------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("seed", range(4))
def test_every_solo_decision_round_trips_and_plays_on_identically(seed):
    game, rng = SoloGame(seed=seed), np.random.default_rng(seed)
    while True:
        saved = game.to_dict()
        twin = SoloGame.from_dict(json_copy(saved))
        assert twin.to_dict() == saved
        if game.is_over:
            return
        assert np.array_equal(twin.legal_mask(), game.legal_mask())
        action = eager(game, game.legal_mask(), rng)
        assert twin.step(action) == game.step(action)
        assert twin.to_dict() == game.to_dict()  # the generator too: the next rolls are the same


@pytest.mark.parametrize("players", range(2, 7))
def test_every_table_decision_round_trips_and_plays_on_identically(players):
    for seed in range(2):
        table, rng = Table(players, seed=100 * players + seed), np.random.default_rng(seed)
        while True:
            saved = table.to_dict()
            twin = Table.from_dict(json_copy(saved))
            assert twin.to_dict() == saved
            assert twin.block_letter == table.block_letter
            if table.over:
                break
            assert twin.to_act() == table.to_act()
            p = table.to_act()[0]
            assert np.array_equal(twin.legal_mask(p), table.legal_mask(p))
            action = eager(table.seats[p], table.legal_mask(p), rng)
            assert np.array_equal(twin.step(p, action), table.step(p, action))
            assert twin.to_dict() == table.to_dict()


@pytest.mark.parametrize(
    "rules",
    [LuckyRules(players=2), LuckyRules(players=3, setup="michael", bruno=True), LuckyRules(players=4)],
    ids=["2p", "3p-michael-bruno", "4p"],
)
def test_every_lucky_decision_round_trips_and_plays_on_identically(rules):
    for seed in range(3):
        game, rng = Game(rules, seed), np.random.default_rng(seed)
        while True:
            saved = game.to_dict()
            twin = Game.from_dict(json_copy(saved))
            assert twin.to_dict() == saved
            if game.over:
                break
            assert twin.legal_actions() == game.legal_actions()
            action = int(rng.choice(game.legal_actions()))
            assert np.array_equal(twin.step(action), game.step(action))
            assert twin.to_dict() == game.to_dict()


# ----------------------------------------------------------------------------- hand-built tables
def started(n: int, rolls: list[tuple[tuple[int, ...], str]]) -> Table:
    """A table after every seat wrote its number in column p; ``rolls`` fixes the coming rolls."""
    table = Table(n, seed=0)
    queue = list(rolls)
    table.roll = lambda: queue.pop(0) if queue else PLAIN
    for p in range(n):
        table.step(p, L.start + p)
    return table


def circle_on_the_sheet(table: Table, seat: int, letter: int, row: int) -> None:
    """A circled letter with its two combinations written and used."""
    s, k = table.seats[seat].sheet, R.box_sizes[letter]
    cells = [(row, c) for c in range(k)]
    s.write(cells, [2] * k)
    s.score_combination(cells, "identical")
    cells = [(row + 1, c) for c in range(k)]
    s.write(cells, list(range(1, k + 1)))
    s.score_combination(cells, "consecutive")
    assert s.circled[letter]


def fill(table: Table, seat: int, rows: int) -> None:
    """Fill the empty cells of the lowest ``rows`` rows of a seat's grid with X cells."""
    s = table.seats[seat].sheet
    s.values[:rows] = np.where(s.values[:rows] == EMPTY, X, s.values[:rows])
    filled = s.values != EMPTY
    s.heights[:] = np.where(filled.any(axis=0), R.rows - np.argmax(filled[::-1], axis=0), 0)
    table.seats[seat]._mask = None


def play_turn(table: Table) -> None:
    """Every seat plays its lowest legal decisions until the turn ends."""
    turn = table.turn
    while table.turn == turn and not table.over:
        p = table.to_act()[0]
        table.step(p, int(np.flatnonzero(table.legal_mask(p))[0]))


def block_phase() -> Table:
    """Turn 2 of three seats: seat 0 circled A in turn 1, seats 1 and 2 owe A's block."""
    table = started(3, [PLAIN, STAR])
    circle_on_the_sheet(table, 0, 0, row=5)
    play_turn(table)
    assert table.block_letter == 0
    assert [s.phase for s in table.seats] == [Phase.WAIT, Phase.BLOCK, Phase.BLOCK]
    return table


# ----------------------------------------------------------------------------- item 1
def test_a_table_that_ends_on_a_block_turn_is_saved_without_a_block_phase_and_reloads():
    table = block_phase()
    fill(table, 1, R.regular_rows)  # A's block can only land in seat 1's penalty rows
    play_turn(table)
    assert table.over and table.seats[1].sheet.penalties.any()
    assert table.crossed[0] and table.block_letter is None  # the letter left the board with its block
    saved = table.to_dict()
    again = Table.from_dict(json_copy(saved))
    assert again.to_dict() == saved and again.over


def test_a_finished_table_naming_a_block_phase_is_refused_by_name():
    table = block_phase()
    fill(table, 1, R.regular_rows)
    play_turn(table)
    data = table.to_dict()
    data["block_letter"] = 0
    with pytest.raises(ValueError, match=r"state\.block_letter"):
        Table.from_dict(data)


# ----------------------------------------------------------------------------- item 2
def solo_state() -> dict[str, Any]:
    game, rng = SoloGame(seed=3), np.random.default_rng(3)
    while game.turn < 6 or game.phase is not Phase.SLIDE:
        game.step(eager(game, game.legal_mask(), rng))
    return game.to_dict()


def a_number_cell(sheet: dict[str, Any]) -> tuple[int, int, int]:
    """An unused number cell (row, column, value) of a saved sheet."""
    values, used = np.array(sheet["values"]), np.array(sheet["used"])
    r, c = np.argwhere((values >= 0) & (values <= R.max_number) & ~used)[0]
    return int(r), int(c), int(values[r, c])


def wrapping(v: int) -> list[int]:
    """Numbers that an ``int8`` cast turns back into ``v``."""
    return [v + 256, v - 256, v + 10**18 - (10**18 % 256), v + 2**64]


@pytest.mark.parametrize("k", range(4))
def test_a_solo_cell_outside_its_range_is_refused_not_wrapped(k):
    data = solo_state()
    r, c, v = a_number_cell(data["sheet"])
    data["sheet"]["values"][r][c] = wrapping(v)[k]
    with pytest.raises(ValueError, match=re.escape(f"state.sheet.values[{r}][{c}]")):
        SoloGame.from_dict(data)


@pytest.mark.parametrize("k", range(4))
def test_a_table_cell_outside_its_range_is_refused_not_wrapped(k):
    table = started(2, [PLAIN])
    play_turn(table)
    data = table.to_dict()
    r, c, v = a_number_cell(data["seats"][1]["sheet"])
    data["seats"][1]["sheet"]["values"][r][c] = wrapping(v)[k]
    with pytest.raises(ValueError, match=re.escape(f"state.seats[1].sheet.values[{r}][{c}]")):
        Table.from_dict(data)


def test_set_state_refuses_a_wrapped_cell_and_keeps_its_game():
    env = gymnasium.make("NumberDrop-v0")
    env.reset(seed=4)
    before = env.unwrapped.get_state()
    data = solo_state()
    r, c, v = a_number_cell(data["sheet"])
    data["sheet"]["values"][r][c] = v + 256
    with pytest.raises(ValueError, match="sheet.values"):
        env.unwrapped.set_state(data)
    assert env.unwrapped.get_state() == before


@pytest.mark.parametrize(
    "field, bad",
    [
        ("dice", [1.0, 2, 3, 5]),  # a whole float equals a face but is not a die's number
        ("turn", 5.0),
        ("notches", [np.float64(1), 0, 0, 0, 0]),
    ],
)
def test_numbers_of_the_wrong_type_are_refused(field, bad):
    data = solo_state()
    data[field] = bad
    with pytest.raises(TypeError, match=re.escape(f"state.{field}")):
        SoloGame.from_dict(data)


def test_a_flag_grid_holds_bools_only():
    data = solo_state()
    r, c, _ = a_number_cell(data["sheet"])
    data["sheet"]["used"][r][c] = 0
    with pytest.raises(TypeError, match=re.escape(f"state.sheet.used[{r}][{c}]")):
        SoloGame.from_dict(data)


@pytest.mark.parametrize(
    "rng_edit, field",
    [
        (lambda s: s.update(has_uint32=5), "has_uint32"),
        (lambda s: s.update(uinteger=2**32), "uinteger"),
        (lambda s: s["state"].update(inc=2), "inc"),
        (lambda s: s["state"].update(state=1.5), "state"),
        (lambda s: s.update(extra=1), "extra"),
        (lambda s: s["state"].update(extra=1), "extra"),
    ],
)
def test_a_generator_state_is_checked_field_by_field(rng_edit, field):
    for data, load in ((solo_state(), SoloGame.from_dict), (started(2, [PLAIN]).to_dict(), Table.from_dict)):
        rng_edit(data["rng"])
        with pytest.raises((ValueError, TypeError), match=rf"state\.rng.*{field}|{field}.*state\.rng"):
            load(data)


# ----------------------------------------------------------------------------- item 6
def mid_table() -> dict[str, Any]:
    """Turn 2 of a 3-seat table, every seat to place its tetromino."""
    table = started(3, [PLAIN, PLAIN])
    play_turn(table)
    assert [s.phase for s in table.seats] == [Phase.PLACE] * 3
    return table.to_dict()


def _cross_uncircled(d):
    for seat in d["seats"]:
        seat["sheet"]["crossed"][2] = True


def _over_without_reason(d):
    d["over"] = True
    for seat in d["seats"]:
        seat["phase"] = "game_over"


def _piece_lost_on_a_live_seat(d):
    d["seats"][1]["piece_lost"] = True


def _piece_lost_while_waiting_with_room(d):
    d["seats"][1]["piece_lost"] = True
    d["seats"][1]["phase"] = "wait"


def _seats_reordered(d):
    d["seats"][0], d["seats"][1] = d["seats"][1], d["seats"][0]


def _start_number_changed(d):
    row = d["seats"][2]["sheet"]["values"][0]
    row[row.index(3)] = 7


def _rng_unknown_key(d):
    d["rng"]["seed"] = 12


def _penalty_row_before_the_drop(d):
    d["seats"][0]["sheet"]["values"][12][3] = 4


def _line_left_unticked(d):
    values = d["seats"][1]["sheet"]["values"]
    values[3] = [v if v != EMPTY else X for v in values[3]]


UNREACHABLE_TABLES: list[tuple[str, Callable[[dict], None], str]] = [
    ("crossed letter nobody circled", _cross_uncircled, r"crossed"),
    ("game over without a reason", _over_without_reason, r"state\.over"),
    ("piece lost by a seat still playing", _piece_lost_on_a_live_seat, r"piece_lost"),
    ("piece lost with a legal landing", _piece_lost_while_waiting_with_room, r"piece_lost"),
    ("seats reordered", _seats_reordered, r"start number"),
    ("start number changed", _start_number_changed, r"start number"),
    ("unknown key in rng", _rng_unknown_key, r"state\.rng"),
    ("penalty row filled before the drop", _penalty_row_before_the_drop, r"seats\[0\].*penalty"),
    ("complete line left unticked at the turn start", _line_left_unticked, r"seats\[1\]\.sheet\.lines"),
]


@pytest.mark.parametrize("case, mutate, field", UNREACHABLE_TABLES, ids=[u[0] for u in UNREACHABLE_TABLES])
def test_unreachable_tables_are_refused_naming_the_field(case, mutate, field):
    data = mid_table()
    Table.from_dict(copy.deepcopy(data))  # the base state is valid
    mutate(data)
    with pytest.raises((ValueError, TypeError), match=field):
        Table.from_dict(data)


def test_a_block_phase_seat_whose_block_cannot_land_is_refused():
    table = block_phase()
    fill(table, 1, R.rows)  # no room left for A's block (reachable only past the Game Over line)
    assert not block_table(R, table.blocks[0]).legal(table.seats[1].sheet.heights).any()
    assert not table.legal_mask(1).any()
    with pytest.raises(ValueError, match=r"seats\[1\]"):
        Table.from_dict(table.to_dict())


def test_a_seat_waiting_in_a_block_phase_must_be_protected_out_of_room_or_done():
    table = block_phase()
    data = table.to_dict()
    data["seats"][2]["phase"] = "wait"  # neither circled A, nor full, nor has it dropped the block
    with pytest.raises(ValueError, match=r"seats\[2\]\.phase.*protected"):
        Table.from_dict(data)
    table.step(2, int(np.flatnonzero(table.legal_mask(2))[0]))  # once it dropped the block it may wait
    again = Table.from_dict(table.to_dict())
    assert again.to_dict() == table.to_dict()


def test_a_block_phase_names_the_first_active_letter_after_a_star():
    table = started(3, [PLAIN, STAR])
    circle_on_the_sheet(table, 0, 0, row=5)
    circle_on_the_sheet(table, 1, 1, row=5)
    play_turn(table)
    assert table.block_letter == 0
    data = table.to_dict()
    later = copy.deepcopy(data)
    later["block_letter"] = 1
    with pytest.raises(ValueError, match="first active letter"):
        Table.from_dict(later)
    starless = copy.deepcopy(data)
    starless["shape_face"] = "I"
    with pytest.raises(ValueError, match="star"):
        Table.from_dict(starless)


def test_a_solo_sheet_never_has_a_crossed_letter():
    data = solo_state()
    data["sheet"]["crossed"][1] = True
    with pytest.raises(ValueError, match=r"state\.sheet\.crossed"):
        SoloGame.from_dict(data)


def test_a_solo_turn_starts_with_its_complete_rows_ticked():
    data = solo_state()
    values = data["sheet"]["values"]
    values[5] = [v if v != EMPTY else X for v in values[5]]
    data["sheet"]["lines"][5] = False
    with pytest.raises(ValueError, match=r"state\.sheet\.lines"):
        SoloGame.from_dict(data)


# ----------------------------------------------------------------------------- item 8
@pytest.mark.parametrize("bad", [{"a": 1}, ["T5"], 5, None])
def test_a_malformed_entry_in_blocks_is_named(bad):
    data = started(2, [PLAIN]).to_dict()
    data["blocks"][2] = bad
    with pytest.raises(TypeError, match=re.escape("state.blocks[2]")):
        Table.from_dict(data)


@pytest.mark.parametrize("bad", [{"a": 1}, ["T"], 5, None])
def test_a_malformed_entry_in_tiles_is_named(bad):
    data = solo_state()
    data["tiles"][1] = bad
    with pytest.raises(TypeError, match=re.escape("state.tiles[1]")):
        SoloGame.from_dict(data)


# ----------------------------------------------------------------------------- Lucky Numbers
def lucky_state(rules: LuckyRules, decisions: int) -> dict[str, Any]:
    game, rng = Game(rules, 5), np.random.default_rng(5)
    for _ in range(decisions):
        game.step(int(rng.choice(game.legal_actions())))
    return game.to_dict()


def test_lucky_turns_go_round_the_table_from_player_0():
    data = lucky_state(LuckyRules(players=3), 7)
    Game.from_dict(copy.deepcopy(data))
    for player in {0, 1, 2} - {data["player"]}:
        with pytest.raises(ValueError, match=r"state\.player"):
            Game.from_dict({**data, "player": player})


def test_lucky_setup_is_turn_0():
    data = Game(LuckyRules(players=2, setup="michael"), 1).to_dict()
    with pytest.raises(ValueError, match=r"state\.turn"):
        Game.from_dict({**data, "turn": 2})


@pytest.mark.parametrize("version", [True, 1.0])
def test_lucky_version_is_the_int_1(version):
    with pytest.raises(ValueError, match=r"state\.version"):
        Game.from_dict({**lucky_state(LuckyRules(players=2), 3), "version": version})


def tiny_lucky(boards: list[list[int]], table: list[int], **fields: Any) -> dict[str, Any]:
    """A state of two players on 2 x 2 boards with tiles 1..max_tile, the pool empty."""
    rules = LuckyRules(players=2, size=2, max_tile=fields.pop("max_tile", 4), bruno=fields.pop("bruno", False))
    state = {
        "version": 1,
        "rules": rules.to_dict(),
        "boards": boards,
        "pool": [],
        "table": table,
        "player": 0,
        "phase": "over",
        "hand": 0,
        "drawn": False,
        "extra": False,
        "turn": 0,
        "winners": [0],
        "ended_by": "full",
    }
    state.update(fields)
    return state


@pytest.mark.parametrize("ended_by, winners", [("full", [0]), ("pool", [0, 1])])
def test_lucky_the_first_full_board_ends_the_game(ended_by, winners):
    both_full = [[1, 2, 3, 4], [1, 3, 2, 4]]
    with pytest.raises(ValueError, match=r"state\.boards"):
        Game.from_dict(tiny_lucky(both_full, [], ended_by=ended_by, winners=winners))


def test_lucky_an_extra_action_needs_a_tile_to_draw_or_take():
    nothing_fits = tiny_lucky(
        [[1, 0, 2, 3], [1, 0, 0, 2]], [3], max_tile=3, bruno=True, phase="choose", extra=True, winners=[], ended_by=None
    )
    with pytest.raises(ValueError, match=r"state\.extra"):
        Game.from_dict(nothing_fits)


def test_a_star_with_an_active_letter_is_a_block_phase():
    data = block_phase().to_dict()
    data["block_letter"] = None
    for seat in data["seats"]:
        seat["phase"] = "place"
    with pytest.raises(ValueError, match=r"state\.block_letter.*star"):
        Table.from_dict(data)
