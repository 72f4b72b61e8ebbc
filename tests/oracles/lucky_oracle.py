"""A second, literal reading of the Lucky Numbers rules, kept apart from the engine: which
actions are legal, checked cell by cell and tile by tile. The engine's masks must agree."""

from __future__ import annotations

from luckynumbers_env.engine.actions import Phase, layout_for
from luckynumbers_env.engine.game import Game


def can_place(board: list[int], size: int, tile: int, row: int, col: int) -> bool:
    """Placement: strictly above every tile left and above, strictly below every tile right and
    below (empty cells ignored); a swap must change the number."""
    if board[row * size + col] == tile:
        return False
    for j in range(size):
        v = board[row * size + j]
        if v and ((j < col and not v < tile) or (j > col and not v > tile)):
            return False
    for i in range(size):
        v = board[i * size + col]
        if v and ((i < row and not v < tile) or (i > row and not v > tile)):
            return False
    return True


def has_placement(board: list[int], size: int, tile: int) -> bool:
    return any(can_place(board, size, tile, r, c) for r in range(size) for c in range(size))


def legal_actions(game: Game) -> set[int]:
    L, r, p = layout_for(game.rules), game.rules, game.player
    board, size = game.boards[p], r.size
    state = game.to_dict()
    out: set[int] = set()
    if state["phase"] == Phase.CHOOSE.value:
        if state["pool"]:
            out.add(L.draw)
        for tile in set(state["table"]):
            if has_placement(board, size, tile):
                out.add(L.take(tile))
        if state["extra"]:
            out.add(L.stop)
    elif state["phase"] == Phase.PLACE.value:
        for row in range(size):
            for col in range(size):
                if can_place(board, size, state["hand"], row, col):
                    out.add(L.place(row * size + col))
        if state["drawn"]:
            out.add(L.discard)
    elif state["phase"] == Phase.SETUP.value:
        out |= {L.setup(k) for k in range(size) if board[k * size + k] == 0}
    return out
