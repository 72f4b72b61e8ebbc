"""The turn enumerator: what a player can make of the rest of a turn, as ranked candidates.

A *candidate* is one way to play the rest of the current turn — the slides, the
placement of any block they drop, the tetromino's placement, arrangement and wild
values, and the combination scored or the pass — given as the micro-actions of the flat
encoding (:mod:`numberdrop_env.actions`) together with the sheet it leaves (its
*afterstate*) and the official points it scores. Candidates are deduplicated by their
afterstate: two ways of playing that leave the same grid, used cells, boxes and notches
are one candidate (the first in ranking order is kept).

The full set of outcomes is far too large to list (a wild die alone multiplies it by
ten), so the enumeration is pruned by a documented ranking, the planner value of
:mod:`numberdrop_env.heuristic` (points now plus a hand-written value of the sheet):

1. Slides are enumerated exactly; a dropping block keeps its ``block_width`` best
   placements by geometry and potential.
2. For every sheet reached, every legal (placement, arrangement, wild values) of the
   tetromino gets a cheap local score (exact geometry plus matches of the new numbers
   with their neighbours; wild dice only take values suggested by neighbours, else the
   default); at most 3 per placement and the ``width`` best overall go on.
3. Each of those is written and every combination that can be scored is tried (one
   canonical combination per open box, plus the pass), each valued exactly: points of
   the turn plus the heuristic of the sheet after it. Every one is a candidate.

``TurnPlanner.candidates(game, limit=K)`` returns the K best distinct candidates, best
first. The greedy agent plays the first one, the search agent re-ranks the first few,
the turn-level environment offers them all; so the greedy's choice is always among
the candidates the environment offers.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from .actions import PERMUTATIONS, Phase
from .combos import neighbour_table
from . import kernels
from .heuristic import DEFAULT_WEIGHTS, Context, Structures, Weights, apply_used
from .rules import EMPTY, WILD
from .shapes import ShapeTable
from .solo import SoloGame

PLAN_PHASES = (Phase.SLIDE, Phase.STAR_SLIDE, Phase.BLOCK, Phase.PLACE, Phase.ARRANGE)
"""Phases from which the rest of a rolled turn can be enumerated."""
TURN_PHASES = (Phase.START, *PLAN_PHASES)
"""Phases ``TurnPlanner.candidates`` accepts: the starting number's column is a turn of its own."""


def remaining_turns(notches: np.ndarray | tuple[int, ...], last: int) -> float:
    """Expected number of turns after the current one, from the notches left."""
    ahead = [last - n for n in (notches.tolist() if isinstance(notches, np.ndarray) else notches) if n < last]
    if not ahead:
        return 0.0
    return sum(ahead) / (1.0 + 1.0 / 6.0 + 0.0702 * len(ahead))


@dataclass(eq=False)
class Candidate:
    """One way to play the rest of a turn and the sheet it leaves."""

    actions: tuple[int, ...]
    """Micro-actions of ``NumberDrop-v0`` from the pending decision to the end of the turn."""
    phases: tuple[Phase, ...]
    """The phase each action is played in."""
    value: float
    """Planner value: ``points`` plus the heuristic of the afterstate (the ranking)."""
    points: int
    """Official score change of the turn (boxes, column bonuses, +2 lines, -5 rows)."""
    values: list[int]
    """Afterstate grid, flat (``row * cols + column``), before the next roll."""
    used: list[bool]
    heights: list[int]
    notches: tuple[int, ...]
    combo: tuple[str, int] | None
    """(kind, size) of the scored combination, or None for a pass or a lost piece."""
    ends_game: bool
    """The game ends after this turn (Game Over line crossed, piece lost, last notch)."""
    terms: dict[str, float] = field(default_factory=dict)
    """The planner value's parts: geometry, potential, turns, letter."""

    @property
    def key(self) -> tuple[Any, ...]:
        """Identity of the afterstate: candidates with equal keys are the same outcome."""
        return (tuple(self.values), tuple(self.used), self.notches)

    def describe(self, game: SoloGame) -> dict[str, Any]:
        """The candidate in the game's words, decision by decision (JSON-safe)."""
        g = game.clone()
        steps = []
        for a in self.actions:
            steps.append(g.describe(a))
            if not g.legal_mask()[a]:
                raise ValueError(f"candidate does not apply to this game: {steps[-1]}")
            g.step(a)
        return {"points": self.points, "value": round(self.value, 3),
                "combination": None if self.combo is None else {"kind": self.combo[0], "size": self.combo[1]},
                "ends_game": self.ends_game, "decisions": steps}


