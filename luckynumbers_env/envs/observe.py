"""What one player sees, a flat vector of floats in [0, 1]: everything public, never the pool's
order (the layout is in ``docs/envs/lucky-numbers-v0.md``)."""

from __future__ import annotations

import numpy as np

from ..engine.actions import Phase
from ..engine.game import Game
from ..engine.rules import Rules

MAX_PLAYERS = 4


def observation_size(rules: Rules) -> int:
    cells, top = rules.cells, rules.max_tile
    return 4 * cells + (MAX_PLAYERS - 1) * (2 * cells + 1) + top + 1 + top + 1 + 3 + 1 + 1


def board_features(game: Game, p: int) -> np.ndarray:
    """What everyone sees of one board: tiles and empty cells."""
    b = np.asarray(game.boards[p], np.float32)
    return np.concatenate([b / game.rules.max_tile, b == 0])


def observe(game: Game, seat: int) -> np.ndarray:
    r = game.rules
    n, top, over = r.players, r.max_tile, game.phase is Phase.OVER
    lo, hi = game.bounds(seat)
    others = np.zeros((MAX_PLAYERS - 1, 2 * r.cells + 1), np.float32)  # left neighbour first, then padding
    for k in range(1, n):
        others[k - 1, :-1], others[k - 1, -1] = board_features(game, (seat + k) % n), 1.0
    hand, phase = np.zeros(top, np.float32), np.zeros(3, np.float32)
    if game.hand:
        hand[game.hand - 1] = 1.0
    if not over:
        phase[(Phase.SETUP, Phase.CHOOSE, Phase.PLACE).index(game.phase)] = 1.0
    parts = [board_features(game, seat), np.asarray(lo, np.float32) / top, np.asarray(hi, np.float32) / (top + 1)]
    parts += [others.ravel(), np.asarray(game.table[1:], np.float32) / n, [game.pool_size / r.tiles], hand]
    parts += [[float(game.drawn)], phase, [float(game.extra), float(not over and game.player == seat)]]
    return np.concatenate(parts).astype(np.float32)
