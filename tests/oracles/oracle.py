"""Independent brute-force oracle of the Number Drop rules (RULES.md sections 1, 3, 4, 7).

Deliberately simple and slow. It must NOT import numberdrop_env: tests compare the
package against this file.

Conventions:
- ``values``: numpy int8 array of shape (14, 7), index [row, col], row 0 = bottom.
  -1 = empty, 0..9 = a number, 10 = X (block cell).
- ``used``: bool array (14, 7), number cells already part of a scored combination.
- A cell is a ``(row, col)`` tuple; a shape is a collection of cells.
"""

from __future__ import annotations

import numpy as np

ROWS = 14
COLS = 7
EMPTY = -1
X = 10
REGULAR_ROWS = range(0, 11)
PENALTY_ROWS = range(11, 14)
BOX_SIZES = (3, 4, 5, 6, 7)
BONUS_SIZE = 8

Cell = tuple[int, int]

# Base cells of the five tetrominoes (any one orientation).
TETROMINOES: dict[str, frozenset[Cell]] = {
    "I": frozenset({(0, 0), (0, 1), (0, 2), (0, 3)}),
    "O": frozenset({(0, 0), (0, 1), (1, 0), (1, 1)}),
    "T": frozenset({(0, 0), (0, 1), (0, 2), (1, 1)}),
    "L": frozenset({(0, 0), (1, 0), (2, 0), (0, 1)}),
    "S": frozenset({(0, 0), (0, 1), (1, 1), (1, 2)}),
}


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------


def normalise(cells) -> frozenset[Cell]:
    """Translate cells so that min row = 0 and min col = 0."""
    cells = [(int(r), int(c)) for r, c in cells]
    min_r = min(r for r, _ in cells)
    min_c = min(c for _, c in cells)
    return frozenset((r - min_r, c - min_c) for r, c in cells)


def _rotate90(cells) -> list[Cell]:
    return [(c, -r) for r, c in cells]


def _mirror(cells) -> list[Cell]:
    return [(r, -c) for r, c in cells]


def fixed_orientations(cells) -> set[frozenset[Cell]]:
    """All distinct normalised shapes under 90-degree rotations and mirroring."""
    result: set[frozenset[Cell]] = set()
    for start in (list(cells), _mirror(cells)):
        current = start
        for _ in range(4):
            result.add(normalise(current))
            current = _rotate90(current)
    return result


# ---------------------------------------------------------------------------
# Dropping (section 3)
# ---------------------------------------------------------------------------


def _is_free(values, r: int, c: int) -> bool:
    """A position a falling cell may occupy: row >= 0 and empty (above the grid is free)."""
    if r < 0:
        return False
    if r >= ROWS:
        return True
    return int(values[r, c]) == EMPTY


def drop(values, shape, col: int) -> frozenset[Cell] | None:
    """Landed cells of `shape` dropped with its leftmost cells at column `col`, or None."""
    shape = normalise(shape)
    cells = [(r, c + col) for r, c in shape]
    for _, c in cells:
        if c < 0 or c >= COLS:
            return None
    # Start entirely above the grid: lowest cell at row ROWS (= 14).
    offset = ROWS
    # Sanity: the start position is free (everything above the grid is free).
    for r, c in cells:
        assert _is_free(values, r + offset, c)
    while True:
        next_ok = True
        for r, c in cells:
            if not _is_free(values, r + offset - 1, c):
                next_ok = False
                break
        if not next_ok:
            break
        offset -= 1
    landed = frozenset((r + offset, c) for r, c in cells)
    for r, _ in landed:
        if r >= ROWS:
            return None
    return landed


def legal_landings(values, shapes) -> set[frozenset[Cell]]:
    """Every legal landed cell set over all given shapes and all columns."""
    result: set[frozenset[Cell]] = set()
    for shape in shapes:
        for col in range(COLS):
            landed = drop(values, shape, col)
            if landed is not None:
                result.add(landed)
    return result


# ---------------------------------------------------------------------------
# Combinations (section 4)
# ---------------------------------------------------------------------------


def _neighbours(cell: Cell) -> list[Cell]:
    r, c = cell
    out = []
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < ROWS and 0 <= cc < COLS:
            out.append((rr, cc))
    return out


def _adjacent(a: Cell, b: Cell) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def _available(values, used, cell: Cell) -> bool:
    """An unused number cell (0..9, not X, not empty)."""
    r, c = cell
    v = int(values[r, c])
    return 0 <= v <= 9 and not bool(used[r, c])