class TurnPlanner:
    """Enumerates and ranks the candidates of a turn (see the module docstring)."""

    def __init__(self, weights: Weights = DEFAULT_WEIGHTS, width: int = 12, block_width: int = 3) -> None:
        if width < 1 or block_width < 1:
            raise ValueError(f"width and block_width must be >= 1, got {width}, {block_width}")
        self.weights = weights
        self.width = int(width)
        self.block_width = int(block_width)

    # ------------------------------------------------------------------ public
    def candidates(self, game: SoloGame, limit: int | None = None) -> list[Candidate]:
        """Distinct candidates of the rest of the turn, best planner value first."""
        if game.phase not in TURN_PHASES:
            raise ValueError(f"cannot enumerate a turn from phase {game.phase.value!r}; "
                             f"expected one of {[p.value for p in TURN_PHASES]}")
        if game.phase is Phase.START:
            return start_candidates(game)[:limit]
        ctx = Context(game, self.weights)
        if game.phase is Phase.ARRANGE:
            t_rem = remaining_turns(game.notches, game.rules.last_notch)
            tails = self._tetromino(game, ctx, t_rem, list(game.pending_cells))
            leaves = [_Leaf(0.0, (), (), tuple(game.notches.tolist()), tails)]
        else:
            found: list[tuple[SoloGame, tuple[int, ...], tuple[Phase, ...]]] = []
            self._expand(game, (), (), found, ctx)
            leaves = self._leaves(game, found, ctx)
        return _best_distinct(leaves, limit)

    def _leaves(self, game: SoloGame, found: list, ctx: Context) -> list["_Leaf"]:
        """One leaf per way through the slides and blocks; leaves that reach the same sheet
        share one tetromino search (slides without a block leave the sheet as it was)."""
        last = game.rules.last_notch
        cache: dict[Any, list[_Tail]] = {}
        leaves = []
        for g, acts, phases in found:
            notches = tuple(g.notches.tolist())
            if g.phase is not Phase.PLACE or g.turn != game.turn:
                # the piece was lost and the game is over: only the official points count
                pts = g.score() - game.score()
                s = g.sheet
                tail = _Tail(float(pts), (), (), pts, s.values.ravel().tolist(), s.used.ravel().tolist(),
                             s.heights.tolist(), None, True, {})
                leaves.append(_Leaf(0.0, acts, phases, notches, [tail]))
                continue
            t_rem = remaining_turns(g.notches, last)
            key = (g.sheet.values.tobytes(), round(t_rem, 3), tuple((g.notches >= last).tolist()))
            if key not in cache:
                cache[key] = self._tetromino(g, ctx, t_rem, None)
            leaves.append(_Leaf(0.0 if t_rem == 0.0 else self._letter_half(g, ctx), acts, phases, notches,
                                cache[key]))
        return leaves

    # ------------------------------------------------------------------ slides and blocks
    def _expand(self, g: SoloGame, acts: tuple[int, ...], phases: tuple[Phase, ...], leaves: list,
                ctx: Context) -> None:
        L = g.layout
        if g.phase in (Phase.SLIDE, Phase.STAR_SLIDE):
            for t in np.flatnonzero(g.notches < g.rules.last_notch):
                g2 = g.clone()
                a = L.slide + int(t)
                g2.step(a)
                self._expand(g2, acts + (a,), phases + (g.phase,), leaves, ctx)
        elif g.phase is Phase.BLOCK:
            for p in self._best_blocks(g, ctx):
                g2 = g.clone()
                a = L.block + p
                g2.step(a)
                self._expand(g2, acts + (a,), phases + (Phase.BLOCK,), leaves, ctx)
        else:
            leaves.append((g, acts, phases))

    def _best_blocks(self, g: SoloGame, ctx: Context) -> list[int]:
        """The ``block_width`` best block placements by geometry + potential."""
        L = g.layout
        heights0 = g.sheet.heights.tolist()
        vals0 = g.sheet.values.ravel().tolist()
        st = ctx.structures(vals0, g.sheet.used.ravel())
        scored = []
        for p in np.flatnonzero(g.legal_mask()[L.block:L.place]):
            vals, h = vals0[:], heights0[:]
            for r, c in g.block_cells(int(p)):
                vals[r * ctx.cols + c] = 10
                h[c] = max(h[c], r + 1)
            geo, lp, pp = ctx.geometry(vals, h)
            scored.append((geo + lp + pp + ctx.potential(vals, st, h), int(p)))
        scored.sort(key=lambda x: -x[0])
        return [p for _, p in scored[: self.block_width]]

    def _letter_half(self, g: SoloGame, ctx: Context) -> float:
        s, last = g.sheet, g.rules.last_notch
        v = 0.0
        for i in range(len(ctx.box_sizes)):
            if not s.circled[i] and g.notches[i] < last and bool(s.identical[i]) != bool(s.consecutive[i]):
                v += ctx.w.letter_half * (last - int(g.notches[i]))
        return v

    # ------------------------------------------------------------------ tetromino
    def _tetromino(self, g: SoloGame, ctx: Context, t_rem: float,
                   fixed_cells: list[tuple[int, int]] | None) -> list["_Tail"]:
        """Outcomes of dropping the tetromino from phase PLACE (or, with ``fixed_cells``, of
        arranging an already placed one from phase ARRANGE), best first."""
        L = g.layout
        sheet = g.sheet
        vals0 = sheet.values.ravel().tolist()
        used0 = sheet.used.ravel().tolist()
        letter_live = letter_values(g, ctx.w)
        turn_value = ctx.w.turn * t_rem
        limit = math.ceil(t_rem)
        out = []
        for _, base, over, pts_geo, geo, p, flat, h, k, fill, a in self._stage1(g, ctx, t_rem, fixed_cells):
            vals = vals0[:]
            for i, v in zip(flat, a):
                vals[i] = v
            head: tuple[int, ...] = () if p is None else (L.place + p,)
            head += (L.arrange + k,) + tuple(L.wild + v for v in fill)
            head_phases = (() if p is None else (Phase.PLACE,)) + (Phase.ARRANGE,) + (Phase.WILD,) * len(fill)
            for value, cells, kind, pts, terms in self._combos(ctx, vals, used0, h, base, over, turn_value,
                                                                 letter_live, limit):
                terms["geometry"] = 0.0 if t_rem == 0.0 else geo
                if cells is None:
                    actions, used, combo = head + (L.pass_,), used0, None
                else:
                    actions = head + tuple(L.select + i for i in cells) + (L.confirm,)
                    used, combo = apply_used(used0, cells), (kind, len(cells))
                phases = head_phases + (Phase.COMBO,) * (len(actions) - len(head))
                out.append(_Tail(value, actions, phases, pts + pts_geo, vals, used, h, combo, over, terms))
        out.sort(key=lambda t: -t.value)
        return out

    def _stage1(self, g: SoloGame, ctx: Context, t_rem: float, fixed_cells: list[tuple[int, int]] | None):
        """The ``width`` best (placement, arrangement, wild values) by exact geometry + local matches.

        Vectorised over every placement and every way of writing the dice (wild dice take
        every value 0..9): the local score of writing value v in landed cell i is a table
        lookup, plus 1 for each pair of adjacent new cells whose values differ by at most 1.
        """
        cols = ctx.cols
        sheet, L = g.sheet, g.layout
        vals0 = sheet.values.ravel().tolist()
        if fixed_cells is None:
            placements = np.flatnonzero(g.legal_mask()[L.place:L.arrange])
            flat = _landed_cells(g.table, placements, sheet.heights, cols)
        else:
            placements = np.array([-1])
            flat = np.array([sorted(r * cols + c for r, c in fixed_cells)])
        ks, fills, written, tie = _writings(tuple(g.sorted_dice()), ctx.max_number, ctx.w.wild_default)
        st = ctx.structures(vals0, sheet.used.ravel())
        score = _local_scores(st, vals0, flat, written, tie, neighbour_table(ctx.rows, cols), ctx.max_number)
        top = min(3, score.shape[1])
        best = np.argpartition(-score, top - 1, axis=1)[:, :top]
        best = np.take_along_axis(best, np.argsort(-np.take_along_axis(score, best, 1), axis=1, kind="stable"), 1)
        ends = t_rem == 0.0
        n_p = len(flat)
        filled = np.broadcast_to(sheet.values.ravel() != EMPTY, (n_p, len(vals0))).copy()
        filled[np.arange(n_p)[:, None], flat] = True
        heights = np.tile(sheet.heights, (n_p, 1))
        for cell in flat.T:  # each landed cell raises its column
            r, c = np.divmod(cell, cols)
            heights[np.arange(n_p), c] = np.maximum(heights[np.arange(n_p), c], r + 1)
        geos, lps, pps = ctx.geometry_batch(filled.reshape(n_p, ctx.rows, cols), heights)
        base = lps + pps if ends else geos + lps + pps  # last turn: exact points only
        total = base[:, None] + np.take_along_axis(score, best, 1)
        stage1 = []
        for flat_index in np.argsort(-total.ravel(), kind="stable")[: self.width].tolist():
            row, q = divmod(flat_index, top)
            q = int(best[row, q])
            geo, lp, pp = float(geos[row]), int(lps[row]), int(pps[row])
            row_base = lp + pp if ends else geo + lp + pp
            p = int(placements[row])
            stage1.append((row_base + float(score[row, q]), row_base, ends or pp < 0, lp + pp, geo,
                           None if p < 0 else p, flat[row].tolist(), heights[row].tolist(), ks[q], fills[q],
                           written[q].tolist()))
        return stage1

    def _combos(self, ctx: Context, vals: list[int], used: list[bool], heights: list[int], base: float,
                over: bool, turn_value: float, letter_live: list[float], limit: int):
        """(value, ordered cells or None, kind, official points, terms) of the pass and of every
        canonical combination, the pass first."""
        now, combos = ctx.written_sheet(vals, used, heights, limit, with_potential=not over)
        if over:
            yield base, None, None, 0, {"potential": 0.0, "turns": 0.0, "letter": 0.0}
            for kind, k, cells, _ in combos:
                pts, _ = ctx.combo_points(kind, k)
                yield base + pts, cells, kind, pts, {"potential": 0.0, "turns": 0.0, "letter": 0.0}
            return
        yield base + turn_value + now, None, None, 0, {"potential": now, "turns": turn_value, "letter": 0.0}
        for kind, k, cells, pot in combos:
            pts, letter_flag = ctx.combo_points(kind, k)
            letter = 0.0
            if letter_flag and k in ctx.box_sizes:
                letter = letter_live[ctx.box_sizes.index(k)]
            yield (base + turn_value + pts + letter + pot, cells, kind, pts,
                   {"potential": pot, "turns": turn_value, "letter": letter})


