"""The turn enumerator in Python: the compiled engine's specification and a planner of its own.

It plays every slide and block drop on cloned games; the compiled engine must produce exactly its
candidates (the differential tests check it). ``TurnPlanner`` plays with it when asked, while the
engine compiles, and for a multiplayer seat's block phase (which ends that seat's turn, which
the engine does not model).
"""

from __future__ import annotations

import heapq
import itertools
import math
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ..engine.actions import PERMUTATIONS, Phase
from ..engine.combos import neighbour_table
from ..engine.rules import EMPTY, WILD
from ..engine.shapes import ShapeTable
from ..engine.solo import SoloGame
from .candidates import Candidate, check_phase, letter_values, remaining_turns, start_candidates
from .heuristic import DEFAULT_WEIGHTS, Context, Structures, Weights, apply_used


class PythonPlanner:
    """Enumerates and ranks the candidates of a turn, step by step on cloned games."""

    def __init__(self, weights: Weights = DEFAULT_WEIGHTS, width: int = 12, block_width: int = 3) -> None:
        if width < 1 or block_width < 1:
            raise ValueError(f"width and block_width must be >= 1, got {width}, {block_width}")
        self.weights = weights
        self.width = int(width)
        self.block_width = int(block_width)

    def candidates(self, game: SoloGame, limit: int | None = None) -> list[Candidate]:
        """Distinct candidates of the rest of the turn, best planner value first."""
        check_phase(game)
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

    def _leaves(self, game: SoloGame, found: list, ctx: Context) -> list[_Leaf]:
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
                sheet = (s.values.ravel().tolist(), s.used.ravel().tolist(), s.heights.tolist())
                tail = _Tail(float(pts), (), (), pts, *sheet, None, True, {})
                leaves.append(_Leaf(0.0, acts, phases, notches, [tail]))
                continue
            t_rem = remaining_turns(g.notches, last)
            key = (g.sheet.values.tobytes(), round(t_rem, 3), tuple((g.notches >= last).tolist()))
            if key not in cache:
                cache[key] = self._tetromino(g, ctx, t_rem, None)
            leaves.append(_Leaf(0.0 if t_rem == 0.0 else self._letter_half(g, ctx), acts, phases, notches, cache[key]))
        return leaves

    def _expand(
        self, g: SoloGame, acts: tuple[int, ...], phases: tuple[Phase, ...], leaves: list, ctx: Context
    ) -> None:
        L = g.layout
        if g.phase in (Phase.SLIDE, Phase.STAR_SLIDE):
            moves = [L.slide + int(t) for t in np.flatnonzero(g.notches < g.rules.last_notch)]
        elif g.phase is Phase.BLOCK:
            moves = [L.block + p for p in self._best_blocks(g, ctx)]
        else:
            leaves.append((g, acts, phases))
            return
        for a in moves:
            g2 = g.clone()
            g2.step(a)
            self._expand(g2, acts + (a,), phases + (g.phase,), leaves, ctx)

    def _best_blocks(self, g: SoloGame, ctx: Context) -> list[int]:
        """The ``block_width`` best block placements by geometry + potential."""
        L = g.layout
        heights0 = g.sheet.heights.tolist()
        vals0 = g.sheet.values.ravel().tolist()
        st = ctx.structures(vals0, g.sheet.used.ravel())
        scored = []
        for p in np.flatnonzero(g.legal_mask()[L.block : L.place]):
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

    def _tetromino(
        self, g: SoloGame, ctx: Context, t_rem: float, fixed_cells: list[tuple[int, int]] | None
    ) -> list[_Tail]:
        """Outcomes of dropping the tetromino from phase PLACE (or, with ``fixed_cells``, of
        arranging an already placed one from phase ARRANGE), best first."""
        L = g.layout
        sheet = g.sheet
        vals0 = sheet.values.ravel().tolist()
        used0 = sheet.used.ravel().tolist()
        letter_live = letter_values(g, ctx.w)
        turn_value = ctx.w.turn * t_rem
        limit = math.ceil(t_rem)
        ends = t_rem == 0.0
        out = []
        for geo, lp, pp, p, flat, h, k, fill, a in self._stage1(g, ctx, t_rem, fixed_cells):
            base, over = (lp + pp if ends else geo + lp + pp), ends or pp < 0  # last turn: exact points only
            vals = vals0[:]
            for i, v in zip(flat, a):
                vals[i] = v
            head: tuple[int, ...] = () if p < 0 else (L.place + p,)
            head += (L.arrange + k,) + tuple(L.wild + v for v in fill)
            head_phases = (() if p < 0 else (Phase.PLACE,)) + (Phase.ARRANGE,) + (Phase.WILD,) * len(fill)
            for value, cells, kind, pts, terms in self._combos(
                ctx, vals, used0, h, base, over, turn_value, letter_live, limit
            ):
                terms["geometry"] = 0.0 if t_rem == 0.0 else geo
                if cells is None:
                    actions, used, combo = head + (L.pass_,), used0, None
                else:
                    actions = head + tuple(L.select + i for i in cells) + (L.confirm,)
                    used, combo = apply_used(used0, cells), (kind, len(cells))
                phases = head_phases + (Phase.COMBO,) * (len(actions) - len(head))
                out.append(_Tail(value, actions, phases, pts + lp + pp, vals, used, h, combo, over, terms))
        out.sort(key=lambda t: -t.value)
        return out

    def _stage1(self, g: SoloGame, ctx: Context, t_rem: float, fixed_cells: list[tuple[int, int]] | None):
        """The ``width`` best (placement, arrangement, wild values) by exact geometry + local matches,
        vectorised over every placement and every way of writing the dice (wild dice take every value):
        geometry, line and penalty points, placement (-1: fixed cells), cells, heights, writing."""
        cols = ctx.cols
        sheet, L = g.sheet, g.layout
        vals0 = sheet.values.ravel().tolist()
        if fixed_cells is None:
            placements = np.flatnonzero(g.legal_mask()[L.place : L.arrange])
            flat = _landed_cells(g.table, placements, sheet.heights, cols)
        else:
            placements = np.array([-1])
            flat = np.array([sorted(r * cols + c for r, c in fixed_cells)])
        ks, fills, written, tie = _writings(tuple(g.sorted_dice()), ctx.max_number, ctx.w.wild_default)
        st = ctx.structures(vals0, sheet.used.ravel())
        score = local_scores(st, vals0, flat, written, tie, neighbour_table(ctx.rows, cols), ctx.max_number)
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
        for flat_index in np.argsort(-total.ravel(), kind="stable")[: self.width].tolist():
            row, q = divmod(flat_index, top)
            q, p = int(best[row, q]), int(placements[row])
            geo, lp, pp = float(geos[row]), int(lps[row]), int(pps[row])
            yield geo, lp, pp, p, flat[row].tolist(), heights[row].tolist(), ks[q], fills[q], written[q].tolist()

    def _combos(
        self,
        ctx: Context,
        vals: list[int],
        used: list[bool],
        heights: list[int],
        base: float,
        over: bool,
        turn_value: float,
        letter_live: list[float],
        limit: int,
    ):
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
            yield (
                base + turn_value + pts + letter + pot,
                cells,
                kind,
                pts,
                {"potential": pot, "turns": turn_value, "letter": letter},
            )


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
        cand = Candidate(
            leaf.actions + t.actions,
            leaf.phases + t.phases,
            -neg,
            t.points,
            t.values,
            t.used,
            t.heights,
            leaf.notches,
            t.combo,
            t.ends_game,
            {**t.terms, "letter_half": leaf.offset} if t.terms else {},
        )
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


