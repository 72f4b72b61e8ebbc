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
    n, top, cells = r.players, r.max_tile, r.cells
    out = np.zeros(observation_size(r), np.float32)
    lo, hi = game.bounds(seat)
    i = 0
    out[i : i + 2 * cells] = board_features(game, seat)
    i += 2 * cells
    out[i : i + cells] = np.asarray(lo, np.float32) / top
    out[i + cells : i + 2 * cells] = np.asarray(hi, np.float32) / (top + 1)
    i += 2 * cells
    for k in range(1, MAX_PLAYERS):
        if k < n:
            out[i : i + 2 * cells] = board_features(game, (seat + k) % n)
            out[i + 2 * cells] = 1.0
        i += 2 * cells + 1
    out[i : i + top] = np.asarray(game.table[1:], np.float32) / n
    i += top
    out[i] = game.pool_size / r.tiles
    i += 1
    if game.hand:
        out[i + game.hand - 1] = 1.0
    i += top
    out[i] = float(game.drawn)
    i += 1
    if game.phase is not Phase.OVER:
        out[i + (Phase.SETUP, Phase.CHOOSE, Phase.PLACE).index(game.phase)] = 1.0
    i += 3
    out[i] = float(game.extra)
    out[i + 1] = float(game.phase is not Phase.OVER and game.player == seat)
    return out
