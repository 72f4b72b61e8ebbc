"""Rebuilding a solo game from plain data, refusing states the rules cannot reach."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from .actions import PHASES, Phase
from .combos import ComboIndex
from .rules import EMPTY, WILD, Rules
from .sheet import Sheet, _expect_keys

_KEYS = {"version", "sheet", "tiles", "notches", "dice", "shape_face", "phase", "turn", "star_pending",
         "block_tile", "pending_cells", "pending_values", "selection", "rng"}


def restore_solo(cls: type, data: Any, rules: Rules, seed: Any) -> Any:
    from .solo import STATE_VERSION, make_rng

    _expect_keys(data, _KEYS, "state")
    if data["version"] != STATE_VERSION:
        raise ValueError(f"state.version: expected {STATE_VERSION}, got {data['version']!r}")
    rng = make_rng(seed)
    game = cls(rules, np.random.default_rng(0))  # a blank game, then every field from the data
    game.rng = rng
    game.sheet = Sheet.from_dict(data["sheet"], rules)
    game.tiles = _tiles(data["tiles"], rules)
    game.notches = _int_list(data["notches"], len(rules.letters), 0, rules.last_notch, "notches")
    game.phase = _phase(data["phase"])
    game.turn = _int(data["turn"], 0, 10**6, "turn")
    game.star_pending = _bool(data["star_pending"], "star_pending")
    _dice(game, data, rules)
    _turn_fields(game, data, rules)
    if data["rng"] is not None:
        probe = np.random.Generator(type(rng.bit_generator)())
        try:
            probe.bit_generator.state = data["rng"]
        except (TypeError, ValueError, KeyError, OverflowError) as err:
            raise ValueError(f"state.rng: not a {type(rng.bit_generator).__name__} state ({err})") from err
        rng.bit_generator.state = data["rng"]
    return game


def _turn_fields(game: Any, data: dict[str, Any], rules: Rules) -> None:
    p = game.phase
    started = (game.sheet.values[0] != EMPTY).any()
    if (p is Phase.START) != (game.turn == 0) or (p is Phase.START) == bool(started):
        raise ValueError("state.phase: only a game with an empty sheet at turn 0 is in phase 'start'")
    block = data["block_tile"]
    if (block is None) != (p is not Phase.BLOCK):
        raise ValueError("state.block_tile: set exactly in phase 'block'")
    if block is not None:
        game.block_tile = _int(block, 0, len(rules.letters) - 1, "block_tile")
        if game.notches[block] != rules.last_notch or game.sheet.circled[block]:
            raise ValueError("state.block_tile: that tile's block is not due to drop")
    cells = [_cell(c, rules, "pending_cells") for c in _list(data["pending_cells"], "pending_cells")]
    values = [_int(v, WILD, rules.max_number, "pending_values") for v in _list(data["pending_values"], "pending_values")]
    if (len(cells) == 4) != (p in (Phase.ARRANGE, Phase.WILD)) or (cells and len(cells) != 4):
        raise ValueError("state.pending_cells: four landed cells exactly in phases 'arrange' and 'wild'")
    if any(game.sheet.values[r, c] != EMPTY for r, c in cells):
        raise ValueError("state.pending_cells: a pending cell is already filled")
    if cells and sorted(map(tuple, cells)) not in _landings(game):
        raise ValueError("state.pending_cells: not a legal landing of an allowed tetromino")
    if (p is Phase.WILD) != bool(values) or (values and (len(values) != 4 or WILD not in values)):
        raise ValueError("state.pending_values: four values with a wild left exactly in phase 'wild'")
    fixed = Counter(v for v in game.dice or () if v != WILD)
    if values and (not fixed <= Counter(values) or values.count(WILD) > list(game.dice).count(WILD)):
        raise ValueError("state.pending_values: values do not come from the dice")
    game.pending_cells = [tuple(c) for c in cells]
    game.pending_values = values
    selection = [tuple(_cell(c, rules, "selection")) for c in _list(data["selection"], "selection")]
    if selection and p is not Phase.COMBO:
        raise ValueError("state.selection: a selection exists only in phase 'combo'")
    if p is Phase.COMBO:
        game._combos = ComboIndex.build(game.sheet)
        for k, (r, c) in enumerate(selection):
            if not game._combos.options(selection[:k])[0][r * rules.cols + c]:
                raise ValueError(f"state.selection: cell {(r, c)} cannot extend the selection")
    game.selection = selection
    _phase_is_reachable(game, rules)


def _phase_is_reachable(game: Any, rules: Rules) -> None:
    """Refuse states from which the game could not have been, or could not go on."""
    p, sheet = game.phase, game.sheet
    all_down = bool((game.notches >= rules.last_notch).all())
    penalty_filled = bool((sheet.values[rules.regular_rows :] != EMPTY).any())
    can_place = p is not Phase.START and bool(game._placements(game.allowed_shapes()).any())
    if p is Phase.PLACE and not can_place:
        raise ValueError("state.phase: 'place' with no legal placement")
    if p in (Phase.SLIDE, Phase.STAR_SLIDE) and all_down:
        raise ValueError("state.notches: no tile is left to slide")
    if p is Phase.STAR_SLIDE and game.shape_face != "*":
        raise ValueError("state.phase: a free star slide needs the shape die to show '*'")
    if p is Phase.BLOCK and not game._placements((game.tiles[game.block_tile],)).any():
        raise ValueError("state.block_tile: that block has no legal placement and is discarded")
    if p is Phase.SLIDE and penalty_filled:
        raise ValueError("state.phase: a penalty row is filled, so the game ended last turn")
    if p is not Phase.OVER and sheet.penalties.any():
        raise ValueError("state.sheet.penalties: penalty boxes are ticked only when the game ends")
    if p is Phase.OVER and not (penalty_filled or all_down or not can_place):
        raise ValueError("state.phase: 'game_over' with no penalty row filled, tiles left and a piece to drop")


def _landings(game: Any) -> list[list[tuple[int, int]]]:
    legal = np.flatnonzero(game._placements(game.allowed_shapes()))
    return [game.table.cells(int(p), game.sheet.heights) for p in legal]


def _dice(game: Any, data: dict[str, Any], rules: Rules) -> None:
    if (data["dice"] is None) != (game.phase is Phase.START) or (data["shape_face"] is None) != (data["dice"] is None):
        raise ValueError("state.dice: dice are rolled in every phase but 'start'")
    if data["dice"] is None:
        return
    game.dice, game.shape_face = _roll(data, rules)
    star = WILD in game.dice or game.shape_face == "*"
    if game.star_pending and not star:
        raise ValueError("state.star_pending: no die shows a star")
    if game.phase is Phase.SLIDE and game.star_pending != star:
        raise ValueError("state.star_pending: must be owed in phase 'slide' exactly when a die shows a star")


def _tiles(value: Any, rules: Rules) -> tuple[str, ...]:
    tiles = _list(value, "tiles")
    if sorted(tiles) != sorted(rules.shape_names):
        raise ValueError(f"state.tiles: expected a permutation of {list(rules.shape_names)}, got {tiles!r}")
    return tuple(tiles)


def _phase(value: Any, phases: tuple[Phase, ...] = PHASES, name: str = "phase") -> Phase:
    try:
        phase = Phase(value)
    except ValueError:
        phase = None
    if phase not in phases:
        raise ValueError(f"state.{name}: {value!r} is not one of {[p.value for p in phases]}")
    return phase


def _list(value: Any, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"state.{name}: expected a list, got {type(value).__name__}")
    return value


def _int(value: Any, lo: int, hi: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"state.{name}: expected an int, got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"state.{name}: {value} is outside {lo}..{hi}")
    return value


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"state.{name}: expected a bool, got {value!r}")
    return value


def _int_list(value: Any, n: int, lo: int, hi: int, name: str) -> np.ndarray:
    items = _list(value, name)
    if len(items) != n:
        raise ValueError(f"state.{name}: expected {n} entries, got {len(items)}")
    return np.array([_int(v, lo, hi, name) for v in items], np.int64)


def _cell(value: Any, rules: Rules, name: str) -> tuple[int, int]:
    items = _list(value, name)
    if len(items) != 2:
        raise ValueError(f"state.{name}: a cell is [row, column], got {items!r}")
    return (_int(items[0], 0, rules.rows - 1, name), _int(items[1], 0, rules.cols - 1, name))


# ------------------------------------------------------------------ multiplayer tables
_TABLE_KEYS = {"version", "blocks", "turn", "dice", "shape_face", "block_letter", "over", "seats", "rng"}
_SEAT_KEYS = {"sheet", "phase", "pending_cells", "pending_values", "selection", "piece_lost"}
_SEAT_PHASES = (Phase.START, Phase.BLOCK, Phase.PLACE, Phase.ARRANGE, Phase.WILD, Phase.COMBO, Phase.WAIT, Phase.OVER)


def restore_table(cls: type, data: Any, rules: Rules) -> Any:
    """Rebuild a multiplayer table from ``Table.to_dict`` data, refusing what the rules cannot reach."""
    from .multi import MAX_PLAYERS, MIN_PLAYERS, TABLE_STATE_VERSION

    _expect_keys(data, _TABLE_KEYS, "state")
    if data["version"] != TABLE_STATE_VERSION:
        raise ValueError(f"state.version: expected {TABLE_STATE_VERSION}, got {data['version']!r}")
    seats = _list(data["seats"], "seats")
    if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
        raise ValueError(f"state.seats: expected {MIN_PLAYERS}..{MAX_PLAYERS} seats, got {len(seats)}")
    table = cls(len(seats), rules, seed=np.random.default_rng(0))  # a blank table, then every field
    names = sorted(name for name, _ in rules.multi_blocks)
    blocks = _list(data["blocks"], "blocks")
    if sorted(blocks) != names:
        raise ValueError(f"state.blocks: expected a permutation of {names}, got {blocks!r}")
    table.blocks = tuple(blocks)
    table.turn = _int(data["turn"], 0, 10**6, "turn")
    table.over = _bool(data["over"], "over")
    _table_dice(table, data, rules)
    for p, seat_data in enumerate(seats):
        _restore_seat(table.seats[p], seat_data, table, rules, f"seats[{p}]")
    _table_is_consistent(table, data, rules)
    for seat in table.seats:
        seat.notches = np.where(seat.sheet.crossed, rules.last_notch, 0)
    table._share_rivals()
    try:
        table.rng.bit_generator.state = data["rng"]
    except (TypeError, ValueError, KeyError, OverflowError) as err:
        raise ValueError(f"state.rng: not a {type(table.rng.bit_generator).__name__} state ({err})") from err
    return table


def _table_dice(table: Any, data: dict[str, Any], rules: Rules) -> None:
    if (data["dice"] is None) != (table.turn == 0) or (data["shape_face"] is None) != (data["dice"] is None):
        raise ValueError("state.dice: dice are rolled from turn 1 on")
    if data["dice"] is None:
        return
    table.dice, table.shape_face = _roll(data, rules)


def _roll(data: dict[str, Any], rules: Rules) -> tuple[tuple[int, ...], str]:
    """The saved number dice and shape die, each a face of its die."""
    dice = _list(data["dice"], "dice")
    if len(dice) != len(rules.number_dice):
        raise ValueError(f"state.dice: expected {len(rules.number_dice)} number dice")
    for i, (v, faces) in enumerate(zip(dice, rules.number_dice)):
        if isinstance(v, bool) or v not in faces:
            raise ValueError(f"state.dice[{i}]: {v!r} is not a face of that die {faces}")
    if data["shape_face"] not in rules.shape_die:
        raise ValueError(f"state.shape_face: {data['shape_face']!r} is not a face of the shape die")
    return tuple(int(v) for v in dice), data["shape_face"]


def _restore_seat(seat: Any, data: Any, table: Any, rules: Rules, where: str) -> None:
    _expect_keys(data, _SEAT_KEYS, f"state.{where}")
    seat.sheet = Sheet.from_dict(data["sheet"], rules)
    seat.phase = _phase(data["phase"], _SEAT_PHASES, f"{where}.phase")
    seat.piece_lost = _bool(data["piece_lost"], f"{where}.piece_lost")
    seat.turn, seat.dice, seat.shape_face = table.turn, table.dice, table.shape_face
    cells = [_cell(c, rules, f"{where}.pending_cells") for c in _list(data["pending_cells"], f"{where}.pending_cells")]
    values = [_int(v, WILD, rules.max_number, f"{where}.pending_values")
              for v in _list(data["pending_values"], f"{where}.pending_values")]
    if (len(cells) == 4) != (seat.phase in (Phase.ARRANGE, Phase.WILD)) or (cells and len(cells) != 4):
        raise ValueError(f"state.{where}.pending_cells: four landed cells exactly in phases 'arrange' and 'wild'")
    if cells and sorted(cells) not in _landings(seat):
        raise ValueError(f"state.{where}.pending_cells: not a legal landing of an allowed tetromino")
    if (seat.phase is Phase.WILD) != bool(values) or (values and (len(values) != 4 or WILD not in values)):
        raise ValueError(f"state.{where}.pending_values: four values with a wild left exactly in phase 'wild'")
    fixed = Counter(v for v in table.dice or () if v != WILD)
    if values and (not fixed <= Counter(values) or values.count(WILD) > list(table.dice).count(WILD)):
        raise ValueError(f"state.{where}.pending_values: values do not come from the dice")
    seat.pending_cells, seat.pending_values = [tuple(c) for c in cells], values
    selection = [tuple(_cell(c, rules, f"{where}.selection")) for c in _list(data["selection"], f"{where}.selection")]
    if selection and seat.phase is not Phase.COMBO:
        raise ValueError(f"state.{where}.selection: a selection exists only in phase 'combo'")
    if seat.phase is Phase.COMBO:
        seat._combos = ComboIndex.build(seat.sheet)
        for k, (r, c) in enumerate(selection):
            if not seat._combos.options(selection[:k])[0][r * rules.cols + c]:
                raise ValueError(f"state.{where}.selection: cell {(r, c)} cannot extend the selection")
    seat.selection = selection
    seat._mask = None


def _table_is_consistent(table: Any, data: dict[str, Any], rules: Rules) -> None:
    seats = table.seats
    crossed = seats[0].sheet.crossed
    if any((s.sheet.crossed != crossed).any() for s in seats):
        raise ValueError("state.seats: a letter is crossed off on every sheet or on none")
    phases = {s.phase for s in seats}
    if table.over != (phases == {Phase.OVER}) or (Phase.OVER in phases and not table.over):
        raise ValueError("state.over: every seat is in phase 'game_over' exactly when the game is over")
    if table.turn == 0 and (phases - {Phase.START, Phase.WAIT} or phases == {Phase.WAIT}):
        raise ValueError("state.turn: before the first roll seats are in phase 'start' or 'wait', some in 'start'")
    for p, s in enumerate(seats):
        written = s.sheet.values != EMPTY
        if s.phase is Phase.START and written.any():
            raise ValueError(f"state.seats[{p}]: a seat in phase 'start' has an empty sheet")
        if table.turn == 0 and s.phase is Phase.WAIT and (written.sum() != 1 or s.sheet.values[0].max() != p + 1):
            raise ValueError(f"state.seats[{p}]: before the first roll seat {p} has only its number {p + 1} in row 0")
    if table.turn > 0 and Phase.START in phases:
        raise ValueError("state.phase: 'start' only before the first roll")
    if not table.over and table.turn > 0 and phases == {Phase.WAIT}:
        raise ValueError("state.seats: some seat must owe a decision while the game goes on")
    letter = data["block_letter"]
    in_block = [p for p, s in enumerate(seats) if s.phase is Phase.BLOCK]
    if letter is None:
        if in_block:
            raise ValueError("state.block_letter: seats drop a block only in a block phase")
        return
    letter = _int(letter, 0, len(rules.letters) - 1, "block_letter")
    if crossed[letter] or not any(s.sheet.circled[letter] for s in seats):
        raise ValueError("state.block_letter: that letter is not active")
    if phases - {Phase.BLOCK, Phase.WAIT, Phase.OVER}:
        raise ValueError("state.block_letter: in a block phase seats only drop the block or wait")
    for p in in_block:
        if seats[p].sheet.circled[letter]:
            raise ValueError(f"state.seats[{p}]: a seat that circled the letter drops no block")
        seats[p].block_tile, seats[p].block_shape = letter, table.blocks[letter]
    table.block_letter = letter
