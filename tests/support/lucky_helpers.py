"""Hand-built Lucky Numbers positions for the rule scenarios."""

from __future__ import annotations

from collections import Counter
from typing import Any

from luckynumbers_env import Game, Rules


def position(
    rules: Rules,
    boards: list[list[int]],
    *,
    table: tuple[int, ...] = (),
    pool_first: tuple[int, ...] = (),
    pool_size: int | None = None,
    player: int = 0,
    phase: str = "choose",
    hand: int = 0,
    drawn: bool = False,
    extra: bool = False,
) -> Game:
    """A game in the given position. The tiles not placed elsewhere make up the pool (those of
    ``pool_first`` on top, then ascending); with ``pool_size`` the pool keeps only that many and
    the rest goes face up on the table, since every tile must be somewhere."""
    used = Counter(v for b in boards for v in b if v) + Counter(table) + Counter([hand] if hand else [])
    rest = Counter({v: rules.players for v in range(1, rules.max_tile + 1)}) - used
    rest_list = sorted(rest.elements())
    for v in pool_first:
        rest_list.remove(v)
    pool = list(pool_first) + rest_list
    extra_table: list[int] = []
    if pool_size is not None:
        pool, extra_table = pool[:pool_size], pool[pool_size:]
    state: dict[str, Any] = {
        "version": 1,
        "rules": rules.to_dict(),
        "boards": [list(b) for b in boards],
        "pool": pool,
        "table": sorted(list(table) + extra_table),
        "player": player,
        "phase": phase,
        "hand": hand,
        "drawn": drawn,
        "extra": extra,
        "turn": 0 if phase == "setup" else player,
        "winners": [],
        "ended_by": None,
    }
    return Game.from_dict(state)


def board(rows: list[list[int]]) -> list[int]:
    return [v for row in rows for v in row]


def diagonal(a: int, b: int, c: int, d: int) -> list[int]:
    return board([[a, 0, 0, 0], [0, b, 0, 0], [0, 0, c, 0], [0, 0, 0, d]])