def letter_values(g: SoloGame, w: Weights) -> list[float]:
    """What circling each letter is worth now: 0 once circled or once its block is gone.

    At a multiplayer table (``g.rivals``, see ``numberdrop_env.multi.Seat``) a circle also
    aims the block at the opponents who have not circled it (``hurt``) and shields from a
    letter they have circled or are one box from circling (``threat``).
    """
    last = g.rules.last_notch
    live = [(int(n) < last) and not c for n, c in zip(g.notches, g.sheet.circled.tolist())]
    rivals = getattr(g, "rivals", None)
    if rivals is None:
        return [w.letter if ok else 0.0 for ok in live]
    circled, half = rivals
    return [w.letter + w.hurt * (1.0 - c) + w.threat * max(c, h) if ok else 0.0
            for ok, c, h in zip(live, circled.tolist(), half.tolist())]


def start_candidates(game: SoloGame) -> list[Candidate]:
    """Where to write the starting number, before the first roll: one candidate per column,
    left to right, all of planner value 0 (the rows above are empty, so nothing is known yet)."""
    L, s = game.layout, game.sheet
    out = []
    for col in np.flatnonzero(game.legal_mask()[L.start:L.slide]).tolist():
        values = s.values.ravel().tolist()
        values[col] = game.start_number
        heights = s.heights.tolist()
        heights[col] = 1
        out.append(Candidate((L.start + col,), (Phase.START,), 0.0, 0, values, s.used.ravel().tolist(), heights,
                             tuple(game.notches.tolist()), None, False, {}))
    return out


