"""Compiled landing of every placement at once (``ShapeTable.legal`` as a loop): the decision-level
environment asks at every decision, for the mask and the observation's ``landing``.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def landing_row(p, heights, cc, bottom):
    """Row of offset 0 of placement ``p`` (``ShapeTable.landing_rows``)."""
    row = heights[cc[p, 0]] - bottom[p, 0]
    for k in range(1, cc.shape[1]):
        row = max(row, heights[cc[p, k]] - bottom[p, k])
    return row


@njit(cache=True)
def write_placements(heights, cc, bottom, top, fits, orientation_shape, shape, rows, out):
    """Mark the legal placements of tetromino ``shape`` (-1: any) in the zeroed bool ``out``:
    ``ShapeTable.legal(heights) & ShapeTable.shape_placements(...)``."""
    cols = len(heights)
    for p in range(len(out)):
        if fits[p] and (shape < 0 or orientation_shape[p // cols] == shape):
            out[p] = landing_row(p, heights, cc, bottom) + top[p] < rows
