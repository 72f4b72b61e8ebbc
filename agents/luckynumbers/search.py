"""The search agent: each candidate is worth the board value it leaves plus ``next_weight`` times
the expected gain of its next turn over tiles drawn from an imagined pool (never the real
order), less what the face-up tiles it leaves offer the opponents: most games end with a face-up
tile filling the winner's last cell, so handing one costs ``deny`` / (their empty cells)².
"""

from __future__ import annotations

import numpy as np

from luckynumbers_env.engine.actions import Phase
from luckynumbers_env.engine.game import Game

from .greedy import GreedyPolicy
from .value import BoardValue

FINISH = 10.0
"""The value of filling the board: it ends the game, so it outweighs any turn's gain."""


def _face_up(table: list[int]) -> int:
    """The numbers face up on the table, as a bit mask."""
    return sum(1 << v for v in range(1, len(table)) if table[v])


class SearchPolicy:
    """Sampled two-turn lookahead on the board value."""

    name = "search"

    def __init__(
        self,
        samples: int = 16,
        width: int = 3,
        next_weight: float = 0.5,
        table_weight: float = 0.5,
        draws: int = 6,
        deny: float = 4.0,
        copies: bool = True,
    ) -> None:
        if samples < 1 or width < 1 or draws < 1:
            raise ValueError("samples, width and draws must be >= 1")
        if deny < 0:
            raise ValueError("deny must be >= 0")
        if not isinstance(copies, bool):
            raise ValueError(f"copies must be true or false, got {copies!r}")
        self.samples, self.width, self.draws = int(samples), int(width), int(draws)
        self.next_weight, self.table_weight, self.deny = float(next_weight), float(table_weight), float(deny)
        self.copies = copies
        self.threats: list[tuple[int, float]] = []
        self.greedy = GreedyPolicy()
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def _board_value(self, game: Game) -> BoardValue:
        """The greedy's board value; with ``copies``, room counts only the tiles that can still come
        (unseen or face up), each number by its share of the players' sets."""
        if not self.copies:
            return self.greedy.board_value(game)
        n, unseen = game.rules.players, game.unseen()
        shares = [(unseen[v] + game.table[v]) / n for v in range(len(unseen))]
        return BoardValue(game.rules.size, game.rules.max_tile, self.greedy.weights, shares)

    def _opponent_threats(self, game: Game) -> list[tuple[int, float]]:
        """Per opponent: the tiles that fill one of their empty cells (a bit mask), and what letting
        them have one costs: ``deny`` / empty cells squared, so feeding a last cell costs most."""
        out = []
        for o in range(game.rules.players):
            if o == game.player or not self.deny:
                continue
            b, (lo, hi) = game.boards[o], game.bounds(o)
            bits = 0
            for c in range(len(b)):
                if not b[c] and hi[c] - lo[c] > 1:
                    bits |= (1 << hi[c]) - (1 << (lo[c] + 1))
            out.append((bits, self.deny / game.empty_cells(o) ** 2))
        return out

    def _threat(self, face_up: int) -> float:
        """What the face-up tiles left on the table (a bit mask) offer the opponents."""
        return sum(w for bits, w in self.threats if bits & face_up)

    def _next_turn(self, bv: BoardValue, b: list[int], table: list[int], tiles: list[int]) -> float:
        """Expected gain of the next turn on board ``b``: the sampled draws against the best face-up
        tile; a tile that fills the only empty cell is worth ``FINISH``."""
        bounds, before = bv.bounds(b), {}
        lo, hi = bounds
        empty = [c for c in range(len(b)) if not b[c]]
        last = empty[0] if len(empty) == 1 else -1
        gains: dict[int, float] = {}  # a number drawn twice gains the same

        def gain(tile: int) -> float:
            if tile not in gains:
                if last >= 0 and lo[last] < tile < hi[last]:
                    gains[tile] = FINISH
                else:
                    ranked = bv.ranked(b, tile, bounds, before)
                    gains[tile] = ranked[0][0] if ranked else 0.0
            return gains[tile]

        face_up = self.table_weight * max([0.0, *(gain(v) for v in range(1, len(table)) if table[v])])
        total = 0.0  # the opponents may take the face-up tile first: it counts at ``table_weight``
        for t in tiles:
            total += max(face_up, gain(t))
        return self.next_weight * total / len(tiles)

    def _place_value(
        self, bv: BoardValue, b: list[int], table: list[int], tile: int, drawn: bool, tiles: list[int]
    ) -> tuple[float, int]:
        """Best (value, cell) for ``tile`` in hand (cell -1: onto the table): gain now plus the next turn,
        less what the face-up tiles left offer the opponents; filling the board wins outright. Only the
        ``width`` cells best by gain less that offer are looked at further."""
        ranked = bv.ranked(b, tile, bv.bounds(b), {})
        if b.count(0) == 1 and any(not b[c] for _, c in ranked):
            return FINISH, next(c for _, c in ranked if not b[c])
        face_up = _face_up(table)
        best, where = -np.inf, -1
        if drawn:
            table[tile] += 1
            best = self._next_turn(bv, b, table, tiles) - self._threat(face_up | 1 << tile)
            table[tile] -= 1
        options = sorted(
            ((gain - self._threat(face_up | 1 << b[c] if b[c] else face_up), c) for gain, c in ranked),
            key=lambda vc: -vc[0],
        )
        for value, c in options[: self.width]:
            old = b[c]
            b[c] = tile
            if old:
                table[old] += 1
            value += self._next_turn(bv, b, table, tiles)
            if old:
                table[old] -= 1
            b[c] = old
            if value > best:
                best, where = value, c
        return best, where

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
        L, bv = game.layout, self._board_value(game)
        self.threats = self._opponent_threats(game)
        b, table = game.boards[game.player][:], game.table[:]
        tiles = self._sample(game, self.samples)
        next_tiles = tiles or [0]  # an empty pool: the next turn offers nothing
        if game.phase is Phase.PLACE:
            value, cell = self._place_value(bv, b, table, game.hand, game.drawn, next_tiles)
            return int(L.discard if cell < 0 else L.place(cell))
        best, choice = -np.inf, int(legal[0])
        if mask[L.stop]:
            best, choice = self._next_turn(bv, b, table, next_tiles) - self._threat(_face_up(table)), L.stop
        for v in range(1, game.rules.max_tile + 1):
            if mask[L.take(v)]:
                table[v] -= 1
                value, _ = self._place_value(bv, b, table, v, False, next_tiles)
                table[v] += 1
                if value > best:
                    best, choice = value, L.take(v)
        if mask[L.draw] and tiles:
            now = self._sample(game, self.draws)
            values = {u: self._place_value(bv, b, table, u, True, next_tiles)[0] for u in sorted(set(now))}
            value = float(np.mean([values[u] for u in now]))
            if value > best:
                best, choice = value, L.draw
        return int(choice)