class _Tail(NamedTuple):
    """The tetromino part of a candidate, shared by every leaf that reaches the same sheet."""

    value: float
    actions: tuple[int, ...]
    phases: tuple[Phase, ...]
    points: int
    values: list[int]
    used: list[bool]
    heights: list[int]
    combo: tuple[str, int] | None
    ends_game: bool
    terms: dict[str, float]


class _Leaf(NamedTuple):
    """One way through the slides and block drops, and the tails that can follow it."""

    offset: float  # value of the notches reached (letter_half), added to every tail
    actions: tuple[int, ...]
    phases: tuple[Phase, ...]
    notches: tuple[int, ...]
    tails: list[_Tail]


def _best_distinct(leaves: list[_Leaf], limit: int | None) -> list[Candidate]:
    """Merge the leaves' sorted tails by value (ties: leaf order, then tail order) and keep
    the first candidate of each afterstate, up to ``limit``."""
    def stream(li: int, leaf: _Leaf):
        return ((-(leaf.offset + t.value), li, ti) for ti, t in enumerate(leaf.tails))

    streams = [stream(li, leaf) for li, leaf in enumerate(leaves)]
    out: list[Candidate] = []
    seen: set[Any] = set()
    for neg, li, ti in heapq.merge(*streams):
        leaf = leaves[li]
        t = leaf.tails[ti]
        cand = Candidate(leaf.actions + t.actions, leaf.phases + t.phases, -neg, t.points, t.values, t.used,
                         t.heights, leaf.notches, t.combo, t.ends_game,
                         {**t.terms, "letter_half": leaf.offset} if t.terms else {})
        key = cand.key
        if key in seen:
            continue
        seen.add(key)
        out.append(cand)
        if limit is not None and len(out) >= limit:
            break
    return out


