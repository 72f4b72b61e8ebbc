"""The table as text: every board, the face-up tiles, the pool and the tile in hand."""

from __future__ import annotations

from ..engine.actions import Phase
from ..engine.game import Game


def render_text(game: Game) -> str:
    r = game.rules
    head = [
        f"Lucky Numbers ({r.players} players, {r.setup} setup{', Bruno' if r.bruno else ''})  turn {game.turn}  "
        f"pool {game.pool_size}  table {game.face_up() or '-'}"
    ]
    if game.phase is Phase.OVER:
        head.append(
            f"game over ({'a full board' if game.ended_by == 'full' else 'the pool is empty'}); "
            f"winners {game.winners}; scores {game.scores().astype(int).tolist()}"
        )
    else:
        hand = f", tile in hand {game.hand} ({'drawn' if game.drawn else 'taken'})" if game.hand else ""
        head.append(f"player {game.player} to act: {game.phase.value}{' (extra action)' if game.extra else ''}{hand}")
    for p, b in enumerate(game.boards):
        head.append(f"--- player {p} ({game.empty_cells(p)} empty)")
        for row in range(r.size):
            head.append(" ".join(f"{v:>2}" if v else " ." for v in b[row * r.size : (row + 1) * r.size]))
    return "\n".join(head)
