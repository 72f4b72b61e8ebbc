"""Hand-written evaluation of a solo Number Drop sheet, shared by the greedy and search agents.

The value of a position after a turn is

    points scored this turn (exact: combination box, column bonuses, +2 lines, -5 rows)
    + [not the last turn] * geometry(sheet)   (holes, unfinished rows, height, bumpiness;
                                               kept when the Game Over line is crossed early)
    + [game goes on] * (potential(sheet) + turn * expected remaining turns + letter terms)

where the potential counts only the ceil(expected remaining turns) largest box credits.

It ranks the candidates of :mod:`numberdrop_env.turns`; the greedy agent plays the best.
The code here works on flat Python lists (cell ``r * cols + c``): on a 7 x 14 grid that
is faster than NumPy for the per-candidate work.

Heuristic terms (``Weights``; weights in brackets)
--------------------------------------------------
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
- multiplayer only, added to ``letter``: ``hurt`` (2.0) x the share of opponents who have
  not circled the letter (its block will drop on them), and ``threat`` (3.0) x the share
  who have circled it or scored one of its two boxes (its block may drop on us).
- ``hole_row`` (1.6) + ``hole`` (0.3) per covered hole: a regular row with a hole can
  never score its +2, and a hole is lost capacity (the game ends when the grid is full).
- ``row_fill`` (1.4) x (filled/7)^2 for regular rows that can still be completed.
- ``bump`` (0.08) x sum of |height differences|: jagged tops leave fewer placements
  and make holes.
- ``high`` (0.35) x (height - 8)^2 per column above row 8: the Game Over line is near.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .rules import EMPTY, X


@dataclass(frozen=True)
class Weights:
    """Weights of the heuristic (the module docstring says why each term matters)."""

    turn: float = 3.0  # value of one expected remaining turn (a turn scores a box or builds one)
    ready: float = 0.55  # share of a box's value credited for a combination already on the sheet
    progress: float = 0.45  # share credited for a growable structure, times (size/box)^2
    buried: float = 0.25  # multiplier of a structure's credit when it cannot grow (no open neighbour)
    hole_row: float = 1.6  # a regular row with a covered hole can never score its +2
    hole: float = 0.3  # each covered hole cell (wasted capacity)
    row_fill: float = 1.4  # partial credit (filled/7)^2 for rows that can still be completed
    bump: float = 0.08  # sum of |height difference| of neighbouring columns
    high: float = 0.35  # (height - 8)^2 for each column above row 8: risk of the Game Over line
    letter: float = 3.0  # circling a letter whose tile has not dropped its block yet
    letter_half: float = 0.35  # per notch still ahead, for a letter with one of its two boxes scored
    hurt: float = 2.0  # multiplayer: circling a letter, per share of opponents it will hit
    threat: float = 3.0  # multiplayer: circling a letter opponents have circled (or half-circled)
    wild_default: int = 5  # value of a wild die that no neighbour suggests
    power: float = 2.0  # exponent of (size/box) in the progress credit
    column: float = 0.5  # share of the +10 column bonus added to the value of a kind's last open box


DEFAULT_WEIGHTS = Weights()


@lru_cache(maxsize=4)
def neighbours(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    out = []
    for i in range(rows * cols):
        r, c = divmod(i, cols)
        nb = []
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if 0 <= r + dr < rows and 0 <= c + dc < cols:
                nb.append((r + dr) * cols + c + dc)
        out.append(tuple(nb))
    return tuple(out)


class Structures:
    """Same-valued regions and monotone paths of the unused number cells of a sheet."""

    __slots__ = ("free", "region", "regions", "up", "down", "up_next")

    def __init__(self, vals: list[int], used: list[bool], nbrs: tuple[tuple[int, ...], ...], max_number: int = 9):
        n = len(vals)
        free = [0 <= v <= max_number and not u for v, u in zip(vals, used)]
        region = [-1] * n
        regions: list[list[int]] = []
        cells = [i for i in range(n) if free[i]]
        for i in cells:
            if region[i] >= 0:
                continue
            rid = len(regions)
            v = vals[i]
            stack = [i]
            region[i] = rid
            members = []
            while stack:
                j = stack.pop()
                members.append(j)
                for k in nbrs[j]:
                    if region[k] < 0 and free[k] and vals[k] == v:
                        region[k] = rid
                        stack.append(k)
            regions.append(members)
        up = [0] * n
        down = [0] * n
        up_next = [-1] * n
        order = sorted(cells, key=vals.__getitem__)
        for i in reversed(order):  # decreasing value: up of value v+1 is known
            best, nxt, t = 0, -1, vals[i] + 1
            for k in nbrs[i]:
                if free[k] and vals[k] == t and up[k] > best:
                    best, nxt = up[k], k
            up[i] = best + 1
            up_next[i] = nxt
        for i in order:
            best, t = 0, vals[i] - 1
            for k in nbrs[i]:
                if free[k] and vals[k] == t and down[k] > best:
                    best = down[k]
            down[i] = best + 1
        self.free, self.region, self.regions = free, region, regions
        self.up, self.down, self.up_next = up, down, up_next

    def path(self, start: int, k: int) -> list[int]:
        out = [start]
        while len(out) < k:
            out.append(self.up_next[out[-1]])
        return out


def region_subset(members: list[int], k: int, nbrs, member_set: set[int] | None = None) -> list[int]:
    """k connected cells of a region, grown from its lowest cell (keeps the top, which can grow)."""
    if k >= len(members):
        start = min(members)
        member_set = set(members)
    else:
        start = min(members)
        member_set = member_set or set(members)
    order = [start]
    seen = {start}
    qi = 0
    while qi < len(order) and len(order) < k:
        j = order[qi]
        qi += 1
        for m in nbrs[j]:
            if m in member_set and m not in seen:
                seen.add(m)
                order.append(m)
                if len(order) == k:
                    break
    return order[:k]


class Context:
    """What the evaluation needs besides the grid: boxes, letters, tiles, weights."""

    def __init__(self, game, weights: Weights = DEFAULT_WEIGHTS) -> None:
        r = game.rules
        s = game.sheet
        self.rules = r
        self.rows, self.cols = r.rows, r.cols
        self.reg_rows = r.regular_rows
        self.nbrs = neighbours(r.rows, r.cols)
        self.w = weights
        self.box_sizes = tuple(r.box_sizes)
        self.bonus_size = r.bonus_size
        self.ident_open = {k: not d for k, d in zip(r.box_sizes, s.identical.tolist())}
        self.cons_open = {k: not d for k, d in zip(r.box_sizes, s.consecutive.tolist())}
        self.bonus_open = not s.bonus
        self.ident_done = sum(s.identical.tolist())
        self.cons_done = sum(s.consecutive.tolist())
        self.circled = s.circled.tolist()
        self.crossed = s.crossed.tolist()
        self.lines = s.lines.tolist()
        self.penalties = s.penalties.tolist()
        self.max_number = r.max_number
        self.full_column = r.full_column_points
        self.line_points = r.line_points
        self.penalty_points = r.penalty_points
        # open targets for the potential: (kind, size)
        self.ident_targets = [k for k in self.box_sizes if self.ident_open[k]] + ([self.bonus_size] if self.bonus_open else [])
        self.cons_targets = [k for k in self.box_sizes if self.cons_open[k]] + ([self.bonus_size] if self.bonus_open else [])

    # ------------------------------------------------------------ geometry
    def geometry(self, vals: list[int], heights: list[int]) -> tuple[float, int, int]:
        """(heuristic geometry value, line points this turn, penalty points this turn)."""
        w = self.w
        cols, reg = self.cols, self.reg_rows
        value = 0.0
        line_pts = 0
        for r in range(reg):
            base = r * cols
            filled = 0
            hole = 0
            for c in range(cols):
                if vals[base + c] != EMPTY:
                    filled += 1
                elif r < heights[c]:
                    hole += 1
            if filled == cols:
                if not self.lines[r]:
                    line_pts += self.line_points
                continue
            if hole:
                value -= w.hole_row + w.hole * hole
            else:
                f = filled / cols
                value += w.row_fill * f * f
        pen_pts = 0
        for i, r in enumerate(range(reg, self.rows)):
            if not self.penalties[i]:
                base = r * cols
                if any(vals[base + c] != EMPTY for c in range(cols)):
                    pen_pts -= self.penalty_points
        bump = 0
        high = 0.0
        for c in range(cols):
            h = heights[c]
            if c:
                bump += abs(h - heights[c - 1])
            if h > 8:
                high += (h - 8) ** 2
        value -= w.bump * bump + w.high * high
        return value, line_pts, pen_pts

    def geometry_batch(self, filled: np.ndarray, heights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`geometry` of many sheets at once: ``filled`` (P, rows, cols) bool, ``heights``
        (P, cols); returns (value, line points, penalty points), each (P,)."""
        w, reg, cols = self.w, self.reg_rows, self.cols
        regular = filled[:, :reg]
        count = regular.sum(axis=2)
        full = count == cols
        below = np.arange(reg)[None, :, None] < heights[:, None, :]
        holes = (~regular & below).sum(axis=2)
        open_line = ~np.array(self.lines, bool)[None, :]
        line_pts = self.line_points * (full & open_line).sum(axis=1)
        row_value = np.where(holes > 0, -(w.hole_row + w.hole * holes), w.row_fill * (count / cols) ** 2)
        value = np.where(full, 0.0, row_value).sum(axis=1)
        open_penalty = ~np.array(self.penalties, bool)[None, :]
        pen_pts = -self.penalty_points * (filled[:, reg:].any(axis=2) & open_penalty).sum(axis=1)
        bump = np.abs(np.diff(heights, axis=1)).sum(axis=1)
        high = (np.clip(heights - 8, 0, None) ** 2).sum(axis=1)
        return value - (w.bump * bump + w.high * high), line_pts, pen_pts

    # ------------------------------------------------------------ potential
    def potential(self, vals: list[int], st: Structures, heights: list[int],
                  ident_open=None, cons_open_targets=None, limit: int | None = None) -> float:
        """Promise of the unused numbers for the boxes still open; with ``limit``, only the
        ``limit`` best credits count (one combination is scored per remaining turn)."""
        w = self.w
        nbrs = self.nbrs
        cols, reg = self.cols, self.reg_rows
        ident_targets = self.ident_targets if ident_open is None else ident_open
        cons_targets = self.cons_targets if cons_open_targets is None else cons_open_targets

        def growable(i: int) -> bool:
            for k in nbrs[i]:
                if vals[k] == EMPTY:
                    r, c = divmod(k, cols)
                    if r >= heights[c] and r < reg:
                        return True
            return False

        credits: list[float] = []
        kv_i = self._box_values(ident_targets)
        kv_c = self._box_values(cons_targets)
        if ident_targets:
            triples = []
            for sid, members in enumerate(st.regions):
                m = len(members)
                if m < 2:
                    continue
                grow = None
                for k in ident_targets:
                    if m >= k:
                        credit = w.ready
                    else:
                        if grow is None:
                            grow = any(growable(i) for i in members)
                        credit = w.progress * (m / k) ** w.power * (1.0 if grow else w.buried)
                    triples.append((kv_i[k] * credit, sid, k))
            credits += _assign(triples)
        if cons_targets:
            triples = []
            up, down, free = st.up, st.down, st.free
            for i in range(len(vals)):
                if not free[i] or down[i] != 1 or up[i] < 2:
                    continue
                length = up[i]
                lo = vals[i]
                hi = lo + length - 1
                grow = None
                for k in cons_targets:
                    if length >= k:
                        credit = w.ready
                    else:
                        room = (hi + (k - length) <= self.max_number) or (lo - (k - length) >= 0)
                        if not room:
                            continue
                        if grow is None:
                            end = i
                            while st.up_next[end] >= 0:
                                end = st.up_next[end]
                            grow = (lo > 0 and growable(i)) or (hi < self.max_number and growable(end))
                        credit = w.progress * (length / k) ** w.power * (1.0 if grow else w.buried)
                    triples.append((kv_c[k] * credit, i, k))
            credits += _assign(triples)
        if limit is not None and len(credits) > limit:
            credits = sorted(credits, reverse=True)[:limit]
        return sum(credits)

    def _box_values(self, targets: list[int]) -> dict[int, float]:
        out = {k: float(k) for k in targets}
        regular = [k for k in targets if k != self.bonus_size]
        if len(regular) == 1:
            out[regular[0]] += self.w.column * self.full_column
        elif len(regular) == 2:
            for k in regular:
                out[k] += 0.5 * self.w.column * self.full_column
        return out

    # ------------------------------------------------------------ combos
    def combo_candidates(self, vals: list[int], st: Structures) -> list[tuple[str, int, list[int]]]:
        """One canonical combination per open box: (kind, size, ordered cells)."""
        out = []
        sizes = sorted({*self.ident_targets})
        if sizes:
            by_size = sorted(st.regions, key=len)
            for k in sizes:
                for members in by_size:
                    if len(members) >= k:
                        out.append(("identical", k, region_subset(members, k, self.nbrs)))
                        break
        sizes = self.cons_targets
        if sizes:
            up = st.up
            starts = [i for i in range(len(vals)) if st.free[i] and up[i] >= 3]
            for k in sizes:
                best, bi = 99, -1
                for i in starts:
                    if k <= up[i] < best:
                        best, bi = up[i], i
                if bi >= 0:
                    out.append(("consecutive", k, st.path(bi, k)))
        return out

    def combo_points(self, kind: str, k: int) -> tuple[int, float]:
        """(official points, heuristic letter value) of scoring box (kind, k) now."""
        if k == self.bonus_size:
            return k, 0.0
        pts = k
        if kind == "identical":
            if self.ident_done == len(self.box_sizes) - 1:
                pts += self.full_column
            other = not self.cons_open[k]
        else:
            if self.cons_done == len(self.box_sizes) - 1:
                pts += self.full_column
            other = not self.ident_open[k]
        return pts, (1.0 if other else 0.0)


def apply_used(used: list[bool], cells: list[int]) -> list[bool]:
    out = used[:]
    for i in cells:
        out[i] = True
    return out


def _assign(triples: list[tuple[float, int, int]]) -> list[float]:
    """Greedy matching: each structure credits one box, each box is credited once."""
    triples.sort(reverse=True)
    used_s: set[int] = set()
    used_k: set[int] = set()
    out = []
    for v, sid, k in triples:
        if sid in used_s or k in used_k:
            continue
        used_s.add(sid)
        used_k.add(k)
        out.append(v)
    return out
