"""The turn planner: every distinct way to play the rest of a turn, ranked by the planner value.

A candidate is the turn's micro-actions with the afterstate they leave and its points; the
ranking that prunes them is described in ``docs/envs/numberdrop-turn.md``. ``TurnPlanner`` runs
the compiled engine (``.enumeration``), or its specification ``.turns_python`` when asked
(``reference=True``) and while the engine compiles in the background (``numberdrop_env.startup``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache, lru_cache, partial
from typing import overload

import numpy as np

from gamekit.checks import positive_int

from .. import numba_cache, startup
from ..engine.actions import Phase
from ..engine.rules import Rules
from ..engine.sheet import SCORE_PARTS
from ..engine.solo import SoloGame
from . import batch
from .candidates import (
    PLAN_PHASES,
    TURN_PHASES,
    Candidate,
    check_phase,
    letter_values,
    start_candidates,
)
from .enumeration import enumerate_packed
from .features import feature_count
from .heuristic import DEFAULT_WEIGHTS, Weights, planner_arrays
from .packing import MAX_ACTIONS, TurnArrays, state_offsets
from .turns_python import PythonPlanner

__all__ = [
    "PLAN_PHASES",
    "TURN_PHASES",
    "Candidate",
    "TurnCandidates",
    "TurnPlanner",
    "batch_arrays",
    "letter_values",
    "start_candidates",
]

PHASE_CODES = (*PLAN_PHASES, Phase.WILD, Phase.COMBO, Phase.START)
"""Phase of each code in ``TurnArrays.phases`` (``packing.SLIDE`` to ``COMBO``, then the starting number)."""
TERMS = ("geometry", "potential", "turns", "letter", "letter_half")
"""Columns of ``TurnArrays.terms``: the planner value's parts besides the points."""
COMBO_KINDS = ("identical", "consecutive")


class TurnCandidates(Sequence):
    """The candidates of a turn: arrays for vectorised readers, ``Candidate`` objects on demand."""

    def __init__(self, arrays: TurnArrays) -> None:
        self.arrays = arrays
        self._built: dict[int, Candidate] = {}

    def __len__(self) -> int:
        return len(self.arrays.value)

    @overload
    def __getitem__(self, i: int) -> Candidate: ...

    @overload
    def __getitem__(self, i: slice) -> list[Candidate]: ...

    def __getitem__(self, i: int | slice) -> Candidate | list[Candidate]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        j = range(len(self))[i]  # IndexError past the end, negative indices count back
        if j not in self._built:
            self._built[j] = self._candidate(j)
        return self._built[j]

    def _candidate(self, i: int) -> Candidate:
        a = self.arrays
        n = int(a.n_actions[i])
        kind = int(a.combo_kind[i])
        return Candidate(
            actions=tuple(a.actions[i, :n].tolist()),
            phases=tuple(PHASE_CODES[p] for p in a.phases[i, :n].tolist()),
            value=float(a.value[i]),
            points=int(a.points[i]),
            values=a.values[i].tolist(),
            used=a.used[i].tolist(),
            heights=a.heights[i].tolist(),
            notches=tuple(a.notches[i].tolist()),
            combo=None if kind < 0 else (COMBO_KINDS[kind], int(a.combo_size[i])),
            ends_game=bool(a.ends_game[i]),
            terms=dict(zip(TERMS, a.terms[i].tolist())) if a.has_terms[i] else {},
        )

    def play(self, i: int, game: SoloGame) -> int:
        """Play candidate ``i`` on ``game`` (``Candidate.play``, without building it); returns its points."""
        a = self.arrays
        if game.phase is Phase.START:
            return self[i].play(game)
        kind = int(a.combo_kind[i])
        combo = None if kind < 0 else (COMBO_KINDS[kind], int(a.combo_size[i]))
        game.play_afterstate(a.values[i], a.used[i], a.heights[i], a.notches[i], combo, piece_lost=not a.has_terms[i])
        return int(a.points[i])

    @classmethod
    def of_batch(cls, arrays: TurnArrays, g: int, k: int) -> TurnCandidates:
        """The ``k`` candidates of game ``g`` of ``TurnPlanner.candidate_arrays``' output."""
        return cls(TurnArrays(*(field[g, :k] for field in arrays)))

    @classmethod
    def from_candidates(cls, candidates: list[Candidate]) -> TurnCandidates:
        """Arrays of candidates built elsewhere (the starting number, the reference planner)."""
        c = candidates[0] if candidates else None
        sizes = (len(c.values), len(c.heights), len(c.notches)) if c else (0, 0, 0)
        a = _padding((len(candidates),), *sizes)
        for i, c in enumerate(candidates):
            n = len(c.actions)
            a.actions[i, :n], a.phases[i, :n] = c.actions, [PHASE_CODES.index(p) for p in c.phases]
            a.n_actions[i], a.value[i], a.points[i], a.ends_game[i] = n, c.value, c.points, c.ends_game
            a.values[i], a.used[i], a.heights[i], a.notches[i] = c.values, c.used, c.heights, c.notches
            if c.combo is not None:
                a.combo_kind[i], a.combo_size[i] = COMBO_KINDS.index(c.combo[0]), c.combo[1]
            a.terms[i], a.has_terms[i] = [c.terms.get(t, 0.0) for t in TERMS], bool(c.terms)
        out = cls(a)
        out._built = dict(enumerate(candidates))
        return out


