"""The rules of Lucky Numbers: ``Game(rules, seed)`` (the seed shuffles the pool, the game's only
randomness). Boards are row-major lists, 0 for empty; per cell the engine keeps the largest tile
before it and the smallest after it in its row and column, so legality is two comparisons.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import numpy as np

from .actions import ActionLayout, Phase, describe, layout_for
from .persist import game_from_dict, game_to_dict
from .rules import DEFAULT_RULES, Rules


@lru_cache(maxsize=16)
def geometry(size: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per cell: its diagonal neighbours, and the cells of its row and column (itself included)."""
    diag, lines = [], []
    for c in range(size * size):
        r, k = divmod(c, size)
        diag.append(
            tuple(
                (r + dr) * size + k + dk
                for dr in (-1, 1)
                for dk in (-1, 1)
                if 0 <= r + dr < size and 0 <= k + dk < size
            )
        )
        lines.append(tuple(sorted({r * size + j for j in range(size)} | {i * size + k for i in range(size)})))
    return tuple(diag), tuple(lines)


@cache
def line_bounds(line: tuple[int, ...], top: int) -> tuple[list[int], list[int]]:
    """Per cell of one row or column: the largest tile before it (0 if none) and the
    smallest after it (``top`` if none); empty cells (0) are skipped. Cached: few lines recur
    (read only)."""
    lows, highs = [], []
    low = 0
    for v in line:
        lows.append(low)
        if v > low:
            low = v
    high = top
    for v in reversed(line):
        highs.append(high)
        if v and v < high:
            high = v
    return lows, highs[::-1]


