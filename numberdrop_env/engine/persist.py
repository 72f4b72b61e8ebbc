"""Rebuilding a solo game or a table from plain data: every number checked against its range,
then the invariants play keeps, each error naming the field (the classes are passed in)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from gamekit.checks import as_bool, as_int, as_list, as_names, expect_keys, int_grid, make_rng, restore_rng

from .actions import PHASES, Phase, block_table
from .combos import ComboIndex
from .rules import EMPTY, MAX_PLAYERS, MIN_PLAYERS, WILD, Rules, X
from .shapes import ShapeTable
from .sheet import Sheet

STATE_VERSION = TABLE_STATE_VERSION = 1  # of SoloGame.to_dict and Table.to_dict data


def restore_solo(cls: type, data: Any, rules: Rules, seed: Any) -> Any:
    """Rebuild a solo game (``cls``: ``SoloGame``) from ``SoloGame.to_dict`` data; the generator is
    touched only once all is valid."""
    game = cls(rules, np.random.default_rng(0))  # a blank game, then every field from the data
    expect_keys(data, set(game.to_dict()), "state", STATE_VERSION)
    rng = make_rng(seed)
    game.sheet = Sheet.from_dict(data["sheet"], rules, "state.sheet")
    if game.sheet.crossed.any():
        raise ValueError("state.sheet.crossed: letters are crossed off only in multiplayer games")
    game.tiles = tuple(as_names(data["tiles"], rules.shape_names, "state.tiles"))
    notches, last = (len(rules.letters),), rules.last_notch
    game.notches = int_grid(data["notches"], notches, range(last + 1), "state.notches", f"a notch 0..{last}")
    game.phase = _phase(data["phase"])
    game.turn = as_int(data["turn"], 0, len(rules.letters) * rules.last_notch, "state.turn")
    game.star_pending = as_bool(data["star_pending"], "state.star_pending")
    _dice(game, data, rules)
    _turn_fields(game, data, rules)
    if data["rng"] is not None:
        restore_rng(rng, data["rng"], "state.rng")
    game.rng = rng
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
        game.block_tile = as_int(block, 0, len(rules.letters) - 1, "state.block_tile")
        if game.notches[block] != rules.last_notch or game.sheet.circled[block]:
            raise ValueError("state.block_tile: that tile's block is not due to drop")
    _pending(game, data, game.dice, rules, "state")
    _selection(game, data, rules, "state")
    _phase_is_reachable(game, rules)


def _pending(game: Any, data: dict[str, Any], dice: tuple[int, ...] | None, rules: Rules, where: str) -> None:
    """The landed cells and chosen values of a tetromino being written (phases 'arrange' and 'wild')."""
    p = game.phase
    cells = _cells(data, "pending_cells", rules, where)
    values = [
        as_int(v, WILD, rules.max_number, f"{where}.pending_values")
        for v in as_list(data["pending_values"], f"{where}.pending_values")
    ]
    if (len(cells) == 4) != (p in (Phase.ARRANGE, Phase.WILD)) or (cells and len(cells) != 4):
        raise ValueError(f"{where}.pending_cells: four landed cells exactly in phases 'arrange' and 'wild'")
    if any(game.sheet.values[r, c] != EMPTY for r, c in cells):
        raise ValueError(f"{where}.pending_cells: a pending cell is already filled")
    legal = np.flatnonzero(game._placements(game.allowed_shapes())) if cells else ()
    if cells and sorted(cells) not in [game.table.cells(int(p), game.sheet.heights) for p in legal]:
        raise ValueError(f"{where}.pending_cells: not a legal landing of an allowed tetromino")
    if (p is Phase.WILD) != bool(values) or (values and (len(values) != 4 or WILD not in values)):
        raise ValueError(f"{where}.pending_values: four values with a wild left exactly in phase 'wild'")
    fixed = Counter(v for v in dice or () if v != WILD)
    if values and (not fixed <= Counter(values) or values.count(WILD) > list(dice).count(WILD)):
        raise ValueError(f"{where}.pending_values: values do not come from the dice")
    game.pending_cells, game.pending_values = cells, values


def _selection(game: Any, data: dict[str, Any], rules: Rules, where: str) -> None:
    """Cells chosen so far for a combination (phase 'combo'), each one a legal extension."""
    selection = _cells(data, "selection", rules, where)
    if selection and game.phase is not Phase.COMBO:
        raise ValueError(f"{where}.selection: a selection exists only in phase 'combo'")
    if game.phase is Phase.COMBO:
        game._combos = ComboIndex.build(game.sheet)
        for k, (r, c) in enumerate(selection):
            if not game._combos.options(selection[:k])[0][r * rules.cols + c]:
                raise ValueError(f"{where}.selection: cell {(r, c)} cannot extend the selection")
    game.selection = selection
    game._mask = None


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
    if p in (Phase.SLIDE, Phase.OVER):  # the end of a turn has just ticked its boxes
        _boxes_ticked(sheet, rules, "state.sheet")


def _boxes_ticked(sheet: Sheet, rules: Rules, where: str) -> None:
    """After the end of a turn: every complete regular row and every occupied penalty row is ticked."""
    filled = sheet.values != EMPTY
    if (sheet.lines != filled[: rules.regular_rows].all(axis=1)).any():
        raise ValueError(f"{where}.lines: a complete regular row is ticked at the end of the turn that completes it")
    if (sheet.penalties != filled[rules.regular_rows :].any(axis=1)).any():
        raise ValueError(f"{where}.penalties: an occupied penalty row is ticked at the end of the game")


def _dice(game: Any, data: dict[str, Any], rules: Rules) -> None:
    roll = _roll(data, rules, game.phase is not Phase.START, "dice are rolled in every phase but 'start'")
    if roll is None:
        return
    game.dice, game.shape_face = roll
    star = WILD in game.dice or game.shape_face == "*"
    if game.star_pending and not star:
        raise ValueError("state.star_pending: no die shows a star")
    if game.phase is Phase.SLIDE and game.star_pending != star:
        raise ValueError("state.star_pending: must be owed in phase 'slide' exactly when a die shows a star")


def _roll(data: dict[str, Any], rules: Rules, rolled: bool, when: str) -> tuple[tuple[int, ...], str] | None:
    """The saved number dice and shape die, each a face of its die, or None before the first roll."""
    if (data["dice"] is None) == rolled or (data["shape_face"] is None) != (data["dice"] is None):
        raise ValueError(f"state.dice: {when}")
    if data["dice"] is None:
        return None
    dice = as_list(data["dice"], "state.dice")
    if len(dice) != len(rules.number_dice):
        raise ValueError(f"state.dice: expected {len(rules.number_dice)} number dice")
    for i, (v, faces) in enumerate(zip(dice, rules.number_dice)):
        if as_int(v, WILD, rules.max_number, f"state.dice[{i}]") not in faces:
            raise ValueError(f"state.dice[{i}]: {v!r} is not a face of that die {faces}")
    face = data["shape_face"]
    if not isinstance(face, str):
        raise TypeError(f"state.shape_face: expected a face name, got {face!r}")
    if face not in rules.shape_die:
        raise ValueError(f"state.shape_face: {face!r} is not a face of the shape die {rules.shape_die}")
    return tuple(int(v) for v in dice), face


def _phase(value: Any, phases: tuple[Phase, ...] = PHASES, where: str = "state.phase") -> Phase:
    if not (isinstance(value, str) and value in {p.value for p in phases}):
        raise ValueError(f"{where}: {value!r} is not one of {[p.value for p in phases]}")
    return Phase(value)


def _cells(data: dict[str, Any], key: str, rules: Rules, where: str) -> list[tuple[int, int]]:
    """``data[key]``: a list of ``[row, column]`` cells inside the grid."""
    where = f"{where}.{key}"
    cells = [as_list(value, where) for value in as_list(data[key], where)]
    for items in cells:
        if len(items) != 2:
            raise ValueError(f"{where}: a cell is [row, column], got {items!r}")
    return [(as_int(r, 0, rules.rows - 1, where), as_int(c, 0, rules.cols - 1, where)) for r, c in cells]


# ------------------------------------------------------------------ multiplayer tables
_TABLE_KEYS = {"version", "blocks", "turn", "dice", "shape_face", "block_letter", "over", "seats", "rng"}
_SEAT_KEYS = {"sheet", "phase", "pending_cells", "pending_values", "selection", "piece_lost"}
_SEAT_PHASES = (Phase.START, Phase.BLOCK, Phase.PLACE, Phase.ARRANGE, Phase.WILD, Phase.COMBO, Phase.WAIT, Phase.OVER)
_NOT_DROPPED = (Phase.BLOCK, Phase.PLACE, Phase.ARRANGE, Phase.WILD)
"""Seat phases before anything is written on the sheet this turn."""


def restore_table(cls: type, data: Any, rules: Rules) -> Any:
    """Rebuild a multiplayer table (``cls``: ``Table``) from ``Table.to_dict`` data, refusing what the
    rules cannot reach."""
    expect_keys(data, _TABLE_KEYS, "state", TABLE_STATE_VERSION)
    seats = as_list(data["seats"], "state.seats")
    if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
        raise ValueError(f"state.seats: expected {MIN_PLAYERS}..{MAX_PLAYERS} seats, got {len(seats)}")
    table = cls(len(seats), rules, seed=np.random.default_rng(0))  # a blank table, then every field
    table.blocks = tuple(as_names(data["blocks"], [name for name, _ in rules.multi_blocks], "state.blocks"))
    table.turn = as_int(data["turn"], 0, rules.rows * rules.cols, "state.turn")
    table.over = as_bool(data["over"], "state.over")
    table.dice, table.shape_face = _roll(data, rules, table.turn > 0, "dice are rolled from turn 1 on") or (None, None)
    for p, seat_data in enumerate(seats):
        _restore_seat(table.seats[p], seat_data, table, rules, f"state.seats[{p}]")
    _table_is_consistent(table, rules)
    _block_phase(table, data, rules, {name: block_table(rules, name) for name in table.blocks})
    for seat in table.seats:
        seat.notches = np.where(seat.sheet.crossed, rules.last_notch, 0)
    table._share_rivals()
    restore_rng(table.rng, data["rng"], "state.rng")
    return table


def _restore_seat(seat: Any, data: Any, table: Any, rules: Rules, where: str) -> None:
    expect_keys(data, _SEAT_KEYS, where)
    seat.sheet = Sheet.from_dict(data["sheet"], rules, f"{where}.sheet")
    seat.phase = _phase(data["phase"], _SEAT_PHASES, f"{where}.phase")
    seat.piece_lost = as_bool(data["piece_lost"], f"{where}.piece_lost")
    seat.turn, seat.dice, seat.shape_face = table.turn, table.dice, table.shape_face
    _pending(seat, data, table.dice, rules, where)
    _selection(seat, data, rules, where)


def _table_is_consistent(table: Any, rules: Rules) -> None:
    """The invariants of the seats and their sheets that hold in every phase of a table."""
    seats = table.seats
    crossed = seats[0].sheet.crossed
    if any((s.sheet.crossed != crossed).any() for s in seats):
        raise ValueError("state.seats: a letter is crossed off on every sheet or on none")
    circled = np.array([s.sheet.circled for s in seats])
    if (crossed & ~circled.any(axis=0)).any():
        raise ValueError("state.seats: a letter is crossed off only after someone circled it")
    phases = {s.phase for s in seats}
    if table.over != (phases == {Phase.OVER}) or (Phase.OVER in phases and not table.over):
        raise ValueError("state.over: every seat is in phase 'game_over' exactly when the game is over")
    if table.turn == 0 and (phases - {Phase.START, Phase.WAIT} or phases == {Phase.WAIT}):
        raise ValueError("state.turn: before the first roll seats are in phase 'start' or 'wait', some in 'start'")
    if table.turn > 0 and Phase.START in phases:
        raise ValueError("state.phase: 'start' only before the first roll")
    if not table.over and table.turn > 0 and phases == {Phase.WAIT}:
        raise ValueError("state.seats: some seat must owe a decision while the game goes on")
    for p, s in enumerate(seats):
        _seat_is_consistent(table, p, s, rules, f"state.seats[{p}]")
    if table.over and not any(s.piece_lost or s.sheet.penalties.any() for s in seats):
        raise ValueError("state.over: a game ends only when someone crosses the Game Over line or loses a piece")


def _seat_is_consistent(table: Any, p: int, s: Any, rules: Rules, where: str) -> None:
    written = s.sheet.values != EMPTY
    if s.phase is Phase.START and written.any():
        raise ValueError(f"{where}: a seat in phase 'start' has an empty sheet")
    if table.turn == 0 and s.phase is Phase.WAIT and (written.sum() != 1 or s.sheet.values[0].max() != p + 1):
        raise ValueError(f"{where}: before the first roll seat {p} has only its number {p + 1} in row 0")
    if table.turn > 0 and p + 1 not in s.sheet.values[0]:
        raise ValueError(f"{where}.sheet.values: seat {p} wrote its start number {p + 1} in row 0")
    if table.over:
        _boxes_ticked(s.sheet, rules, f"{where}.sheet")
    elif s.sheet.penalties.any():
        raise ValueError(f"{where}.sheet.penalties: penalty boxes are ticked only when the game ends")
    if s.phase in _NOT_DROPPED:  # nothing written yet this turn: the sheet is as the last turn left it
        if written[rules.regular_rows :].any():
            raise ValueError(f"{where}.sheet.values: a penalty row is filled, so the game ended last turn")
        _boxes_ticked(s.sheet, rules, f"{where}.sheet")
    if s.phase is Phase.PLACE and not s._placements(s.allowed_shapes()).any():
        raise ValueError(f"{where}.phase: 'place' with no legal placement (the piece is lost)")
    if s.piece_lost:
        if s.phase not in (Phase.WAIT, Phase.OVER):
            raise ValueError(f"{where}.piece_lost: a seat that lost its piece has ended its turn")
        if table.turn == 0 or s._placements(s.allowed_shapes()).any():
            raise ValueError(f"{where}.piece_lost: a piece is lost only when no tetromino the dice allow can land")


def _block_phase(table: Any, data: dict[str, Any], rules: Rules, shapes: dict[str, ShapeTable]) -> None:
    """``block_letter``: the first active letter, whose block is dropped this turn by everyone unprotected."""
    seats = table.seats
    circled = np.array([s.sheet.circled for s in seats])
    uncrossed = ~seats[0].sheet.crossed
    in_block = [p for p, s in enumerate(seats) if s.phase is Phase.BLOCK]
    scored = not table.over and not in_block and any(s.phase is Phase.WAIT for s in seats)
    if (circled.all(axis=0) & uncrossed).any() and not scored:
        raise ValueError("state.seats: a letter every player circled is crossed off at the end of that turn")
    letter = data["block_letter"]
    if letter is None:
        if in_block:
            raise ValueError("state.block_letter: seats drop a block only in a block phase")
        star = table.dice is not None and (WILD in table.dice or table.shape_face == "*")
        if star and not table.over and not scored and (circled.any(axis=0) & uncrossed).any():
            raise ValueError("state.block_letter: a star rolled while a letter is active starts a block phase")
        return
    letter = as_int(letter, 0, len(rules.letters) - 1, "state.block_letter")
    if table.over:
        raise ValueError("state.block_letter: a finished game has no block phase (its letter is crossed off)")
    active = np.flatnonzero(circled.any(axis=0) & uncrossed)
    if letter not in active:
        raise ValueError("state.block_letter: that letter is not active (circled by someone, not crossed off)")
    if letter != active[0]:
        raise ValueError(f"state.block_letter: the first active letter, {rules.letters[active[0]]}, drops first")
    if WILD not in table.dice and table.shape_face != "*":
        raise ValueError("state.block_letter: a block phase needs a star on some die")
    if {s.phase for s in seats} - {Phase.BLOCK, Phase.WAIT}:
        raise ValueError("state.block_letter: in a block phase seats only drop the block or wait")
    if any(s.piece_lost for s in seats):
        raise ValueError("state.block_letter: a lost piece ends the game, so no block phase follows it")
    blocks = shapes[table.blocks[letter]]
    for p, s in enumerate(seats):
        where = f"state.seats[{p}]"
        if s.phase is Phase.BLOCK:
            if s.sheet.circled[letter]:
                raise ValueError(f"{where}: a seat that circled the letter drops no block")
            if not blocks.legal(s.sheet.heights).any():
                raise ValueError(f"{where}.phase: that block has no legal landing, so it is discarded")
            s.block_tile, s.block_shape = letter, table.blocks[letter]
        elif not (s.sheet.circled[letter] or not blocks.legal(s.sheet.heights).any() or _dropped(s.sheet, blocks)):
            raise ValueError(
                f"{where}.phase: a seat waits in a block phase only when protected by its circle, "
                "out of room for the block, or after dropping it"
            )
    table.block_letter = letter


def _dropped(sheet: Sheet, blocks: ShapeTable) -> bool:
    """Whether the top cells of some columns are X cells in the shape of a block that landed there last."""
    heights = sheet.heights
    for p in np.flatnonzero(blocks.fits_columns):
        dr, cc = blocks.dr[p], blocks.cc[p]
        col_top = np.array([dr[cc == c].max() for c in cc])
        rows = heights[cc] - 1 - col_top  # the landing row each column's top cell implies
        if rows.min() != rows.max() or rows[0] < 0:
            continue
        cells = (rows[0] + dr, cc)
        if not (sheet.values[cells] == X).all():
            continue
        below = sheet.values.copy()
        below[cells] = EMPTY
        filled = below != EMPTY
        under = np.where(filled.any(axis=0), sheet.rules.rows - np.argmax(filled[::-1], axis=0), 0)
        if blocks.landing_rows(under)[p] == rows[0]:
            return True
    return False
