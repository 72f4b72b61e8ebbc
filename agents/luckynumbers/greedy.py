"""The greedy agent: the placement that keeps the most room for future tiles (``value.py``). A
source is worth its best gain, the pool the expected best gain over the unseen tiles (never
their order); Bruno's extra action is always taken (a drawn tile may go to the table).
"""

from __future__ import annotations

import numpy as np

from luckynumbers_env.engine.actions import Phase
from luckynumbers_env.engine.game import Game

from .value import BoardValue, Weights


class GreedyPolicy:
    """One-step lookahead on the board value; deterministic."""

    name = "greedy"

    def __init__(
        self, fill: float = 1.0, room_weight: float = 0.25, dead: float = 0.6, discard_below: float = 0.0
    ) -> None:
        self.weights = Weights(fill, room_weight, dead)
        self.discard_below = float(discard_below)
        self._values: dict[tuple[int, int], BoardValue] = {}

    def reset(self, seed: int) -> None:
        pass

    def board_value(self, game: Game) -> BoardValue:
        key = (game.rules.size, game.rules.max_tile)
        if key not in self._values:
            self._values[key] = BoardValue(*key, self.weights)
        return self._values[key]

    def best_placement(self, game: Game, tile: int, before: dict[int, float] | None = None) -> tuple[float, int]:
        """(gain, cell) of the best legal cell for ``tile`` on the board of the player to act;
        ``before`` caches the value of each cell's row and column now, across tiles."""
        p = game.player
        ranked = self.board_value(game).ranked(game.boards[p], tile, game.bounds(p), {} if before is None else before)
        return ranked[0] if ranked else (-np.inf, -1)

    def draw_value(self, game: Game, before: dict[int, float] | None = None) -> float:
        unseen = game.unseen()
        total = sum(unseen)
        if not total:
            return -np.inf
        low = self.discard_below  # a drawn tile that gains less goes onto the table
        gains = (k * max(self.best_placement(game, v, before)[0], low) for v, k in enumerate(unseen) if k)
        return sum(gains) / total

    def act(self, game: Game, mask: np.ndarray) -> int:
        L = game.layout
        if game.phase is Phase.PLACE:
            gain, cell = self.best_placement(game, game.hand)
            if game.drawn and gain <= self.discard_below:
                return L.discard
            return L.place(cell)
        if game.phase is Phase.SETUP:
            bv, b = self.board_value(game), game.boards[game.player]
            free = [k for k in range(game.rules.size) if mask[L.setup(k)]]
            return L.setup(max(free, key=lambda k: bv.gain(b, k * (game.rules.size + 1), game.hand)))
        best, choice = -np.inf, L.stop
        before: dict[int, float] = {}
        if mask[L.draw]:
            best, choice = self.draw_value(game, before), L.draw
        for v in range(1, game.rules.max_tile + 1):
            if mask[L.take(v)]:
                gain, _ = self.best_placement(game, v, before)
                if gain > best:
                    best, choice = gain, L.take(v)
        return int(choice)