class Game:
    """One game of Lucky Numbers, from the setup to the end."""

    def __init__(self, rules: Rules = DEFAULT_RULES, seed: int | np.random.Generator | None = None) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
        self.rules = rules
        self.layout: ActionLayout = layout_for(rules)
        self._diag, self._lines = geometry(rules.size)
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        tiles = np.repeat(np.arange(1, rules.max_tile + 1), rules.players)
        order = rng.permutation(tiles).tolist()
        self._pool: list[int] = order[::-1]  # the next tile is the last one: pop() draws it
        self.boards: list[list[int]] = [[0] * rules.cells for _ in range(rules.players)]
        self.table: list[int] = [0] * (rules.max_tile + 1)
        """Face-up tiles on the table: how many of each number."""
        self.player = 0
        self.phase = Phase.CHOOSE
        self.hand = 0
        """The tile being placed (0 when none)."""
        self.drawn = False
        """Whether the tile in hand came from the pool (only a drawn tile may go on the table)."""
        self.extra = False
        """Bruno's variant: the player may take another action or stop."""
        self.turn = 0
        self.winners: list[int] = []
        self.ended_by: str | None = None
        self._refresh_all()
        if rules.setup == "standard":
            for p in range(rules.players):  # player 0 takes the first tiles, then player 1, ...
                diagonal = sorted(self._pool.pop() for _ in range(rules.size))
                for k, tile in enumerate(diagonal):
                    self.boards[p][k * (rules.size + 1)] = tile
                self._refresh(p)
        else:
            self.phase = Phase.SETUP
            self.hand, self.drawn = self._pool.pop(), True

    # ------------------------------------------------------------ derived tables
    def _refresh_all(self) -> None:
        n, cells = self.rules.players, self.rules.cells
        self._lo = [[0] * cells for _ in range(n)]
        self._hi = [[0] * cells for _ in range(n)]
        self._line_bounds = [[[0] * cells for _ in range(4)] for _ in range(n)]
        self._placeable = [0] * n
        self._empty = [cells] * n
        for p in range(n):
            self._refresh(p)

    def _refresh(self, p: int, cell: int | None = None) -> None:
        """Recompute player ``p``'s bounds (every cell, or the row and column of ``cell``) and the
        bit mask of numbers that fit somewhere."""
        b, size = self.boards[p], self.rules.size
        lo, hi = self._lo[p], self._hi[p]
        rlo, rhi, clo, chi = self._line_bounds[p]
        top = self.rules.max_tile + 1
        rows = range(size) if cell is None else (cell // size,)
        cols = range(size) if cell is None else (cell % size,)
        for r in rows:
            row = slice(r * size, (r + 1) * size)
            rlo[row], rhi[row] = line_bounds(tuple(b[row]), top)
        n = len(b)
        for k in cols:
            clo[k:n:size], chi[k:n:size] = line_bounds(tuple(b[k:n:size]), top)
        for c in range(n) if cell is None else self._lines[cell]:
            lo[c] = rlo[c] if rlo[c] > clo[c] else clo[c]
            hi[c] = rhi[c] if rhi[c] < chi[c] else chi[c]
        fits = 0
        for c in range(n):
            if hi[c] - lo[c] > 1:
                fits |= ((1 << hi[c]) - (1 << (lo[c] + 1))) & ~(1 << b[c])
        self._placeable[p] = fits
        self._empty[p] = b.count(0)

    # ------------------------------------------------------------ queries
    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def pool_size(self) -> int:
        return len(self._pool)

    def pool_order(self) -> list[int]:
        """The hidden pool, next tile first (for saving a game; agents must not look)."""
        return self._pool[::-1]

    def face_up(self) -> list[int]:
        """The face-up tiles on the table, ascending."""
        return [v for v in range(1, len(self.table)) for _ in range(self.table[v])]

    def empty_cells(self, p: int) -> int:
        return self._empty[p]

    def bounds(self, p: int) -> tuple[list[int], list[int]]:
        """Per cell of player ``p``: a tile placed there must be above ``lo`` and below ``hi``."""
        return self._lo[p], self._hi[p]

    def fits(self, p: int, tile: int) -> bool:
        """Whether ``tile`` has a legal cell (empty or swap) on player ``p``'s board."""
        return bool(self._placeable[p] >> tile & 1)

    def legal_cells(self, p: int, tile: int) -> list[int]:
        b, lo, hi = self.boards[p], self._lo[p], self._hi[p]
        return [c for c in range(len(b)) if lo[c] < tile < hi[c] and b[c] != tile]

    def unseen(self) -> list[int]:
        """How many of each number nobody can see: the pool as a multiset (public knowledge)."""
        counts = [0] * (self.rules.max_tile + 1)
        for v in self._pool:
            counts[v] += 1
        return counts

    def legal_actions(self) -> list[int]:
        L, p = self.layout, self.player
        if self.phase is Phase.CHOOSE:
            fits, table = self._placeable[p], self.table
            out = [v for v in range(1, len(table)) if table[v] and fits >> v & 1]
            if self._pool:
                out.insert(0, 0)  # draw
            if self.extra:
                out.append(L.stop)
            return out
        if self.phase is Phase.PLACE:
            out = [L.place0 + c for c in self.legal_cells(p, self.hand)]
            if self.drawn:
                out.append(L.discard)
            return out
        if self.phase is Phase.SETUP:
            b, step = self.boards[p], self.rules.size + 1
            return [L.setup0 + k for k in range(self.rules.size) if b[k * step] == 0]
        return []

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.layout.n, bool)
        mask[self.legal_actions()] = True
        return mask

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal for the player to act (``TypeError``/``ValueError`` outside the space)."""
        return self._legal(*self.layout.decode(action))

    def _legal(self, kind: str, arg: int) -> bool:
        p, ph = self.player, self.phase
        if ph is Phase.PLACE:
            if kind == "place":
                return self._lo[p][arg] < self.hand < self._hi[p][arg] and self.boards[p][arg] != self.hand
            return kind == "discard" and self.drawn
        if ph is Phase.CHOOSE:
            if kind == "draw":
                return bool(self._pool)
            if kind == "take":
                return self.table[arg] > 0 and self._placeable[p] >> arg & 1 == 1
            return kind == "stop" and self.extra
        if ph is Phase.SETUP:
            return kind == "setup" and self.boards[p][arg * (self.rules.size + 1)] == 0
        return False

    def describe_action(self, action: int) -> str:
        kind, arg = self.layout.decode(action)
        occupant = self.boards[self.player][arg] if kind == "place" else 0
        return describe(self.rules, action, self.hand or None, occupant)

    def scores(self) -> np.ndarray:
        """Tournament score: +2 for each winner, minus the empty cells for everyone else (zeros before the end)."""
        out = np.zeros(self.rules.players)
        if self.over:
            for p in range(self.rules.players):
                out[p] = 2 if p in self.winners else -self._empty[p]
        return out

    # ------------------------------------------------------------ playing
    def step(self, action: int) -> np.ndarray:
        """Play one action of the player to act; the rewards of every player."""
        if self.phase is Phase.OVER:
            raise ValueError("the game is over")
        kind, arg = self.layout.decode(action)
        if not self._legal(kind, arg):
            raise ValueError(
                f"player {self.player}: action {int(action)} ({self.describe_action(action)}) "
                f"is not legal in phase {self.phase.value!r}"
            )
        if kind == "draw":
            self.hand, self.drawn, self.extra = self._pool.pop(), True, False
            self.phase = Phase.PLACE
        elif kind == "take":
            self.table[arg] -= 1
            self.hand, self.drawn, self.extra = arg, False, False
            self.phase = Phase.PLACE
        elif kind == "place":
            self._place(arg)
        elif kind == "discard":
            self.table[self.hand] += 1
            self.hand, self.drawn = 0, False
            self._end_turn()
        elif kind == "stop":
            self._end_turn()
        else:
            self._setup(arg)
        return self.scores() if self.phase is Phase.OVER else np.zeros(self.rules.players)

    def _place(self, cell: int) -> None:
        p, b, tile = self.player, self.boards[self.player], self.hand
        if b[cell]:
            self.table[b[cell]] += 1  # a swap: the old tile goes face up on the table
        b[cell] = tile
        self.hand, self.drawn = 0, False
        self._refresh(p, cell)
        if self._empty[p] == 0:
            self._finish([p], "full")
            return
        if self.rules.bruno and any(b[d] == tile for d in self._diag[cell]):
            if self._pool or any(self.table[v] and self._placeable[p] >> v & 1 for v in range(1, len(self.table))):
                self.phase, self.extra = Phase.CHOOSE, True
                return
        self._end_turn()

    def _setup(self, k: int) -> None:
        n, size = self.rules.players, self.rules.size
        self.boards[self.player][k * (size + 1)] = self.hand
        self._refresh(self.player, k * (size + 1))
        self.hand, self.drawn = 0, False
        self.player = (self.player + 1) % n
        if self.player == 0 and all(all(b[i * (size + 1)] for i in range(size)) for b in self.boards):
            self.phase = Phase.CHOOSE
        else:
            self.hand, self.drawn = self._pool.pop(), True

    def _end_turn(self) -> None:
        self.extra = False
        if not self._pool:  # the player who drew the last tile has finished their turn
            fewest = min(self._empty)
            self._finish([p for p in range(self.rules.players) if self._empty[p] == fewest], "pool")
            return
        self.player = (self.player + 1) % self.rules.players
        self.phase = Phase.CHOOSE
        self.turn += 1

    def _finish(self, winners: list[int], how: str) -> None:
        self.winners, self.ended_by = winners, how
        self.phase, self.extra = Phase.OVER, False

    # ------------------------------------------------------------ copies and states
    def clone(self) -> Game:
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g._pool = self._pool[:]
        g.boards = [b[:] for b in self.boards]
        g.table = self.table[:]
        g._lo = [x[:] for x in self._lo]
        g._hi = [x[:] for x in self._hi]
        g._line_bounds = [[x[:] for x in q] for q in self._line_bounds]
        g._placeable = self._placeable[:]
        g._empty = self._empty[:]
        g.winners = self.winners[:]
        return g

    def determinized(self, rng: np.random.Generator) -> Game:
        """A copy whose pool is reshuffled: what a player may imagine without seeing its order."""
        g = self.clone()
        g._pool.sort()  # the real order must not leak into the imagined one
        rng.shuffle(g._pool)
        return g

    def to_dict(self) -> dict[str, Any]:
        """The whole game as plain JSON-safe data, the hidden pool order included."""
        return game_to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """Rebuild a game; a malformed or unreachable state raises ``ValueError``/``TypeError``."""
        return game_from_dict(cls, data)
