"""A game to and from JSON-safe data, the hidden pool order included, every field checked before
anything is built (the class is passed in: ``Game.from_dict`` calls this module)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from gamekit.checks import as_bool, as_int, as_list, expect_keys

from .actions import Phase
from .rules import DEFAULT_RULES, Rules

STATE_VERSION = 1


def game_to_dict(game: Any) -> dict[str, Any]:
    return {
        "version": STATE_VERSION,
        "rules": game.rules.to_dict(),
        "boards": [b[:] for b in game.boards],
        "pool": game.pool_order(),
        "table": game.face_up(),
        "player": game.player,
        "phase": game.phase.value,
        "hand": game.hand,
        "drawn": game.drawn,
        "extra": game.extra,
        "turn": game.turn,
        "winners": game.winners[:],
        "ended_by": game.ended_by,
    }


def _ints(value: Any, lo: int, hi: int, name: str) -> list[int]:
    return [as_int(v, lo, hi, f"state.{name}[{i}]") for i, v in enumerate(as_list(value, f"state.{name}"))]


def _check_board(board: list[int], size: int, name: str) -> None:
    """Every row and column strictly increasing over its tiles (empty cells ignored)."""
    lines = [board[r * size : (r + 1) * size] for r in range(size)] + [board[c::size] for c in range(size)]
    for line in lines:
        tiles = [v for v in line if v]
        if any(a >= b for a, b in zip(tiles, tiles[1:])):
            raise ValueError(f"state.{name}: a row or column is not strictly increasing: {line}")


def game_from_dict(cls: type, data: Any) -> Any:
    """Rebuild a game (``cls``: ``Game``) from ``Game.to_dict`` data, checking every field first."""
    expect_keys(data, set(game_to_dict(cls(DEFAULT_RULES, 0))), "state", STATE_VERSION)  # the keys to_dict writes
    rules = Rules.from_dict(data["rules"])
    n, size, top = rules.players, rules.size, rules.max_tile
    if not isinstance(data["boards"], list) or len(data["boards"]) != n:
        raise ValueError(f"state.boards: expected {n} boards")
    boards = []
    for p, b in enumerate(data["boards"]):
        board = _ints(b, 0, top, f"boards[{p}]")
        if len(board) != rules.cells:
            raise ValueError(f"state.boards[{p}]: expected {rules.cells} cells, got {len(board)}")
        _check_board(board, size, f"boards[{p}]")
        boards.append(board)
    pool = _ints(data["pool"], 1, top, "pool")
    table = _ints(data["table"], 1, top, "table")
    player = as_int(data["player"], 0, n - 1, "state.player")
    try:
        phase = Phase(data["phase"])
    except ValueError:
        raise ValueError(f"state.phase: expected one of {[p.value for p in Phase]}, got {data['phase']!r}") from None
    hand = as_int(data["hand"], 0, top, "state.hand")
    drawn, extra = as_bool(data["drawn"], "state.drawn"), as_bool(data["extra"], "state.extra")
    turn = as_int(data["turn"], 0, 10**6, "state.turn")
    winners = _ints(data["winners"], 0, n - 1, "winners")
    ended_by = data["ended_by"]

    counts = Counter([t for b in boards for t in b if t] + pool + table + ([hand] if hand else []))
    wrong = [v for v in range(1, top + 1) if counts[v] != n]
    if wrong:
        raise ValueError(
            f"state: every number must appear {n} times over boards, pool, table and hand; numbers {wrong} do not"
        )
    diagonal_full = [all(b[k * (size + 1)] for k in range(size)) for b in boards]
    if phase is Phase.SETUP:
        if rules.setup != "michael":
            raise ValueError("state.phase: 'setup' exists only with Michael's setup")
        placed = [sum(1 for k in range(size) if b[k * (size + 1)]) for b in boards]
        want = [placed[player] + (1 if q < player else 0) for q in range(n)]
        if (
            placed != want
            or placed[player] >= size
            or any(v for b in boards for c, v in enumerate(b) if c % (size + 1))
        ):
            raise ValueError("state.boards: the setup has not reached this player's placement")
        if not hand or not drawn or extra or table:
            raise ValueError("state: during the setup a drawn tile is in hand and the table is empty")
    elif not all(diagonal_full) and phase is not Phase.OVER:
        raise ValueError("state.boards: after the setup every diagonal is full")
    if phase is Phase.SETUP and turn != 0:
        raise ValueError("state.turn: turns are counted from the end of the setup, so the setup is turn 0")
    if phase is not Phase.SETUP and player != turn % n:
        raise ValueError(
            f"state.player: players take turns in seat order from player 0, so turn {turn} is player {turn % n}'s"
        )
    if phase is Phase.PLACE and not hand:
        raise ValueError("state.hand: phase 'place' needs a tile in hand")
    if phase in (Phase.CHOOSE, Phase.OVER) and (hand or drawn):
        raise ValueError("state.hand: no tile is in hand in phase 'choose' or 'over'")
    if extra and (phase is not Phase.CHOOSE or not rules.bruno):
        raise ValueError("state.extra: an extra action exists only under Bruno's variant, in phase 'choose'")
    if phase is Phase.CHOOSE and not pool and not extra:
        raise ValueError("state.pool: a turn starts only while the pool holds tiles")
    if phase is Phase.OVER:
        if ended_by not in ("full", "pool") or not winners or len(set(winners)) != len(winners):
            raise ValueError("state: a finished game names how it ended ('full' or 'pool') and its winners")
        empty = [b.count(0) for b in boards]
        if ended_by == "full" and (len(winners) != 1 or empty[winners[0]] != 0):
            raise ValueError("state.winners: a game ended by a full board has that board's player as winner")
        if ended_by == "pool" and (pool or sorted(winners) != [p for p in range(n) if empty[p] == min(empty)]):
            raise ValueError("state.winners: a game ended by the pool is won by the fewest empty cells")
        if empty.count(0) != (ended_by == "full"):
            raise ValueError(
                "state.boards: the first full board ends the game, so only a game ended by a full "
                "board has one, and only one"
            )
    elif winners or ended_by is not None:
        raise ValueError("state: winners and ended_by are set only when the game is over")
    if phase is not Phase.OVER and any(b.count(0) == 0 for b in boards):
        raise ValueError("state.boards: a full board ends the game")

    game = cls(rules, 0)  # a blank game, then every field from the data
    game.boards = boards
    game._pool = pool[::-1]
    game.table = [table.count(v) for v in range(top + 1)]
    game.player, game.phase, game.hand, game.drawn, game.extra, game.turn = player, phase, hand, drawn, extra, turn
    game.winners, game.ended_by = sorted(winners), ended_by
    game._refresh_all()
    if phase is Phase.PLACE and not drawn and not game.legal_cells(player, hand):
        raise ValueError("state.hand: a tile taken from the table must have a legal cell")
    if extra and not pool and not any(game.table[v] and game.fits(player, v) for v in range(1, top + 1)):
        raise ValueError("state.extra: an extra action is granted only while a tile can still be drawn or taken")
    return game