def _landed_cells(table: ShapeTable, placements: np.ndarray, heights: np.ndarray, cols: int) -> np.ndarray:
    """(P, 4) flat landed cells of each placement, sorted by (row, column) like ``ShapeTable.cells``."""
    rows = table.landing_rows(heights)[placements]
    flat = (rows[:, None] + table.dr[placements]) * cols + table.cc[placements]
    return np.sort(flat, axis=1)


@lru_cache(maxsize=512)
def _writings(dice: tuple[int, ...], max_number: int, default: int):
    """Every distinct way of writing the sorted dice into the 4 landed cells, wild dice
    taking every value: arrangement index k, wild values, values written (Q, 4), and a
    tie-break (Q,) that prefers wild values near ``default``, then earlier arrangements."""
    seen: dict[tuple[int, ...], int] = {}
    for k, perm in enumerate(PERMUTATIONS.tolist()):
        seen.setdefault(tuple(dice[i] for i in perm), k)
    ks, fills, written = [], [], []
    for tup, k in seen.items():
        wild = [i for i, v in enumerate(tup) if v == WILD]
        for fill in itertools.product(range(max_number + 1), repeat=len(wild)):
            a = list(tup)
            for i, v in zip(wild, fill):
                a[i] = v
            ks.append(k)
            fills.append(fill)
            written.append(a)
    far = np.array([sum(abs(v - default) for v in f) for f in fills], float)
    tie = 1e-3 * far + 1e-7 * np.arange(len(ks))  # < 0.5, the smallest difference of two local scores
    return ks, fills, np.array(written, np.int64), tie


def _local_scores(st: Structures, vals: list[int], flat: np.ndarray, written: np.ndarray, tie: np.ndarray,
                  nbr: np.ndarray, max_number: int) -> np.ndarray:
    """(P, Q) local score of writing ``written[q]`` into the cells ``flat[p]``: for each new
    cell next to a free number nv, 0.5 + 0.5 x (region size if equal, path up if nv - 1,
    path down if nv + 1), and 1 per adjacent pair of new cells differing by at most 1."""
    n = len(vals)
    table = np.zeros((n + 1, max_number + 3))  # columns: value + 1, so nv - 1 and nv + 1 always fit
    free = np.flatnonzero(st.free)
    nv = np.array(vals)[free]
    table[free, nv + 1] = 0.5 + 0.5 * st.region_sizes()[free]
    table[free, nv] = 0.5 + 0.5 * st.up[free]
    table[free, nv + 2] = 0.5 + 0.5 * st.down[free]
    return kernels.local_scores(table[:, 1 : max_number + 2], flat, written, tie, nbr)