def _all_cells():
    for r in range(ROWS):
        for c in range(COLS):
            yield (r, c)


def identical_combos(values, used, sizes) -> set[frozenset[Cell]]:
    """All connected sets of k unused number cells of one value, k in `sizes`."""
    sizes = set(sizes)
    if not sizes:
        return set()
    max_k = max(sizes)
    result: set[frozenset[Cell]] = set()
    # Level-by-level growth of connected same-valued sets, deduplicated.
    level: set[frozenset[Cell]] = set()
    for cell in _all_cells():
        if _available(values, used, cell):
            level.add(frozenset([cell]))
    k = 1
    while level:
        if k in sizes:
            result |= level
        if k >= max_k:
            break
        next_level: set[frozenset[Cell]] = set()
        for group in level:
            some = next(iter(group))
            v = int(values[some])
            for cell in group:
                for n in _neighbours(cell):
                    if n in group:
                        continue
                    if _available(values, used, n) and int(values[n]) == v:
                        next_level.add(group | {n})
        level = next_level
        k += 1
    return result


def consecutive_paths(values, used, sizes) -> set[tuple[Cell, ...]]:
    """All ordered paths (ascending AND descending) of unused number cells, length in `sizes`."""
    sizes = set(sizes)
    if not sizes:
        return set()
    max_k = max(sizes)
    ascending: set[tuple[Cell, ...]] = set()

    def extend(path: list[Cell]) -> None:
        if len(path) in sizes:
            ascending.add(tuple(path))
        if len(path) >= max_k:
            return
        last = path[-1]
        for n in _neighbours(last):
            if _available(values, used, n) and int(values[n]) == int(values[last]) + 1:
                # Values strictly increase, so n cannot already be in the path.
                assert n not in path
                extend(path + [n])

    for cell in _all_cells():
        if _available(values, used, cell):
            extend([cell])
    result = set(ascending)
    for p in ascending:
        result.add(tuple(reversed(p)))
    return result


def combo_options(values, used, open_identical, open_consecutive, bonus_open, selection):
    """(cells that may be selected next, whether confirm is legal) for incremental selection."""
    sel = [tuple(int(x) for x in c) for c in selection]
    ident_sizes = set(open_identical)
    consec_sizes = set(open_consecutive)
    if bonus_open:
        ident_sizes.add(BONUS_SIZE)
        consec_sizes.add(BONUS_SIZE)

    idents = identical_combos(values, used, ident_sizes)
    paths = consecutive_paths(values, used, consec_sizes)

    options: set[Cell] = set()
    confirm = False
    sel_set = set(sel)
    duplicate_free = len(sel_set) == len(sel)

    # Identical sets: grown by adding a cell adjacent to any selected cell.
    if duplicate_free:
        for t in idents:
            if not sel_set <= t:
                continue
            if len(sel) >= 3 and sel_set == t:
                confirm = True
            for n in t:
                if n in sel_set:
                    continue
                if not sel or any(_adjacent(n, s) for s in sel):
                    options.add(n)

    # Consecutive paths: selection + [n] must be a prefix of the ordered path.
    k = len(sel)
    for p in paths:
        if list(p[:k]) != sel:
            continue
        if k == len(p) and k >= 3:
            confirm = True
        if k < len(p):
            options.add(p[k])

    return options, confirm


# ---------------------------------------------------------------------------
# Score (section 7)
# ---------------------------------------------------------------------------


def score_from_sheet(identical_boxes, consecutive_boxes, bonus, values) -> int:
    """Final score: boxes + full-row bonuses + completed regular rows - penalty rows."""
    identical_boxes = set(identical_boxes)
    consecutive_boxes = set(consecutive_boxes)
    score = 0
    for s in identical_boxes:
        score += s
    for s in consecutive_boxes:
        score += s
    if bonus:
        score += BONUS_SIZE
    if identical_boxes == set(BOX_SIZES):
        score += 10
    if consecutive_boxes == set(BOX_SIZES):
        score += 10
    values = np.asarray(values)
    for r in REGULAR_ROWS:
        full = True
        for c in range(COLS):
            if int(values[r, c]) == EMPTY:
                full = False
        if full:
            score += 2
    for r in PENALTY_ROWS:
        occupied = False
        for c in range(COLS):
            if int(values[r, c]) != EMPTY:
                occupied = True
        if occupied:
            score -= 5
    return score
