"""GreedyPolicy: plans each whole turn to maximise points now plus a heuristic of the sheet.

At the first decision of a turn (the mandatory slide) the policy knows the dice, so it
plans the whole turn at once: the slides (and the star slide when the shape die shows a
star), the placement of any block they drop, the tetromino's placement, arrangement and
wild values, and the combination to score. It then plays that plan, and plans again
whenever the game is not in the state the plan expected.

Search, per turn
----------------
1. Slides and blocks are enumerated on cloned games (at most 5 x 5 slide pairs; a block
   keeps its ``block_width`` best placements by geometry + potential).
2. For every distinct sheet reached (usually one: slides without a block don't touch the
   sheet) the tetromino is searched in two stages:
   - stage 1 scores every (placement, arrangement, wild values) with the exact geometry
     of the placement plus a cheap local score (matches of the new values with their
     neighbours, weighted by the size of the region / path they extend). Wild dice only
     take values suggested by neighbours (equal or +-1), else ``wild_default``.
   - stage 2 takes the ``width`` best (at most 3 per placement), writes them, and
     evaluates every combination that can be scored (one canonical combination per open
     box, plus passing) exactly: points + heuristic of the sheet after the combination.
3. The plan with the best value is played.

Heuristic terms (``agents.heuristic.Weights``; weights in brackets)
-------------------------------------------------------------------
Official points of the turn (box size, +10 column bonuses, +2 lines, -5 rows) count at
face value. Then:

- ``turn`` (3.0) x expected remaining turns, estimated from the notches left
  (each turn moves 1 + 1/6 + 0.07 x active-tiles notches on average). It is 0 when the
  game ends this turn (last notch or Game Over line crossed): crossing the line costs
  all future turns, not only the -5. It also rewards finishing tiles (star slides on a
  tile at notch 4 are wasted, so the game lasts longer) and sliding circled tiles.
- On the game's last turn (no notch left after it) only the official points count:
  no geometry term, since the sheet will never be played again.
- potential of the unused numbers, counted only while the game goes on. For every open
  box (identical 3..7, consecutive 3..7, bonus 8) the best structure on the sheet is
  credited ``box size x credit``, and only the ceil(expected remaining turns) largest
  credits count (one combination is scored per turn, so hoarding is worth little
  near the end):
  - ``ready`` (0.55): a region / monotone path already big enough: it can be scored on
    a later turn, but only one combination is scored per turn and the sheet may bury it;
  - ``progress`` (0.45) x (size/box)^2: a smaller region / path; convex, because the last
    cells are the hard ones and big boxes need several turns;
  - ``buried`` (x0.25): the structure has no open empty neighbour (no fillable cell next
    to it), so it can only be used as it is. Paths whose values cannot reach the box size
    inside 0..9 get nothing.
- ``letter`` (3.0): scoring a combination that circles a letter whose tile has not
  reached notch 4 yet: that block will never drop (4 X cells of capacity saved).
- ``letter_half`` (0.35) x notches ahead: an uncircled tile whose letter has one of
  its two boxes scored is worth keeping high, giving time to circle it.
- ``hole_row`` (1.6) + ``hole`` (0.3) per covered hole: a regular row with a hole can
  never score its +2, and a hole is lost capacity (the game ends when the grid is full).
- ``row_fill`` (1.4) x (filled/7)^2 for regular rows that can still be completed.
- ``bump`` (0.08) x sum of |height differences|: jagged tops leave fewer placements
  and make holes.
- ``high`` (0.35) x (height - 8)^2 per column above row 8: the Game Over line is near.

Deterministic: no randomness at all; the result depends on the game state only.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from numberdrop_env.actions import PERMUTATIONS, Phase
from numberdrop_env.rules import WILD
from numberdrop_env.solo import SoloGame

from .heuristic import DEFAULT_WEIGHTS, Context, Structures, Weights, apply_used

STAR_FACE = "*"


def remaining_turns(notches: np.ndarray, last: int) -> float:
    """Expected number of turns after the current one, from the notches left."""
    left = int((last - notches).clip(min=0).sum())
    if left == 0:
        return 0.0
    active = int((notches < last).sum())
    return left / (1.0 + 1.0 / 6.0 + 0.0702 * active)


class Plan:
    """Actions of the rest of a turn, with the phase each is expected in."""

    __slots__ = ("value", "actions", "phases", "turn", "points")

    def __init__(self, value: float, actions: list[int], phases: list[Phase], turn: int,
                 points: float = 0.0) -> None:
        self.value = value
        self.actions = actions
        self.phases = phases
        self.turn = turn
        self.points = points

    def __repr__(self) -> str:
        return f"Plan(value={self.value:.2f}, actions={self.actions})"


class PlanFollower:
    """Plays a planned turn action by action while the game goes as the plan expected."""

    def __init__(self) -> None:
        self.plan: Plan | None = None
        self.step = 0

    def begin(self, plan: Plan) -> int:
        self.plan, self.step = plan, 1
        return plan.actions[0]

    def next(self, game: SoloGame, mask: np.ndarray) -> int | None:
        """The plan's next action, or None (and the plan dropped) when the game left it."""
        plan = self.plan
        if plan is not None and plan.turn == game.turn and self.step < len(plan.actions):
            action = plan.actions[self.step]
            if plan.phases[self.step] is game.phase and mask[action]:
                self.step += 1
                return action
        self.plan = None
        return None


