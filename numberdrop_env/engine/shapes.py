"""Fixed orientations of shapes and the tables that drop them: per placement (orientation,
column) the cell offsets and each cell's lowest offset in its column, so every landing row is
one NumPy expression over the column heights.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

Cell = tuple[int, int]


def normalise(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    """Shift cells so the lowest row and leftmost column are 0; sort them."""
    cells = list(cells)
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def fixed_orientations(cells: Iterable[Cell]) -> list[tuple[Cell, ...]]:
    """Every distinct rotation and mirror image of a shape, in a stable order."""
    base = list(cells)
    found: list[tuple[Cell, ...]] = []
    for mirrored in (False, True):
        shape = [(r, -c) for r, c in base] if mirrored else base
        for _ in range(4):
            shape = [(c, -r) for r, c in shape]
            norm = normalise(shape)
            if norm not in found:
                found.append(norm)
    return sorted(found)


@dataclass(frozen=True)
class ShapeTable:
    """All placements ``p = orientation * cols + column`` of a family of shapes (those leaving the
    grid are kept, so indices are regular, but never legal)."""

    names: tuple[str, ...]
    orientations: tuple[tuple[Cell, ...], ...]
    orientation_shape: np.ndarray  # (O,) index into names
    rows: int
    cols: int
    dr: np.ndarray  # (P, k) row offset of each cell
    cc: np.ndarray  # (P, k) absolute column of each cell (clipped for unusable placements)
    bottom: np.ndarray  # (P, k) lowest row offset within that cell's column
    top: np.ndarray  # (P,) highest row offset
    fits_columns: np.ndarray  # (P,) bool
    owners: np.ndarray  # (shapes, P) bool: placements of each named shape

    @classmethod
    def build(cls, shapes: Iterable[tuple[str, Iterable[Cell]]], rows: int, cols: int) -> ShapeTable:
        shapes = tuple(shapes)
        names = tuple(name for name, _ in shapes)
        orients: list[tuple[Cell, ...]] = []
        owner: list[int] = []
        for i, (_, base) in enumerate(shapes):
            for o in fixed_orientations(base):
                orients.append(o)
                owner.append(i)
        size = len(orients[0])
        if any(len(o) != size for o in orients):
            raise ValueError("ShapeTable: all shapes of a family must have the same number of cells")
        n = len(orients) * cols
        dr = np.zeros((n, size), np.int64)
        cc = np.zeros((n, size), np.int64)
        bottom = np.zeros((n, size), np.int64)
        fits = np.zeros(n, bool)
        for o, cells in enumerate(orients):
            offs = np.array(cells)
            low = {c: min(r for r, cx in cells if cx == c) for _, c in cells}
            for x in range(cols):
                p = o * cols + x
                dr[p] = offs[:, 0]
                cc[p] = np.minimum(offs[:, 1] + x, cols - 1)
                bottom[p] = [low[c] for _, c in cells]
                fits[p] = offs[:, 1].max() + x < cols
        return cls(
            names=names,
            orientations=tuple(orients),
            orientation_shape=np.array(owner),
            rows=rows,
            cols=cols,
            dr=dr,
            cc=cc,
            bottom=bottom,
            top=dr.max(axis=1),
            fits_columns=fits,
            owners=np.repeat(np.array(owner), cols)[None, :] == np.arange(len(names))[:, None],
        )

    @property
    def size(self) -> int:
        """Number of placement slots (orientations × columns)."""
        return len(self.dr)

    def shape_placements(self, shapes: tuple[str, ...]) -> np.ndarray:
        """Bool (P,) mask of the placements of the named shapes."""
        return self.owners[[self.names.index(s) for s in shapes]].any(axis=0)

    def landing_rows(self, heights: np.ndarray) -> np.ndarray:
        """Row of offset 0 for every placement, given the column heights."""
        return (heights[self.cc] - self.bottom).max(axis=1)

    def lands_inside(self, landing_rows: np.ndarray) -> np.ndarray:
        """Bool (P,): placements inside the columns whose landed cells all lie inside the rows."""
        return self.fits_columns & (landing_rows + self.top < self.rows)

    def legal(self, heights: np.ndarray) -> np.ndarray:
        """Bool (P,): the placements that are legal on a sheet with these column heights."""
        return self.lands_inside(self.landing_rows(heights))

    def cells(self, placement: int, heights: np.ndarray) -> list[Cell]:
        """Landed cells of one placement, sorted by (row, column)."""
        if not self.fits_columns[placement]:
            raise ValueError(f"placement {placement} leaves the grid's columns")
        r0 = int((heights[self.cc[placement]] - self.bottom[placement]).max())
        return sorted((r0 + int(r), int(c)) for r, c in zip(self.dr[placement], self.cc[placement]))


@lru_cache(maxsize=8)
def neighbour_table(rows: int, cols: int) -> np.ndarray:
    """(rows*cols, 4) flat indices of the orthogonal neighbours; ``rows*cols`` pads."""
    n = rows * cols
    out = np.full((n, 4), n, np.int64)
    for i in range(n):
        r, c = divmod(i, cols)
        for k, (dr, dc) in enumerate(((1, 0), (-1, 0), (0, 1), (0, -1))):
            if 0 <= r + dr < rows and 0 <= c + dc < cols:
                out[i, k] = (r + dr) * cols + c + dc
    return out