class TurnPlanner:
    """Enumerates and ranks the candidates of a turn; ``reference=True`` with the specification:
    the same candidates, ten to twenty times slower."""

    def __init__(
        self, weights: Weights = DEFAULT_WEIGHTS, width: int = 12, block_width: int = 3, reference: bool = False
    ) -> None:
        self._reference = PythonPlanner(weights, width, block_width)  # it checks the widths
        self.weights, self.width, self.block_width = weights, self._reference.width, self._reference.block_width
        self.reference = bool(reference)
        self._fixed: _Static | None = None
        self._starts: dict[tuple, TurnCandidates] = {}

    def candidates(self, game: SoloGame, limit: int | None = None) -> TurnCandidates:
        """Distinct candidates of the rest of the turn, best planner value first (those of the
        starting number are shared by the games that start alike: their arrays are read-only)."""
        check_phase(game)
        if limit is not None:
            positive_int(limit, "limit")
        if game.phase is Phase.START:
            return self._start(game, limit)
        interpreted = numba_cache.interpreted()  # compiling in the background: the specification plays
        if self.reference or interpreted or (game.phase is Phase.BLOCK and type(game) is not SoloGame):
            return TurnCandidates.from_candidates(self._reference.candidates(game, limit))
        fixed = self._static(game.rules)
        rivals = getattr(game, "rivals", None)
        rivals = fixed.no_rivals if rivals is None else np.asarray(rivals, float)
        return TurnCandidates(enumerate_packed(fixed.pack(game, limit), rivals, fixed.arrays))

    def candidates_batch(
        self, games: Sequence[SoloGame], limit: int, features: bool = False
    ) -> tuple[list[TurnCandidates], np.ndarray]:
        """``candidates`` of many solo games of one rule set, each inside a turn, enumerated on every
        core; with ``features`` each game's candidate feature rows (padded to ``limit`` rows)."""
        if not games:
            positive_int(limit, "limit")
            return [], np.zeros((0, limit, 0), np.float32)
        count, arrays, rows = self.candidate_arrays(self.pack_batch(games, limit), games[0].rules, limit, features)
        return [TurnCandidates.of_batch(arrays, g, k) for g, k in enumerate(count.tolist())], rows

    def _start(self, game: SoloGame, limit: int | None) -> TurnCandidates:
        """The starting number's candidates, enumerated once per sheet (almost every game starts from
        the empty one); each game gets a writable copy, so that compiled readers see one array type."""
        s = game.sheet
        key = (game.rules, limit, s.values.tobytes(), s.used.tobytes(), game.notches.tobytes())
        if key not in self._starts:
            offered = TurnCandidates.from_candidates(start_candidates(game)[:limit])
            self._starts = {**self._starts, key: offered} if len(self._starts) < 64 else {key: offered}
        return TurnCandidates(TurnArrays(*(field.copy() for field in self._starts[key].arrays)))

    def pack_batch(self, games: Sequence[SoloGame], limit: int) -> np.ndarray:
        """The games as packed rows (``packing.STATE_FIELDS``): solo games of one rule set, each inside a turn."""
        positive_int(limit, "limit")
        if not games:
            raise ValueError("pack_batch needs at least one game")
        rules = games[0].rules
        fixed = self._static(rules)
        for g in games:
            same_rules = g.rules is rules or g.rules == rules
            if g.phase not in PLAN_PHASES or not same_rules or getattr(g, "rivals", None) is not None:
                raise ValueError(
                    f"candidates_batch plans solo games of one rule set in phases {[p.value for p in PLAN_PHASES]}"
                )
        return np.stack([fixed.pack(g, limit) for g in games])

    def candidate_arrays(
        self, states: np.ndarray, rules: Rules, limit: int, features: bool = False
    ) -> tuple[np.ndarray, TurnArrays, np.ndarray]:
        """``candidates_batch`` of games packed by ``pack_batch``, as arrays: each game's count of
        candidates, the candidates of all games (``TurnArrays`` with a leading game axis, padded to
        ``limit`` rows) and the feature rows."""
        positive_int(limit, "limit")
        startup.compiled()  # not interpreted: wait for the background compile, if any
        fixed = self._static(rules)
        width = fixed.state_width
        if not (isinstance(states, np.ndarray) and states.dtype == np.int64 and states.shape[1:] == (width,)):
            raise ValueError(f"states must be an int64 array of packed games, shape (games, {width}) (pack_batch)")
        n_games = len(states)
        count, a = np.zeros(n_games, np.int64), batch_arrays(n_games, limit, rules)
        rows = np.zeros((n_games, limit, feature_count(fixed.arrays.ints) if features else 0), np.float32)
        # turns differ a lot in cost: the threads take the dearest first, in small shares, to end together
        order = np.argsort(-batch.turn_costs(states, fixed.arrays.ints), kind="stable")
        k = min(n_games, 8 * _cores(os.getpid()))
        bounds = [round(i * n_games / k) for i in range(k + 1)]
        run = partial(
            batch.enumerate_many,
            states,
            order,
            rules=fixed.arrays,
            with_features=bool(features),
            count=count,
            out=a,
            features=rows,
        )
        _run_shares(run, list(zip(bounds[:-1], bounds[1:])))
        return count, a, rows

    def game_arrays(self, game: SoloGame, limit: int) -> tuple[np.ndarray, np.ndarray, TurnArrays]:
        """One solo game's ``pack_batch`` row with its ``candidate_arrays`` (count and arrays), from the
        specification while the compiled code builds in the background (``startup``): no waiting."""
        states = self.pack_batch([game], limit)
        if not numba_cache.interpreted():
            count, arrays, _ = self.candidate_arrays(states, game.rules, limit)
            return states, count, arrays
        offered = self.candidates(game, limit)
        arrays = batch_arrays(1, limit, game.rules)
        for field, rows in zip(arrays, offered.arrays):
            field[0, : len(offered)] = rows
        return states, np.array([len(offered)], np.int64), arrays

    # A simulator keeps its games packed: candidate_arrays, finish_turns and start_turns each turn
    # (rolls drawn by engine.solo.roll_faces from each game's generator), unpack to read a game.
    def finish_turns(
        self, states: np.ndarray, rules: Rules, games: np.ndarray, chosen: np.ndarray, arrays: TurnArrays
    ) -> np.ndarray:
        """Play candidate ``chosen[j]`` of each packed game ``games[j]`` (rows of ``states`` and of
        ``candidate_arrays``' ``arrays``) in place, up to the next roll; returns which games ended."""
        startup.compiled()
        over = np.zeros(len(games), bool)
        batch.finish_turns(states, games, chosen, arrays, self._static(rules).arrays.ints, over)
        return over

    def start_turns(self, states: np.ndarray, rules: Rules, games: np.ndarray, faces: np.ndarray) -> None:
        """Start the next turn of each packed game ``games[j]`` with the roll of faces ``faces[j]``
        (a row of ``engine.solo.roll_faces``), in place."""
        if len(games):
            startup.compiled()
            self._static(rules).start_turns(states, games, faces)

    def unpack(self, row: np.ndarray, game: SoloGame, roll: tuple[tuple[int, ...], str], turn: int, over: bool) -> None:
        """Bring ``game`` (packed in ``row`` at this turn) to the row's position: a turn's first
        decision with ``roll``, or the end of the game."""
        self._static(game.rules).unpack(row, game, roll, turn, over)

    def state_width(self, rules: Rules) -> int:
        """The length of a packed game of these rules."""
        return self._static(rules).state_width

    def packed_scores(self, states: np.ndarray, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
        """Each packed game's ``Sheet.score_breakdown`` (columns in ``SCORE_PARTS`` order) and ticked boxes."""
        startup.compiled()
        parts = np.empty((len(states), len(SCORE_PARTS)), np.int64)
        boxes = np.empty(len(states), np.int64)
        batch.score_rows(states, self._static(rules).arrays.ints, parts, boxes)
        return parts, boxes

    def _static(self, rules: Rules) -> _Static:
        if self._fixed is None or self._fixed.rules is not rules:
            self._fixed = _Static.of(rules, self.weights, self.width, self.block_width)
        return self._fixed


def batch_arrays(n_games: int, slots: int, rules: Rules) -> TurnArrays:
    """Candidate arrays of ``n_games`` games, ``slots`` rows each, all padding."""
    return _padding((n_games, slots), rules.rows * rules.cols, rules.cols, len(rules.letters))


def _padding(shape: tuple[int, ...], cells: int, cols: int, letters: int) -> TurnArrays:
    return TurnArrays(
        np.full((*shape, MAX_ACTIONS), -1, np.int64),
        np.full((*shape, MAX_ACTIONS), -1, np.int64),
        np.zeros(shape, np.int64),
        np.zeros(shape),
        np.zeros(shape, np.int64),
        np.zeros((*shape, cells), np.int64),
        np.zeros((*shape, cells), bool),
        np.zeros((*shape, cols), np.int64),
        np.zeros((*shape, letters), np.int64),
        np.full(shape, -1, np.int64),
        np.zeros(shape, np.int64),
        np.zeros(shape, bool),
        np.zeros((*shape, len(TERMS))),
        np.zeros(shape, bool),
    )


def _run_shares(run: Callable[..., None], shares: list[tuple[int, int]]) -> None:
    """``run(lo=, hi=)`` over every share: this thread and the pool's each take the next share
    left until none is (one hand-over per thread, not one per share)."""
    pending = iter(shares)  # next() on a list iterator is atomic under the GIL

    def take_shares() -> None:
        for lo, hi in pending:
            run(lo=lo, hi=hi)

    pid = os.getpid()
    helpers = [_pool_of(pid).submit(take_shares) for _ in range(min(_cores(pid), len(shares)) - 1)]
    take_shares()
    for helper in helpers:
        helper.result()


# the threads that share a batch of games, by process id: a forked worker may be given fewer
# cores than its parent, and has none of its threads
@cache
def _cores(pid: int) -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@cache
def _pool_of(pid: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=_cores(pid), thread_name_prefix="numberdrop-turns")


@lru_cache(maxsize=1024)
def tile_indices(names: tuple[str, ...], tiles: tuple[str, ...]) -> np.ndarray:
    """The shape index of each letter's tile (read-only: shared)."""
    out = np.array([names.index(t) for t in tiles], np.int64)
    out.flags.writeable = False
    return out


class _Static:
    """The engine's arguments that depend only on the rules and the planner's settings."""

    def __init__(self, rules: Rules, w: Weights, width: int, block_width: int) -> None:
        self.rules = rules
        self.names = rules.shape_names
        self.no_rivals = np.zeros((0, 0))
        self.arrays = planner_arrays(rules, w, width, block_width)  # what the compiled planner reads
        self.offsets = state_offsets(self.arrays.ints)  # where each field of a packed game starts
        self.state_width = int(self.offsets[-1])
        # each number die's value by face (padded), and the shape of each face of the shape die (-1: star)
        faces = max(len(d) for d in rules.number_dice)
        self.die_values = np.array([d + (d[-1],) * (faces - len(d)) for d in rules.number_dice], np.int64)
        self.face_shapes = np.array([-1 if f == "*" else self.names.index(f) for f in rules.shape_die], np.int64)

    def pack(self, game: SoloGame, limit: int | None) -> np.ndarray:
        """The game as one int64 vector (``packing.STATE_FIELDS``, in that order)."""
        s = game.sheet
        fixed = [-1] * 4
        if game.phase is Phase.ARRANGE:
            fixed = sorted(r * game.rules.cols + c for r, c in game.pending_cells)
        face = -1 if game.shape_face == "*" else self.names.index(game.shape_face)
        tail = [
            int(s.bonus),
            *game.sorted_dice(),
            face,
            int(game.star_pending),
            PHASE_CODES.index(game.phase),
            -1 if game.block_tile is None else game.block_tile,
            *fixed,
            -1 if limit is None else limit,
        ]
        return np.concatenate(
            (
                s.values.ravel(),
                s.used.ravel(),
                s.heights,
                game.notches,
                tile_indices(self.names, game.tiles),
                s.circled,
                s.identical,
                s.consecutive,
                s.crossed,
                s.lines,
                s.penalties,
                tail,
            ),
            dtype=np.int64,
        )

    def start_turns(self, states: np.ndarray, games: np.ndarray, faces: np.ndarray) -> None:
        """Write each roll (a row of ``roll_faces``) into its packed game: ``pack`` after ``play_afterstate``."""
        dice = self.die_values[np.arange(self.die_values.shape[0]), faces[:, :-1]]
        batch.start_turns(states, games, dice, self.face_shapes[faces[:, -1]], self.arrays.ints)

    def unpack(self, row: np.ndarray, game: SoloGame, roll: tuple[tuple[int, ...], str], turn: int, over: bool) -> None:
        """The inverse of ``pack`` at a turn's first decision or the end (``SoloGame.resume``)."""
        o, s = self.offsets, game.sheet
        s.values[:] = row[o[0] : o[1]].reshape(s.values.shape)
        s.used[:] = row[o[1] : o[2]].reshape(s.used.shape) != 0
        s.heights[:] = row[o[2] : o[3]]
        game.notches[:] = row[o[3] : o[4]]
        for k, name in enumerate(("circled", "identical", "consecutive", "crossed", "lines", "penalties"), start=5):
            getattr(s, name)[:] = row[o[k] : o[k + 1]] != 0
        s.bonus = bool(row[o[11]])
        game.resume(*roll, turn, over)

    @staticmethod
    @lru_cache(maxsize=32)
    def of(rules: Rules, weights: Weights, width: int, block_width: int) -> _Static:
        return _Static(rules, weights, width, block_width)
