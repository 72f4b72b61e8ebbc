"""What the n-tuple value reads: its table families and the small facts that index them.

Plain Python (no numba, no planner), so a config can be checked without compiling anything;
``agents.values.lookups`` reads the facts off a sheet, ``agents.values.ntuple`` holds the weights.

The value of a sheet (``agents.values.ntuple``) is a sum of weights, one per table entry the
sheet reads. The tables come in *families* (``FAMILIES``), each switched on or off by ``NTupleSpec``:

- ``track``: which identical and consecutive boxes and the bonus box are ticked, with the
  notches left (the clock: every turn slides one or two notches, the game ends at none);
- ``letters``: each letter's notch and whether it is circled (a circled letter's block never
  drops; a tile one notch from its last drops its block soon);
- ``identical``: the same-valued regions of the unused numbers, the four largest, each as its
  size (up to 8) and whether it can still grow (an empty cell next to it that a later piece can
  fill); three tables join them with the open identical boxes and the stage;
- ``consecutive``: the increasing paths of the unused numbers (from every cell that no value
  one lower touches), the three longest, each as its length (up to 8) and whether each end can
  still grow (an open empty neighbour and room in 0..9); three tables join them with the open
  consecutive boxes and the stage;
- ``rows``: each regular row as the pattern of its cells (filled, empty and open, or a covered
  hole), one table per row, read for the grid and its mirror image;
- ``heights``: the heights of each three neighbouring columns (up to 11), one table per place,
  read for the grid and its mirror image;
- ``planner``: the planner's own measurements of the sheet, its potential (the box credits of
  its regions and paths) and its geometry term (holes, rows, heights), each in bins, by
  stage, and the two jointly in coarser bins: a learned calibration of the hand-written value;
- ``regions``: the same-valued regions again, the three largest, each as its size, how many
  open empty cells touch it (up to 3: where the next pieces can extend it) and whether its
  value is on a number die's face (else only a star can extend it); tables join the largest
  with the open identical boxes and the stage, the two largest with the stage, and the
  second with the open boxes;
- ``surface``: each two neighbouring columns' top cells (blocked, a number 0..9 not used yet,
  or the floor) and their height difference (-2..2), one table per place, read for the grid
  and its mirror image: which values lie where the next pieces land.

The *stage* is the notches left on the board in ``stages`` equal bands. A sheet that ends the
game is worth 0 (no table is read): the final score is then known.
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


@dataclass(frozen=True)
class NTupleSpec:
    """Which table families the value reads and in how many stages the clock is cut."""

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