class GreedyPolicy:
    """Whole-turn planner maximising points now plus a heuristic of the resulting sheet."""

    name = "greedy"

    def __init__(self, width: int = 24, block_width: int = 3, start_column: int = 0,
                 weights: dict[str, Any] | Weights | None = None) -> None:
        self.width = int(width)
        self.block_width = int(block_width)
        self.start_column = int(start_column)
        if weights is None:
            self.weights = DEFAULT_WEIGHTS
        elif isinstance(weights, Weights):
            self.weights = weights
        else:
            self.weights = replace(DEFAULT_WEIGHTS, **dict(weights))
        self._follow = PlanFollower()

    def reset(self, seed: int) -> None:  # noqa: ARG002 - deterministic, no rng needed
        self._follow = PlanFollower()

    # ------------------------------------------------------------------ act
    def act(self, game: SoloGame, mask: np.ndarray) -> int:
        planned = self._follow.next(game, mask)
        if planned is not None:
            return planned
        if game.phase is Phase.START:
            col = self.start_column if mask[game.layout.start + self.start_column] else int(np.flatnonzero(mask)[0])
            return game.layout.start + col
        if game.phase in (Phase.SLIDE, Phase.STAR_SLIDE, Phase.BLOCK, Phase.PLACE):
            plans = self.plan_turn(game, top=1)
            if plans:
                return self._follow.begin(plans[0])
        return self._fallback(game, mask)

    # ------------------------------------------------------------------ planning
    def plan_turn(self, game: SoloGame, top: int = 1) -> list[Plan]:
        """Best plans for the rest of the turn, best first (``top`` of them at most)."""
        ctx = Context(game, self.weights)
        leaves: list[tuple[SoloGame, list[int], list[Phase]]] = []
        self._expand(game, [], [], leaves, ctx)
        cache: dict[Any, list[tuple[float, list[int], list[Phase], float]]] = {}
        plans: list[Plan] = []
        last = game.rules.last_notch
        for g, acts, phases in leaves:
            t_rem = remaining_turns(g.notches, last)
            ends_by_notch = t_rem == 0.0
            notch_extra = 0.0 if ends_by_notch else self._letter_half(g, ctx)
            if g.phase is not Phase.PLACE or g.turn != game.turn:
                # the piece was lost (or the game ended): value the sheet as it is
                v = self._static_value(g, ctx, game)
                plans.append(Plan(v, acts, phases, game.turn))
                continue
            key = (g.sheet.values.tobytes(), round(t_rem, 3), tuple((g.notches >= last).tolist()))
            if key not in cache:
                cache[key] = self.search_place(g, ctx, t_rem, top=top)
            for v, a2, p2, pts in cache[key]:
                plans.append(Plan(v + notch_extra, acts + a2, phases + p2, game.turn, pts))
        plans.sort(key=lambda p: -p.value)
        return plans[:top]

    def _expand(self, g: SoloGame, acts: list[int], phases: list[Phase], leaves: list, ctx: Context) -> None:
        L = g.layout
        if g.phase in (Phase.SLIDE, Phase.STAR_SLIDE):
            for t in np.flatnonzero(g.notches < g.rules.last_notch):
                g2 = g.clone()
                a = L.slide + int(t)
                g2.step(a)
                self._expand(g2, acts + [a], phases + [g.phase], leaves, ctx)
        elif g.phase is Phase.BLOCK:
            legal = np.flatnonzero(g.legal_mask()[L.block:L.place])
            scored = []
            heights0 = g.sheet.heights.tolist()
            vals0 = g.sheet.values.ravel().tolist()
            used0 = g.sheet.used.ravel().tolist()
            st = Structures(vals0, used0, ctx.nbrs, ctx.max_number)
            cols = ctx.cols
            for p in legal:
                cells = g.table.cells(int(p), g.sheet.heights)
                vals = vals0[:]
                h = heights0[:]
                for r, c in cells:
                    vals[r * cols + c] = 10
                    h[c] = max(h[c], r + 1)
                geo, lp, pp = ctx.geometry(vals, h)
                v = geo + lp + pp + ctx.potential(vals, st, h)
                scored.append((v, int(p)))
            scored.sort(key=lambda x: -x[0])
            for _, p in scored[: self.block_width]:
                g2 = g.clone()
                a = L.block + p
                g2.step(a)
                self._expand(g2, acts + [a], phases + [Phase.BLOCK], leaves, ctx)
        else:
            leaves.append((g, acts, phases))

    def _letter_half(self, g: SoloGame, ctx: Context) -> float:
        s = g.sheet
        last = g.rules.last_notch
        v = 0.0
        for i in range(len(ctx.box_sizes)):
            if s.circled[i] or g.notches[i] >= last:
                continue
            if bool(s.identical[i]) != bool(s.consecutive[i]):
                v += ctx.w.letter_half * (last - int(g.notches[i]))
        return v

    def _static_value(self, g: SoloGame, ctx: Context, game: SoloGame) -> float:
        """Value of a turn whose tetromino could not be dropped: official points so far only."""
        return float(g.sheet.score() - game.sheet.score())

    # ------------------------------------------------------------------ tetromino
    def search_place(self, g: SoloGame, ctx: Context, t_rem: float, top: int = 1,
                     fixed_cells: list[tuple[int, int]] | None = None):
        """Best (value, actions, phases, points) for dropping the tetromino from phase PLACE
        (or, with ``fixed_cells``, for arranging an already placed one from phase ARRANGE)."""
        w = ctx.w
        L = g.layout
        cols = ctx.cols
        nbrs = ctx.nbrs
        sheet = g.sheet
        heights0 = sheet.heights.tolist()
        vals0 = sheet.values.ravel().tolist()
        used0 = sheet.used.ravel().tolist()
        st0 = Structures(vals0, used0, nbrs, ctx.max_number)
        ends = t_rem == 0.0
        last = g.rules.last_notch
        letter_live = [(int(n) < last) and not c for n, c in zip(g.notches, sheet.circled.tolist())]
        turn_value = w.turn * t_rem
        limit = math.ceil(t_rem)

        dice = g.sorted_dice()
        assignments: dict[tuple[int, ...], int] = {}
        for k, perm in enumerate(PERMUTATIONS.tolist()):
            tup = tuple(dice[i] for i in perm)
            if tup not in assignments:
                assignments[tup] = k
        fixed_vals = [v for v in dice if v != WILD]

        if fixed_cells is None:
            legal = np.flatnonzero(g.legal_mask()[L.place:L.arrange])
            slots = [(int(p), g.table.cells(int(p), sheet.heights)) for p in legal]
        else:
            slots = [(None, sorted(fixed_cells))]

        stage1 = []
        region_size = [0] * len(vals0)
        for members in st0.regions:
            for m in members:
                region_size[m] = len(members)
        up0, down0, free0 = st0.up, st0.down, st0.free
        for p, cells in slots:
            flat = [r * cols + c for r, c in cells]
            fset = set(flat)
            h = heights0[:]
            for r, c in cells:
                if r + 1 > h[c]:
                    h[c] = r + 1
            gvals = vals0[:]
            for i in flat:
                gvals[i] = 0
            geo, lp, pp = ctx.geometry(gvals, h)
            over = ends or pp < 0
            base = lp + pp if ends else geo + lp + pp  # last turn: exact points only
            items = []
            for ci, i in enumerate(flat):
                for n in nbrs[i]:
                    if n not in fset and free0[n]:
                        items.append((ci, vals0[n], region_size[n], up0[n], down0[n]))
            pairs = [(a, b) for a in range(4) for b in range(a + 1, 4) if flat[b] in nbrs[flat[a]]]
            local_cands = []
            for tup, k in assignments.items():
                wild_pos = [i for i, v in enumerate(tup) if v == WILD]
                if not wild_pos:
                    fills = [()]
                else:
                    sets = []
                    for ci in wild_pos:
                        s = set()
                        for (cj, nv, _, _, _) in items:
                            if cj == ci:
                                s.update((nv - 1, nv, nv + 1))
                        for a, b in pairs:
                            o = b if a == ci else a if b == ci else None
                            if o is not None and tup[o] != WILD:
                                s.update((tup[o] - 1, tup[o], tup[o] + 1))
                        s = {v for v in s if 0 <= v <= ctx.max_number}
                        if not s:
                            s = {w.wild_default}
                            for v in fixed_vals:
                                s.update((v - 1, v, v + 1))
                            s = {v for v in s if 0 <= v <= ctx.max_number}
                        sets.append(sorted(s))
                    fills = [()]
                    for s in sets:
                        fills = [f + (v,) for f in fills for v in s]
                        if len(fills) > 300:
                            fills = fills[:300]
                for fill in fills:
                    a = list(tup)
                    for ci, v in zip(wild_pos, fill):
                        a[ci] = v
                    sc = 0.0
                    for (ci, nv, rs, un, dn) in items:
                        v = a[ci]
                        if v == nv:
                            sc += 0.5 + 0.5 * rs
                        elif v == nv - 1:
                            sc += 0.5 + 0.5 * un
                        elif v == nv + 1:
                            sc += 0.5 + 0.5 * dn
                    for x, y in pairs:
                        d = a[x] - a[y]
                        if -1 <= d <= 1:
                            sc += 1.0
                    local_cands.append((sc, k, fill, a))
            local_cands.sort(key=lambda x: -x[0])
            for sc, k, fill, a in local_cands[:3]:
                stage1.append((base + sc, base, over, lp + pp, p, flat, h, k, fill, a, cells))
        stage1.sort(key=lambda x: -x[0])

        results = []
        for _, base, over, pts_geo, p, flat, h, k, fill, a, cells in stage1[: self.width]:
            vals = vals0[:]
            for i, v in zip(flat, a):
                vals[i] = v
            value, combo, pts = self._best_combo(ctx, vals, used0, h, base, over, turn_value, letter_live, limit)
            acts: list[int] = []
            phases: list[Phase] = []
            if p is not None:
                acts.append(L.place + p)
                phases.append(Phase.PLACE)
            acts.append(L.arrange + k)
            phases.append(Phase.ARRANGE)
            for v in fill:
                acts.append(L.wild + v)
                phases.append(Phase.WILD)
            if combo is None:
                acts.append(L.pass_)
            else:
                acts.extend(L.select + i for i in combo)
                acts.append(L.confirm)
            phases.extend([Phase.COMBO] * (len(acts) - len(phases)))
            results.append((value, acts, phases, pts + pts_geo))
        results.sort(key=lambda x: -x[0])
        return results[:top]

    def _best_combo(self, ctx: Context, vals: list[int], used: list[bool], heights: list[int],
                    base: float, over: bool, turn_value: float, letter_live: list[bool], limit: int):
        """(value, ordered combination cells or None, official points of the combination)."""
        w = ctx.w
        st = Structures(vals, used, ctx.nbrs, ctx.max_number)
        cands = ctx.combo_candidates(vals, st)
        if over:
            best_v, best_c, best_p = base, None, 0
            for kind, k, cells in cands:
                pts, _ = ctx.combo_points(kind, k)
                if base + pts > best_v:
                    best_v, best_c, best_p = base + pts, cells, pts
            return best_v, best_c, best_p
        best_v = base + turn_value + ctx.potential(vals, st, heights, limit=limit)
        best_c, best_p = None, 0
        for kind, k, cells in cands:
            pts, letter_flag = ctx.combo_points(kind, k)
            v = base + turn_value + pts
            if letter_flag and k in ctx.box_sizes:
                idx = ctx.box_sizes.index(k)
                if letter_live[idx]:
                    v += w.letter
            st2 = Structures(vals, apply_used(used, cells), ctx.nbrs, ctx.max_number)
            if k == ctx.bonus_size:
                it = [x for x in ctx.ident_targets if x != k]
                ct = [x for x in ctx.cons_targets if x != k]
            elif kind == "identical":
                it = [x for x in ctx.ident_targets if x != k]
                ct = ctx.cons_targets
            else:
                it = ctx.ident_targets
                ct = [x for x in ctx.cons_targets if x != k]
            v += ctx.potential(vals, st2, heights, it, ct, limit)
            if v > best_v:
                best_v, best_c, best_p = v, cells, pts
        return best_v, best_c, best_p

    # ------------------------------------------------------------------ fallback
    def _fallback(self, game: SoloGame, mask: np.ndarray) -> int:
        """Decisions in states the planner did not set up (a turn begun by someone else)."""
        L = game.layout
        if game.phase is Phase.ARRANGE:
            ctx = Context(game, self.weights)
            t_rem = remaining_turns(game.notches, game.rules.last_notch)
            res = self.search_place(game, ctx, t_rem, top=1, fixed_cells=list(game.pending_cells))
            if res:
                return self._follow.begin(Plan(res[0][0], res[0][1], res[0][2], game.turn))
        if game.phase is Phase.WILD:
            v = self.weights.wild_default
            return L.wild + v if mask[L.wild + v] else int(np.flatnonzero(mask)[0])
        if game.phase is Phase.COMBO:
            if mask[L.confirm]:
                return L.confirm
            if not game.selection:
                return L.pass_
            sel = np.flatnonzero(mask[L.select:L.confirm])
            return L.select + int(sel[0]) if len(sel) else L.pass_
        return int(np.flatnonzero(mask)[0])
