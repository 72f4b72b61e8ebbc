"""An afterstate value of a Lucky Numbers board as a sum of table lookups (n-tuple style), its
TD(lambda) self-play learner, and the ``ntuple`` agent that plays the candidate of best value.

The *afterstate* of a turn is what it leaves: the seat's 4x4 board, the face-up tiles, the pool's
size and the opponents' boards (unchanged during the turn). Its value, the seat's expected reward
at the end (``reward``), is a base, ``share`` times the greedy agent's board value less a full
board's (so the untrained value plays about as the greedy does), plus one weight per lookup, read
from tables indexed by small facts:

- ``lines``: each row and each column as its four cell codes; row k and column k share a table
  (the transposed board is the same position, since the rules treat rows and columns alike);
- ``diagonals``: the diagonal and the anti-diagonal, a table each;
- ``squares``: each 2x2 block, a block and its transposed twin sharing a table;
- ``race``: the seat's empty cells, the fewest of any opponent (up to 8), the pool's stage (8
  bands of its size) and the number of players: how close the end is and who is ahead;
- ``offer``: the seat's empty cells, the fewest empty cells of an opponent whom a face-up tile
  could fill an empty cell of (none, 1, 2, 3, 4+), and how many face-up numbers fill an empty
  cell of the seat's own (0, 1, 2+): the face-up tiles decide most games.

A cell's code is its tile in ``VALUE_BINS`` bands of 1..max_tile, or for an empty cell its room
(how many numbers fit there between its bounds) in ``ROOM_BINS`` bands. A board that ends the game
(full, or the pool empty at the end of the turn) is worth its known score and reads no table.

Each turn the agent values every candidate in one compiled call per phase: each face-up tile on
its best cell; drawing as the mean over the unseen tiles (the pool as a multiset, never its order)
of the best of their cells and putting them on the table. The plain-Python reference the tests
hold this code to is in ``tests/agents/luckynumbers/test_ntuple.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from luckynumbers_env.engine.actions import Phase
from luckynumbers_env.engine.game import Game
from luckynumbers_env.engine.rules import Rules

from .. import registry
from ..base import MODELS
from .value import Weights

SIZE = 4
"""The value reads a 4x4 board (the game's default)."""
CELLS = SIZE * SIZE
VALUE_BINS = 7
"""A tile's code: its band among ``VALUE_BINS`` equal bands of 1..max_tile."""
ROOM_OF = np.array([0, 1, 2, 2, 3, 3, 3, 4], np.int64)
"""An empty cell's room band by its room (7 or more: the last band)."""
ROOM_BINS = 5
CODES = VALUE_BINS + ROOM_BINS
"""Codes of one cell: a tile's band, or ``VALUE_BINS`` plus an empty cell's room band."""
STAGES = 8
"""The pool's size in equal bands of its size after the setup."""
OPPONENT_CAP = 8
"""The fewest empty cells of an opponent, read up to this."""
THREAT_CODES = 5
"""0: no face-up tile fills an opponent's empty cell; else the fewest empty cells of such an
opponent, 1..3, or 4 for 4 or more."""
MINE_CODES = 3
"""Face-up numbers that fill an empty cell of the seat's own: 0, 1, 2 or more."""
PLAYER_CODES = 3
"""2, 3 or 4 players."""
WIN = 2.0
"""The tournament score of a winner; the learner's reward splits it among tied winners."""

_GREEDY = Weights()
FILL, ROOM_WEIGHT, DEAD = _GREEDY.fill, _GREEDY.room_weight, _GREEDY.dead
"""The greedy agent's board value (``value.py``), the base the tables correct."""

FAMILIES = ("lines", "diagonals", "squares", "race", "offer")
"""The table families, in the order their tables lie in the weights."""
LINE_TABLE = CODES**SIZE

# the cells of each lookup of a board, per family: (table within the family, cells in read order)
_LINES = [(k, [k * SIZE + j for j in range(SIZE)]) for k in range(SIZE)] + [
    (k, [i * SIZE + k for i in range(SIZE)]) for k in range(SIZE)
]
_DIAGONALS = [(0, [i * (SIZE + 1) for i in range(SIZE)]), (1, [(i + 1) * (SIZE - 1) for i in range(SIZE)])]
_SQUARE_TABLE = {(0, 0): 0, (1, 1): 1, (2, 2): 2, (0, 1): 3, (0, 2): 4, (1, 2): 5}


def _squares() -> list[tuple[int, list[int]]]:
    """Each 2x2 block by its top-left cell (i, j); the block (j, i) is read transposed, so the
    two read one table the same way."""
    out = []
    for i in range(SIZE - 1):
        for j in range(SIZE - 1):
            a, b, c, d = i * SIZE + j, i * SIZE + j + 1, (i + 1) * SIZE + j, (i + 1) * SIZE + j + 1
            cells = [a, b, c, d] if i <= j else [a, c, b, d]
            out.append((_SQUARE_TABLE[(min(i, j), max(i, j))], cells))
    return out


TUPLES = {"lines": _LINES, "diagonals": _DIAGONALS, "squares": _squares()}
"""The cells each table lookup of a board reads, per tuple family."""
TABLES = {
    "lines": [LINE_TABLE] * SIZE,
    "diagonals": [LINE_TABLE] * 2,
    "squares": [LINE_TABLE] * len(_SQUARE_TABLE),
    "race": [PLAYER_CODES * STAGES * (CELLS + 1) * (OPPONENT_CAP + 1)],
    "offer": [PLAYER_CODES * (CELLS + 1) * THREAT_CODES * MINE_CODES],
}
"""The size of each table, per family."""

TAKE, HAND, DRAWN = 0, 1, 2
"""Where a valued tile comes from: taken from the table now (the table loses it), already in hand
from the table, or drawn (it may go face up on the table instead)."""


@dataclass(frozen=True)
class NTupleSpec:
    """Which table families the value reads."""

    families: tuple[str, ...] = FAMILIES

    def __post_init__(self) -> None:
        if (
            not isinstance(self.families, tuple)
            or not self.families
            or len(set(self.families)) != len(self.families)
            or any(f not in FAMILIES for f in self.families)
        ):
            raise ValueError(f"families must be a tuple of distinct names among {FAMILIES}, got {self.families!r}")


class Layout:
    """Where each table lies in the flat weights, and the lookups of a board as arrays for the
    compiled code: per tuple lookup its table start and four cells (``tuples``), and the starts of
    the two context tables (-1 when off)."""

    def __init__(self, spec: NTupleSpec = NTupleSpec()) -> None:
        self.spec = spec
        starts: dict[str, list[int]] = {}
        size = 0
        for family in FAMILIES:
            if family in spec.families:
                starts[family] = []
                for n in TABLES[family]:
                    starts[family].append(size)
                    size += n
        self.size, self.starts = size, starts
        rows = [
            [starts[f][k], *cells] for f in ("lines", "diagonals", "squares") if f in starts for k, cells in TUPLES[f]
        ]
        self.tuples = np.array(rows, np.int64).reshape(-1, 1 + SIZE)
        self.race = starts["race"][0] if "race" in starts else -1
        self.offer = starts["offer"][0] if "offer" in starts else -1
        self.lookups = len(self.tuples) + (self.race >= 0) + (self.offer >= 0)
        """Lookups of a board that does not end the game."""


# ---------------------------------------------------------------------------- compiled kernels
@njit(cache=True)
def _bounds(board, top, lo, hi):
    """Per cell: the largest tile before it (left in its row, above in its column; 0 if none) and
    the smallest after it (``top`` if none), as the engine keeps them."""
    for c in range(CELLS):
        lo[c] = 0
        hi[c] = top
    for r in range(SIZE):
        for step, first in ((1, r * SIZE), (SIZE, r)):  # row r, then column r
            m = 0
            for j in range(SIZE):
                c = first + j * step
                if m > lo[c]:
                    lo[c] = m
                if board[c] > m:
                    m = board[c]
            m = top
            for j in range(SIZE - 1, -1, -1):
                c = first + j * step
                if m < hi[c]:
                    hi[c] = m
                if board[c] and board[c] < m:
                    m = board[c]


@njit(cache=True)
def _fit_bits(board, lo, hi):
    """The numbers that fit an empty cell of the board, as a bit mask."""
    bits = 0
    for c in range(CELLS):
        if board[c] == 0 and hi[c] - lo[c] > 1:
            bits |= (1 << hi[c]) - (1 << (lo[c] + 1))
    return bits


@njit(cache=True)
def _code(v, lo, hi, max_tile):
    if v:
        return (v - 1) * VALUE_BINS // max_tile
    room = hi - lo - 1
    return VALUE_BINS + ROOM_OF[min(max(room, 0), len(ROOM_OF) - 1)]


@njit(cache=True)
def _terminal(empty, pool_after, opp_empty):
    """The known reward of a board that ends the game (NaN when it does not): ``WIN`` for a full
    board; when the pool is empty, ``WIN`` shared by the seats with the fewest empty cells, else
    minus the empty cells."""
    if empty == 0:
        return WIN
    if pool_after == 0:
        tied = 1
        for o in range(len(opp_empty)):
            if opp_empty[o] < empty:
                return -float(empty)
            if opp_empty[o] == empty:
                tied += 1
        return WIN / tied
    return np.nan


@njit(cache=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def _lookups(
    board, table_bits, pool_after, opp_empty, opp_bits, players, pool_start, max_tile, tuples, race, offer, lo, hi, out
):
    """Write the lookups of a board that does not end the game into ``out``; returns how many."""
    _bounds(board, max_tile + 1, lo, hi)
    n = 0
    for t in range(tuples.shape[0]):
        idx = 0
        for j in range(SIZE):
            c = tuples[t, 1 + j]
            idx = idx * CODES + _code(board[c], lo[c], hi[c], max_tile)
        out[n] = tuples[t, 0] + idx
        n += 1
    empty = 0
    for c in range(CELLS):
        if board[c] == 0:
            empty += 1
    opp_min = CELLS
    threat = CELLS + 1
    for o in range(len(opp_empty)):
        if opp_empty[o] < opp_min:
            opp_min = opp_empty[o]
        if opp_bits[o] & table_bits and opp_empty[o] < threat:
            threat = opp_empty[o]
    p = players - 2
    if race >= 0:
        stage = min(pool_after * STAGES // pool_start, STAGES - 1)
        out[n] = race + ((p * STAGES + stage) * (CELLS + 1) + empty) * (OPPONENT_CAP + 1) + min(opp_min, OPPONENT_CAP)
        n += 1
    if offer >= 0:
        t_code = 0 if threat > CELLS else min(threat, THREAT_CODES - 1)
        mine = min(_popcount(_fit_bits(board, lo, hi) & table_bits), MINE_CODES - 1)
        out[n] = offer + ((p * (CELLS + 1) + empty) * THREAT_CODES + t_code) * MINE_CODES + mine
        n += 1
    return n


@njit(cache=True)
def _base(board, lo, hi):
    """The greedy's board value less a full board's (``FILL`` per cell), on the scale of the
    reward: per empty cell ``-FILL`` plus ``ROOM_WEIGHT`` * sqrt(room), or ``-DEAD`` without room."""
    total = 0.0
    for c in range(CELLS):
        if board[c] == 0:
            room = hi[c] - lo[c] - 1
            total += -FILL + (ROOM_WEIGHT * np.sqrt(room) if room > 0 else -DEAD)
    return total


@njit(cache=True)
def _value(
    weights,
    share,
    board,
    table_bits,
    pool_after,
    opp_empty,
    opp_bits,
    players,
    pool_start,
    max_tile,
    tuples,
    race,
    offer,
    lo,
    hi,
    out,
):
    """The value of one afterstate: its known reward if it ends the game, else ``share`` times its
    base plus its lookups' sum."""
    empty = 0
    for c in range(CELLS):
        if board[c] == 0:
            empty += 1
    known = _terminal(empty, pool_after, opp_empty)
    if not np.isnan(known):
        return known
    n = _lookups(
        board,
        table_bits,
        pool_after,
        opp_empty,
        opp_bits,
        players,
        pool_start,
        max_tile,
        tuples,
        race,
        offer,
        lo,
        hi,
        out,
    )
    v = share * _base(board, lo, hi) if share else 0.0
    for a in range(n):
        v += weights[out[a]]
    return v


@njit(cache=True)
def _tile_values(
    weights,
    share,
    board,
    tiles,
    table,
    mode,
    pool_after,
    opp_empty,
    opp_bits,
    players,
    pool_start,
    max_tile,
    tuples,
    race,
    offer,
    best,
    where,
):
    """For each tile: the best afterstate value over its legal cells (and, drawn, the table), and
    that cell (-1: the table; -2: nowhere). ``table`` holds how many of each number are face up."""
    lo = np.zeros(CELLS, np.int64)
    hi = np.zeros(CELLS, np.int64)
    blo = np.zeros(CELLS, np.int64)
    bhi = np.zeros(CELLS, np.int64)
    out = np.zeros(tuples.shape[0] + 2, np.int64)
    _bounds(board, max_tile + 1, blo, bhi)
    face_up = 0
    for v in range(1, len(table)):
        if table[v] > 0:
            face_up |= 1 << v
    for i in range(len(tiles)):
        t = tiles[i]
        bits = face_up
        if mode == TAKE and table[t] <= 1:
            bits &= ~(1 << t)
        best[i] = -np.inf
        where[i] = -2
        for c in range(CELLS):
            if blo[c] < t < bhi[c] and board[c] != t:
                old = board[c]
                board[c] = t
                b2 = bits | (1 << old) if old else bits
                v = _value(
                    weights,
                    share,
                    board,
                    b2,
                    pool_after,
                    opp_empty,
                    opp_bits,
                    players,
                    pool_start,
                    max_tile,
                    tuples,
                    race,
                    offer,
                    lo,
                    hi,
                    out,
                )
                board[c] = old
                if v > best[i]:
                    best[i] = v
                    where[i] = c
        if mode == DRAWN:
            v = _value(
                weights,
                share,
                board,
                bits | (1 << t),
                pool_after,
                opp_empty,
                opp_bits,
                players,
                pool_start,
                max_tile,
                tuples,
                race,
                offer,
                lo,
                hi,
                out,
            )
            if v > best[i]:
                best[i] = v
                where[i] = -1


@njit(cache=True)
def td_lambda(weights, lookups, n_lookups, base, final, lam, alpha):
    """The TD(lambda) update of one seat's afterstates, in turn order, from its final score.

    An afterstate's value is its ``base`` plus its lookups' weights. Targets first, from the
    values as the weights stand: the last afterstate's is ``final``, each
    earlier one's ``(1 - lam)`` times the next afterstate's value plus ``lam`` times the next
    one's target (a board that ended the game, ``n_lookups`` 0, is worth ``final``). Then each
    afterstate in turn moves ``alpha`` of the way to its target, the step shared evenly by its
    lookups. Returns the sum of squared errors."""
    steps = len(n_lookups)
    values = np.zeros(steps)
    for t in range(steps):
        values[t] = final if n_lookups[t] == 0 else base[t]
        for a in range(n_lookups[t]):
            values[t] += weights[lookups[t, a]]
    targets = np.zeros(steps)
    g = final
    for t in range(steps - 1, -1, -1):
        targets[t] = g
        g = (1.0 - lam) * values[t] + lam * g
    sse = 0.0
    for t in range(steps):
        m = n_lookups[t]
        if m == 0:
            continue
        v = base[t]
        for a in range(m):
            v += weights[lookups[t, a]]
        err = targets[t] - v
        sse += err * err
        step = alpha * err / m
        for a in range(m):
            weights[lookups[t, a]] += step
    return sse


# ---------------------------------------------------------------------------- the value
@dataclass(frozen=True)
class Context:
    """What an afterstate's value reads beyond the seat's board and the table: each opponent's
    empty cells and the numbers that fit one of them (a bit mask), and the game's sizes."""

    opp_empty: np.ndarray
    opp_bits: np.ndarray
    players: int
    pool_start: int
    max_tile: int

    @classmethod
    def of(cls, game: Game, seat: int) -> Context:
        r = game.rules
        if r.size != SIZE:
            raise ValueError(f"the n-tuple value reads a {SIZE}x{SIZE} board, these rules have {r.size}x{r.size}")
        others = [o for o in range(r.players) if o != seat]
        bits = []
        for o in others:
            lo, hi = game.bounds(o)
            b = game.boards[o]
            bits.append(
                sum((1 << hi[c]) - (1 << (lo[c] + 1)) if b[c] == 0 and hi[c] - lo[c] > 1 else 0 for c in range(r.cells))
            )
        return cls(
            np.array([game.empty_cells(o) for o in others], np.int64),
            np.array(bits, np.int64),
            r.players,
            r.tiles - r.players * r.size,
            r.max_tile,
        )


def reward(game: Game, seat: int) -> float:
    """What the value learns to predict: the tournament score with a shared win split among the k
    winners (``WIN / k``). With the full ``WIN`` for every winner of a tie, self-play finds that a
    table where nobody places a tile ends in a tie that every seat wins."""
    if not game.over:
        raise ValueError("the reward is known only when the game is over")
    if seat in game.winners:
        return WIN / len(game.winners)
    return -float(game.empty_cells(seat))


def table_bits(table: Sequence[int]) -> int:
    """The face-up numbers as a bit mask (``table[v]``: how many v are face up)."""
    return sum(1 << v for v in range(1, len(table)) if table[v])


class NTupleValue:
    """Flat weights and their layout; values afterstates and lists their lookups."""

    def __init__(self, spec: NTupleSpec = NTupleSpec(), weights: np.ndarray | None = None, share: float = 1.0) -> None:
        self.spec, self.layout = spec, Layout(spec)
        self.share = float(share)
        """The weight of the base (the greedy's board value, ``_base``) under the tables."""
        if weights is None:
            weights = np.zeros(self.layout.size)
        weights = np.asarray(weights, np.float64)
        if weights.shape != (self.layout.size,):
            raise ValueError(f"weights must have shape ({self.layout.size},) for {spec}, got {weights.shape}")
        self.weights = weights
        self._lo, self._hi = np.zeros(CELLS, np.int64), np.zeros(CELLS, np.int64)
        self._out = np.zeros(self.layout.lookups, np.int64)

    def _args(self, ctx: Context) -> tuple:
        L = self.layout
        return (ctx.opp_empty, ctx.opp_bits, ctx.players, ctx.pool_start, ctx.max_tile, L.tuples, L.race, L.offer)

    def lookups(self, board: Sequence[int], table: Sequence[int], pool_after: int, ctx: Context) -> np.ndarray:
        """The weight indices an afterstate reads (none when it ends the game)."""
        b = np.asarray(board, np.int64)
        empty = int((b == 0).sum())
        if not np.isnan(_terminal(empty, pool_after, ctx.opp_empty)):
            return np.zeros(0, np.int64)
        n = _lookups(b, table_bits(table), pool_after, *self._args(ctx), self._lo, self._hi, self._out)
        return self._out[:n].copy()

    def base(self, board: Sequence[int], max_tile: int) -> float:
        """``share`` times the base of a board (on which its lookups sit)."""
        b = np.asarray(board, np.int64)
        _bounds(b, max_tile + 1, self._lo, self._hi)
        return self.share * float(_base(b, self._lo, self._hi))

    def value(self, board: Sequence[int], table: Sequence[int], pool_after: int, ctx: Context) -> float:
        """The value of an afterstate: the seat's board, the face-up counts and the pool's size."""
        b = np.asarray(board, np.int64)
        return float(
            _value(
                self.weights,
                self.share,
                b,
                table_bits(table),
                pool_after,
                *self._args(ctx),
                self._lo,
                self._hi,
                self._out,
            )
        )

    def tile_values(
        self, board: Sequence[int], tiles: Sequence[int], table: Sequence[int], mode: int, pool_after: int, ctx: Context
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per tile: the best afterstate value and its cell (-1: onto the table, -2: no cell);
        ``mode`` is ``TAKE``, ``HAND`` or ``DRAWN``."""
        best, where = np.zeros(len(tiles)), np.zeros(len(tiles), np.int64)
        b = np.array(board, np.int64)
        ts, tb = np.asarray(tiles, np.int64), np.asarray(table, np.int64)
        _tile_values(self.weights, self.share, b, ts, tb, mode, pool_after, *self._args(ctx), best, where)
        return best, where

    def save(self, path: str | Path, **extra: np.ndarray) -> None:
        """Write the weights (as float32, compressed), the families they belong to and the base's share."""
        np.savez_compressed(
            path,
            weights=self.weights.astype(np.float32),
            families=np.array(self.spec.families),
            share=self.share,
            **extra,
        )

    @classmethod
    def load(cls, path: str | Path) -> NTupleValue:
        with np.load(path) as f:
            spec = NTupleSpec(tuple(str(x) for x in f["families"]))
            return cls(spec, f["weights"].astype(np.float64), float(f["share"]))


# ---------------------------------------------------------------------------- the agent
DEFAULT_VALUE = MODELS / "lucky_ntuple.npz"
PATIENCE = 150
"""Turns after which the agent draws whenever it can. Swaps can cycle (a tile taken from the table
pushes another there, which the next seat swaps back) and a value may prefer that forever; a
draw shortens the pool, so every game ends. Games of greedy players last about 67 turns."""


class NTuplePolicy:
    """Plays the candidate whose afterstate has the best n-tuple value; deterministic."""

    name = "ntuple"

    def __init__(
        self, path: str | Path | None = None, patience: int = PATIENCE, value: NTupleValue | None = None
    ) -> None:
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 1:
            raise ValueError(f"patience must be a positive int, got {patience!r}")
        self.patience = patience
        if value is None:
            p = Path(path) if path is not None else DEFAULT_VALUE
            if not p.is_file():
                raise FileNotFoundError(
                    f"n-tuple value {str(p)!r} not found (train one with `python -m benchmarks.lucky_ntuple`)"
                )
            value = NTupleValue.load(p)
        self.value = value

    def reset(self, seed: int) -> None:
        pass

    def choose_values(self, game: Game, mask: np.ndarray) -> dict[int, float]:
        """The value of each choice of the CHOOSE phase: taking each face-up tile, drawing, stopping."""
        L, p, v = game.layout, game.player, self.value
        ctx, board, table = Context.of(game, p), game.boards[p], game.table
        out: dict[int, float] = {}
        takes = [t for t in range(1, game.rules.max_tile + 1) if mask[L.take(t)]]
        if takes:
            best, _ = v.tile_values(board, takes, table, TAKE, game.pool_size, ctx)
            out.update({L.take(t): float(x) for t, x in zip(takes, best)})
        if mask[L.draw]:
            unseen = game.unseen()
            tiles = [t for t in range(1, len(unseen)) if unseen[t]]
            best, _ = v.tile_values(board, tiles, table, DRAWN, game.pool_size - 1, ctx)
            counts = np.array([unseen[t] for t in tiles], float)
            out[L.draw] = float(best @ counts / counts.sum())
        if mask[L.stop]:
            out[L.stop] = v.value(board, table, game.pool_size, ctx)
        return out

    def act(self, game: Game, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        L, p = game.layout, game.player
        if game.phase is Phase.PLACE:
            ctx = Context.of(game, p)
            mode = DRAWN if game.drawn else HAND
            _, where = self.value.tile_values(game.boards[p], [game.hand], game.table, mode, game.pool_size, ctx)
            return int(L.discard if where[0] == -1 else L.place(int(where[0])))
        if game.phase is Phase.SETUP:
            return self._setup(game, mask)
        if game.turn >= self.patience and mask[L.draw]:
            return int(L.draw)
        values = self.choose_values(game, mask)
        return int(max(values, key=lambda a: (values[a], -a)))

    def _setup(self, game: Game, mask: np.ndarray) -> int:
        """Michael's setup: the free diagonal cell whose board is worth most."""
        L, p, ctx = game.layout, game.player, Context.of(game, game.player)
        best, choice = -np.inf, -1
        for k in range(SIZE):
            if mask[L.setup(k)]:
                board = game.boards[p][:]
                board[k * (SIZE + 1)] = game.hand
                x = self.value.value(board, game.table, game.pool_size, ctx)
                if x > best:
                    best, choice = x, L.setup(k)
        return int(choice)


# ---------------------------------------------------------------------------- self-play
@dataclass
class SelfPlay:
    """What a run of games left: the learners' final scores and wins, and the TD errors."""

    games: int = 0
    seats: int = 0
    sse: float = 0.0
    afterstates: int = 0
    wins: float = 0.0
    score: float = 0.0
    cpu_seconds: float = 0.0
    per_game: list[float] = field(default_factory=list)


def play_and_learn(
    value: NTupleValue,
    seeds: Iterable[int],
    players: int = 4,
    alpha: float = 0.1,
    lam: float = 0.5,
    opponents: Sequence[str] = (),
    learn: bool = True,
    patience: int = PATIENCE,
    epsilon: float = 0.0,
    on_game: Callable[[int, SelfPlay], None] | None = None,
) -> SelfPlay:
    """Play a game of ``players`` for each seed; every seat plays by ``value`` except, with
    ``opponents`` (agent names, cycled), all but one: the learner's seat moves round the table
    with the seed (``seed % players``). After each game every learner seat's afterstates learn
    by ``td_lambda`` from its ``reward``. With ``epsilon``, that share of the learners' choices of
    a source (draw or a face-up tile) is drawn at random, from a generator seeded by the game's
    seed; the tile is then placed by the value. Games depend only on the seeds and the weights;
    after ``patience`` turns the value's seats draw whenever they can (``NTuplePolicy``)."""
    if not 0.0 < alpha <= 1.0 or not 0.0 <= lam <= 1.0 or not 0.0 <= epsilon < 1.0:
        raise ValueError(f"need 0 < alpha <= 1, 0 <= lam <= 1 and 0 <= epsilon < 1, got {alpha}, {lam}, {epsilon}")
    rules = Rules(players=players)
    me = NTuplePolicy(value=value, patience=patience)
    others = [registry.make_policy(name, None, "luckynumbers") for name in opponents]
    out = SelfPlay()
    cpu = time.process_time()
    width = value.layout.lookups
    for seed in seeds:
        game = Game(rules, seed=int(seed))
        mine = seed % players if others else -1
        seats = [me if not others or p == mine else others[(p - mine - 1) % len(others)] for p in range(players)]
        for p, policy in enumerate(seats):
            policy.reset(int(seed) * 8 + p)
        learners = [p for p in range(players) if seats[p] is me]
        traj: dict[int, list[np.ndarray]] = {p: [] for p in learners}
        bases: dict[int, list[float]] = {p: [] for p in learners}
        rng = np.random.default_rng([int(seed), 1])
        while not game.over:
            p = game.player
            setup = game.phase is Phase.SETUP
            mask = game.legal_mask()
            if epsilon and p in traj and game.phase is Phase.CHOOSE and rng.random() < epsilon:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = seats[p].act(game, mask)
            game.step(action)
            if not setup and p in traj and (game.over or game.player != p):  # the turn is over
                ctx = Context.of(game, p)
                traj[p].append(value.lookups(game.boards[p], game.table, game.pool_size, ctx))
                bases[p].append(value.base(game.boards[p], rules.max_tile))
        scores = game.scores()
        for p in learners:
            final = reward(game, p)
            steps = traj[p]
            if learn and steps:
                looks = np.zeros((len(steps), width), np.int64)
                n = np.array([len(s) for s in steps], np.int64)
                for t, s in enumerate(steps):
                    looks[t, : len(s)] = s
                out.sse += td_lambda(value.weights, looks, n, np.array(bases[p]), final, lam, alpha)
            out.afterstates += len(steps)
            out.wins += 1.0 / len(game.winners) if p in game.winners else 0.0
            out.score += float(scores[p])
        out.games += 1
        out.seats += len(learners)
        out.per_game.append(float(np.mean([scores[p] for p in learners])))
        if on_game is not None:
            on_game(int(seed), out)
    out.cpu_seconds = time.process_time() - cpu
    return out
