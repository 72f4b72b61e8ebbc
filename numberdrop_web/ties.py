"""Rows of an analysis that show the starred row's number: without a word the star would look
arbitrary, so the analysis says what set them apart (a difference past the shown decimal, or
the agent's own order among equals)."""

from __future__ import annotations

from typing import Any

RANKED_BY = ("lookahead", "agent_value", "value")
"""The column an agent chose by: the first of these its table has."""


def _shown(value: float) -> str:
    return f"{value:.1f}"  # as the page shows the numbers


def _rows(ranks: list[int]) -> str:
    """``row 2``, ``rows 2 and 5``, ``rows 2–8``, ``rows 2, 4 and 5``."""
    if len(ranks) == 1:
        return f"row {ranks[0]}"
    if ranks == list(range(ranks[0], ranks[-1] + 1)) and len(ranks) > 2:
        return f"rows {ranks[0]}\u2013{ranks[-1]}"
    return f"rows {', '.join(map(str, ranks[:-1]))} and {ranks[-1]}"


def tie_note(name: str, rows: list[dict[str, Any]], columns: list[str], head: dict[str, dict[str, str]]) -> str:
    """A sentence on the rows that show the chosen row's number in the column it was chosen by, or ''."""
    key = next((k for k in RANKED_BY if k in columns), None)
    chosen = next((r for r in rows if r.get("chosen")), None)
    if key is None or chosen is None or chosen.get(key) is None:
        return ""
    mine = chosen[key]
    alike = [r for r in rows if r is not chosen and r.get(key) is not None and _shown(r[key]) == _shown(mine)]
    if not alike:
        return ""
    words = head[key]["head"] if key in head else key
    said = []
    equal = [r for r in alike if r[key] == mine]
    if equal:
        said.append(
            f"\u2605 and {_rows([r['rank'] for r in equal])} tie at {mine:.3f} {words} (to three decimals): "
            f"{name} plays the highest, "
            "and of equal turns the first in its own order"
        )
    for r in alike:
        if r[key] != mine:
            said.append(f"row {r['rank']} shows {_shown(mine)} too, but its {words} is {r[key]:.3f} against {mine:.3f}")
    return "; ".join(said)
