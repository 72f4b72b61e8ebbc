"""Every constant of the game in one frozen value: other dice or grids are other ``Rules``, not code paths."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

EMPTY = -1
"""Grid value of an empty cell."""
X = 10
"""Grid value of a block cell."""
WILD = -1
"""Die face value of a star (wild number, or free shape choice)."""
MIN_PLAYERS, MAX_PLAYERS = 2, 6
"""Players at a multiplayer table."""

Cells = tuple[tuple[int, int], ...]

NamedShapes = tuple[tuple[str, Cells], ...]

_TETROMINOES: NamedShapes = (
    ("I", ((0, 0), (1, 0), (2, 0), (3, 0))),
    ("O", ((0, 0), (0, 1), (1, 0), (1, 1))),
    ("T", ((0, 0), (0, 1), (0, 2), (1, 1))),
    ("L", ((0, 0), (1, 0), (2, 0), (0, 1))),
    ("S", ((0, 0), (0, 1), (1, 1), (1, 2))),
)

_MULTI_BLOCKS: NamedShapes = (
    ("L3", ((0, 0), (1, 0), (0, 1))),
    ("I3", ((0, 0), (1, 0), (2, 0))),
    ("U5", ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2))),
    ("X5", ((0, 1), (1, 0), (1, 1), (1, 2), (2, 1))),
    ("T5", ((0, 1), (1, 1), (2, 0), (2, 1), (2, 2))),
)


@dataclass(frozen=True)
class Rules:
    """The printed components and scoring of one edition of the game."""

    rows: int = 14
    cols: int = 7
    regular_rows: int = 11
    """Rows below the Game Over line; each has a ``+2`` box. The rest are penalty rows."""
    number_dice: tuple[tuple[int, ...], ...] = (
        (1, WILD, 3, 4, 5, 7),
        (1, 2, WILD, 4, 5, 6),
        (2, 3, 4, WILD, 6, 7),
        (1, 2, 3, 5, 6, 7),
    )
    shape_die: tuple[str, ...] = ("I", "O", "T", "L", "S", "*")
    tetrominoes: NamedShapes = _TETROMINOES
    """(name, base cells) of each tetromino; also the solo block tiles, made of X cells."""
    multi_blocks: NamedShapes = _MULTI_BLOCKS
    box_sizes: tuple[int, ...] = (3, 4, 5, 6, 7)
    """Sizes of the identical and consecutive boxes; letter i of ``letters`` sits beside size i."""
    bonus_size: int = 8
    letters: str = "ABCDE"
    max_number: int = 9
    """Wild dice become any value 0..max_number."""
    line_points: int = 2
    penalty_points: int = 5
    full_column_points: int = 10
    """Awarded once for all identical boxes scored, once for all consecutive boxes."""
    last_notch: int = 4
    start_number: int = 1

    def __post_init__(self) -> None:
        if len(self.box_sizes) != len(self.letters):
            raise ValueError("Rules: one block letter is needed per box size")
        if not 0 < self.regular_rows <= self.rows:
            raise ValueError("Rules: regular_rows must lie within the grid")
        if self.max_number >= X:
            raise ValueError(f"Rules: max_number must be below the X code {X}")
        for die in self.number_dice:
            if any(f != WILD and not 0 <= f <= self.max_number for f in die):
                raise ValueError(f"Rules: number die faces {die} out of range")
        for face in self.shape_die:
            if face != "*" and face not in self.shape_names:
                raise ValueError(f"Rules: shape die face {face!r} is not a tetromino")

    @property
    def penalty_rows(self) -> range:
        return range(self.regular_rows, self.rows)

    @cached_property
    def shape_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.tetrominoes)

    @property
    def max_score(self) -> int:
        boxes = 2 * sum(self.box_sizes) + self.bonus_size
        return boxes + 2 * self.full_column_points + self.line_points * self.regular_rows


DEFAULT_RULES = Rules()
