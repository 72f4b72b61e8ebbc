"""Every constant of Lucky Numbers in one frozen value: a variant is another ``Rules``, not another code path."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

SETUPS = ("standard", "michael")
"""``standard``: each player's first tiles go on the diagonal in ascending order;
``michael``: four rounds of drawing one tile and choosing its diagonal cell."""


@dataclass(frozen=True)
class Rules:
    """Players, board, tiles and variants of one game of Lucky Numbers."""

    players: int = 4
    size: int = 4
    """The board is ``size`` x ``size``; the diagonal holds the setup tiles."""
    max_tile: int = 20
    """Tiles are numbered 1..max_tile; each player adds one set, so every number comes
    ``players`` times."""
    setup: str = "standard"
    bruno: bool = False
    """Bruno's variant: a placement diagonally next to the same number allows another action."""

    def __post_init__(self) -> None:
        for name in ("players", "size", "max_tile"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"Rules.{name} must be an int, got {value!r}")
        if not 2 <= self.players <= 4:
            raise ValueError(f"Rules.players must be 2..4, got {self.players}")
        if not 2 <= self.size <= 6:
            raise ValueError(f"Rules.size must be 2..6, got {self.size}")
        if self.max_tile < 2 * self.size - 1 or self.max_tile > 99:
            raise ValueError(
                f"Rules.max_tile must be {2 * self.size - 1}..99 so a board can be filled, got {self.max_tile}"
            )
        if self.setup not in SETUPS:
            raise ValueError(f"Rules.setup must be one of {SETUPS}, got {self.setup!r}")
        if not isinstance(self.bruno, bool):
            raise TypeError(f"Rules.bruno must be a bool, got {self.bruno!r}")
        if self.players * self.max_tile < self.players * self.size + 1:
            raise ValueError("Rules: the pool must hold more tiles than the setup takes")

    @property
    def cells(self) -> int:
        return self.size * self.size

    @property
    def tiles(self) -> int:
        """Tiles in the game: one set of 1..max_tile per player."""
        return self.players * self.max_tile

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Rules:
        keys = {f.name for f in fields(cls)}
        if not isinstance(data, dict) or set(data) != keys:
            raise ValueError(f"rules must be a dict with keys {sorted(keys)}, got {data!r}")
        return cls(**data)


DEFAULT_RULES = Rules()
