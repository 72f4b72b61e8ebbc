"""SearchPolicy: the greedy's ``width`` best plans re-ranked by the look-ahead, the next turn valued
by the greedy (or a critic, or played out). Deterministic per seed."""

from __future__ import annotations

from .lookahead import GameLookAhead


class SearchPolicy(GameLookAhead):
    """Greedy's top plans re-ranked by the expected greedy value of the next turn."""

    name = "search"
