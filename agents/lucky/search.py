"""The search agent: a two-turn lookahead that samples the unknown pool.

Every candidate (a cell for the tile in hand, putting it on the table, a face-up tile, or
drawing) is worth the board value it leaves (``value.py``) plus ``next_weight`` times the
expected gain of the agent's next turn (a turn later is worth less: the game is a race): for each of ``samples`` tiles drawn from an imagined pool (the unseen
tiles reshuffled, never the real order), the better of placing that tile where it gains
most and taking the best face-up tile left on the table (its gain times ``table_weight``:
the opponents may take it first), or nothing. A draw now is itself
averaged over sampled tiles, each placed by the same lookahead. Only the ``width`` best
cells by one-turn gain are looked at further. Seeded by ``reset(seed)``: the same game and
seed give the same play.
"""

from __future__ import annotations

import numpy as np

from luckynumbers_env.actions import Phase
from luckynumbers_env.engine import Game

from .greedy import GreedyPolicy
from .value import BoardValue


class SearchPolicy:
    """Sampled two-turn lookahead on the board value."""

    name = "search"

    def __init__(self, samples: int = 8, width: int = 3, next_weight: float = 0.5, table_weight: float = 0.5) -> None:
        if samples < 1 or width < 1:
            raise ValueError("samples and width must be >= 1")
        self.samples, self.width = int(samples), int(width)
        self.next_weight, self.table_weight = float(next_weight), float(table_weight)
        self.greedy = GreedyPolicy()
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    # ------------------------------------------------------------ raw boards
    def _bounds(self, bv: BoardValue, b: list[int]) -> tuple[list[int], list[int]]:
        size = bv.size
        rows = [bv._line(tuple(b[r * size:(r + 1) * size])) for r in range(size)]
        cols = [bv._line(tuple(b[k::size])) for k in range(size)]
        lo, hi = [], []
        for c in range(len(b)):
            r, k = divmod(c, size)
            lo.append(max(rows[r][0][k], cols[k][0][r]))
            hi.append(min(rows[r][1][k], cols[k][1][r]))
        return lo, hi

    def _ranked(self, bv: BoardValue, b: list[int], tile: int, bounds, before: dict[int, float]) -> list[tuple[float, int]]:
        """(gain, cell) of every legal cell for ``tile``, best first."""
        lo, hi = bounds
        out = []
        for c in range(len(b)):
            if lo[c] < tile < hi[c] and b[c] != tile:
                if c not in before:
                    before[c] = bv.cell_values(b, bv.lines[c])
                old = b[c]
                b[c] = tile
                out.append((bv.cell_values(b, bv.lines[c]) - before[c], c))
                b[c] = old
        out.sort(key=lambda gc: -gc[0])
        return out

    def _next_turn(self, bv: BoardValue, b: list[int], table: list[int], tiles: list[int]) -> float:
        """Expected gain of the next turn on board ``b``: the sampled draws against the best face-up tile."""
        bounds, before = self._bounds(bv, b), {}
        face_up = 0.0
        for v in range(1, len(table)):
            if table[v]:
                ranked = self._ranked(bv, b, v, bounds, before)
                if ranked and ranked[0][0] > face_up:
                    face_up = ranked[0][0]
        face_up *= self.table_weight  # the opponents may take it first
        total = 0.0
        for t in tiles:
            ranked = self._ranked(bv, b, t, bounds, before)
            total += max(face_up, ranked[0][0] if ranked else 0.0, 0.0)
        return self.next_weight * total / len(tiles)

    def _place_value(self, bv: BoardValue, b: list[int], table: list[int], tile: int, drawn: bool,
                     tiles: list[int]) -> tuple[float, int]:
        """Best (value, cell) for ``tile`` in hand (cell -1: onto the table): gain now plus the next turn."""
        ranked = self._ranked(bv, b, tile, self._bounds(bv, b), {})[:self.width]
        best, where = -np.inf, -1
        if drawn:
            table[tile] += 1
            best = self._next_turn(bv, b, table, tiles)
            table[tile] -= 1
        for gain, c in ranked:
            old = b[c]
            b[c] = tile
            if old:
                table[old] += 1
            value = gain + self._next_turn(bv, b, table, tiles)
            if old:
                table[old] -= 1
            b[c] = old
            if value > best:
                best, where = value, c
        return best, where

    # ------------------------------------------------------------ decisions
    def _sample(self, game: Game, k: int) -> list[int]:
        imagined = game.determinized(self.rng).pool_order()  # the unseen tiles in a random order
        if not imagined:
            return []
        return imagined[:k] if len(imagined) >= k else list(self.rng.choice(imagined, k))

    def act(self, game: Game, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        if game.phase is Phase.SETUP:
            return self.greedy.act(game, mask)
        L, bv = game.layout, self.greedy.board_value(game)
        b, table = game.boards[game.player][:], game.table[:]
        tiles = self._sample(game, self.samples) or [0]
        if tiles == [0]:  # an empty pool: the next turn offers nothing
            tiles = []
        next_tiles = tiles if tiles else [0]
        if game.phase is Phase.PLACE:
            value, cell = self._place_value(bv, b, table, game.hand, game.drawn, next_tiles)
            return int(L.discard if cell < 0 else L.place(cell))
        best, choice = -np.inf, int(legal[0])
        if mask[L.stop]:
            best, choice = self._next_turn(bv, b, table, next_tiles), L.stop
        for v in range(1, game.rules.max_tile + 1):
            if mask[L.take(v)]:
                table[v] -= 1
                value, _ = self._place_value(bv, b, table, v, False, next_tiles)
                table[v] += 1
                if value > best:
                    best, choice = value, L.take(v)
        if mask[L.draw] and tiles:
            now = self._sample(game, max(2, self.samples // 3))
            value = float(np.mean([self._place_value(bv, b, table, u, True, next_tiles)[0] for u in now]))
            if value > best:
                best, choice = value, L.draw
        return int(choice)