def local_scores(
    st: Structures,
    vals: list[int],
    flat: np.ndarray,
    written: np.ndarray,
    tie: np.ndarray,
    nbrs: np.ndarray,
    max_number: int,
) -> np.ndarray:
    """(P, Q) local score of writing ``written[q]`` into the cells ``flat[p]``: for each new
    cell next to a free number nv, 0.5 + 0.5 x (region size if equal, path up if nv - 1,
    path down if nv + 1), and 1 per adjacent pair of new cells differing by at most 1. In NumPy,
    equal bit for bit to the compiled stage 1 (sums of halves are exact in any order): the
    specification needs no compiled code, so it plays at once while that compiles."""
    table = np.zeros((len(vals) + 1, max_number + 3))  # columns: value + 1, so nv - 1 and nv + 1 always fit
    free = np.flatnonzero(st.free)
    nv = np.array(vals)[free]
    table[free, nv + 1] = 0.5 + 0.5 * st.region_sizes()[free]
    table[free, nv] = 0.5 + 0.5 * st.up[free]
    table[free, nv + 2] = 0.5 + 0.5 * st.down[free]
    table = table[:, 1 : max_number + 2]
    around = nbrs[flat]  # (P, width, 4): the cells next to each landed cell
    own = around[..., None] == flat[:, None, None, :]  # (P, width, 4, width): which are landed cells
    contrib = (table[around] * ~own.any(-1)[..., None]).sum(2)  # (P, width, values)
    score = np.take_along_axis(contrib[:, None], written[None, :, :, None], 3)[..., 0].sum(2)
    pairs = np.triu(own.any(2), 1).astype(float)  # (P, width, width): adjacent landed cells i < j
    close = (np.abs(written[:, :, None] - written[:, None, :]) <= 1).astype(float)  # (Q, width, width)
    return score + np.einsum("pij,qij->pq", pairs, close) - tie
