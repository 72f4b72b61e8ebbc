"""What the n-tuple value reads: its table families (each: ``docs/research/ntuple.md``) and the
small facts that index them. Plain Python (no numba, no planner), so a config can be checked
without compiling anything.
"""

from __future__ import annotations

from dataclasses import dataclass

FAMILIES = ("track", "letters", "identical", "consecutive", "rows", "heights", "surface", "planner", "regions")
"""The table families, in the order their tables lie in the weights."""
REGIONS = 4
"""Same-valued regions read, largest first."""
EXPOSED_REGIONS = 3
"""Regions read by the ``regions`` family, largest first."""
PATHS = 3
"""Increasing paths read, longest first."""
MAX_SIZE = 8
"""Region sizes and path lengths are read up to this (the bonus box's size)."""
REGION_CODES = 2 * (MAX_SIZE + 1)
"""A region as ``2 * size + grows`` (0: no region)."""
OPEN_CELLS = 4
"""Open empty cells beside a region are counted up to OPEN_CELLS - 1."""
EXPOSED_CODES = (MAX_SIZE + 1) * OPEN_CELLS * 2
"""A region as ``(size * OPEN_CELLS + open cells beside it) * 2 + its value is on a die``."""
PATH_CODES = 4 * (MAX_SIZE + 1)
"""A path as ``4 * length + 2 * low end grows + high end grows`` (0: no path of 2 or more)."""
MAX_HEIGHT = 11
"""Column heights are read up to this (a column above it has crossed the Game Over line)."""
CELL_CODES = 12
"""A surface cell: 0 blocked (X or used), 1 + v a number v not used yet, 11 the floor."""
STEP_CODES = 5
"""A height difference of neighbouring columns, clipped to -2..2."""
POTENTIAL_BINS, POTENTIAL_STEP = 64, 0.5
"""The planner's potential in bins of half a point from 0 (the last bin takes the rest)."""
GEOMETRY_BINS, GEOMETRY_STEP, GEOMETRY_LOW = 48, 1.0, -36.0
"""The planner's geometry term in bins of a point from -36."""
COARSE = 4
"""The joint table of the two reads each in bins COARSE times wider."""
POTENTIAL_COARSE, GEOMETRY_COARSE = -(-POTENTIAL_BINS // COARSE), -(-GEOMETRY_BINS // COARSE)


@dataclass(frozen=True)
class NTupleSpec:
    """Which table families the value reads, and in how many stages (equal bands of the notches
    left) the clock is cut."""

    families: tuple[str, ...] = ("track", "letters", "identical", "consecutive", "rows", "heights")
    stages: int = 5

    def __post_init__(self) -> None:
        unknown = [f for f in self.families if f not in FAMILIES]
        if unknown or not self.families or len(set(self.families)) != len(self.families):
            raise ValueError(f"families must be distinct names among {FAMILIES}, got {self.families!r}")
        if isinstance(self.stages, bool) or not isinstance(self.stages, int) or self.stages < 1:
            raise ValueError(f"stages must be a positive int, got {self.stages!r}")


DEFAULT_SPEC = NTupleSpec()
"""The families and stages a value reads unless told otherwise."""
