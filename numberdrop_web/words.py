"""A turn in the game's words: a sentence for a hint, and an exact line naming everything it changes
on the sheet, so two turns read alike only when they leave the same sheet."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numberdrop_env.engine.solo import SoloGame

from .views import drawing


def _span(lo: int, hi: int, what: str) -> str:
    return f"{what} {lo}" if lo == hi else f"{what}s {lo}\u2013{hi}"


def cells_picture(cells: dict[tuple[int, int], str]) -> str:
    """Cells and what is written in them, as rows top first: ``rows 2–3, columns 4–5: 6 · / 4 5``."""
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    r0, r1, c0, c1 = min(rows), max(rows), min(cols), max(cols)
    lines = [" ".join(cells.get((r, c), "\u00b7") for c in range(c0, c1 + 1)) for r in range(r1, r0 - 1, -1)]
    return f"{_span(r0, r1, 'row')}, {_span(c0, c1, 'column')}: {' / '.join(lines)}"


def _slides(slides: Sequence[int], letters: str) -> str:
    moved = [letters[i] + ("" if n == 1 else " twice" if n == 2 else f" {n} times") for i, n in enumerate(slides) if n]
    return "slide " + " and ".join(moved) if moved else ""


def _decisions(game: SoloGame, actions: Sequence[int]) -> tuple[dict[str, Any], SoloGame]:
    """What the turn's decisions say beyond the sheet (the shapes dropped), and the game after."""
    clone, said = game.clone(), {}
    for a in actions:
        d = clone.describe(a)
        if d.get("phase") in ("place", "block", "start"):
            said[d["phase"]] = d
        clone.step(a)
    return said, clone


def turn_lines(game: SoloGame, actions: Sequence[int]) -> tuple[str, str]:
    """(an exact line, a short sentence) for the turn ``actions`` play from ``game``."""
    said, after = _decisions(game, actions)
    if "start" in said:
        words = f"write the 1 in column {said['start']['cells'][0][1]}"
        return words, words
    d = drawing(game, after)
    exact, short = [], []
    slid = _slides(d["slides"], game.rules.letters)
    if slid:
        exact.append(slid)
        short.append(slid)
    if d["blocks"]:
        block = said.get("block", {})
        name = f"block {block.get('letter', '')} ({block.get('shape', '')})" if block else "block"
        exact.append(f"{name} X at {cells_picture({(r, c): 'X' for r, c in d['blocks']})}")
        short.append(f"drop {name} in {_span(*_col_range(d['blocks']), 'column')}")
    if d["written"]:
        shape = said.get("place", {}).get("shape", "")
        cells = {(r, c): str(v) for r, c, v in d["written"]}
        exact.append(f"{shape} at {cells_picture(cells)}".strip())
        short.append(f"drop the {shape} in {_span(*_col_range(d['written']), 'column')}")
    elif "place" not in said and not d["blocks"]:
        exact.append("the tetromino finds no room")
        short.append("the tetromino finds no room")
    if d["scored"]:
        values = [int(after.sheet.values[r, c]) for r, c in d["scored"]]
        kind = "identical" if len(set(values)) == 1 else "consecutive"
        nums = " ".join(map(str, sorted(values)))
        where = " ".join(f"({r},{c})" for r, c in sorted(map(tuple, d["scored"])))
        exact.append(f"score {nums} {kind} at {where}")
        short.append(f"score {nums} ({len(values)} {kind})")
    return "; ".join(exact) or "no change", ", ".join(short) or "no change"


def star_slide_words(game: SoloGame, slides: Sequence[int]) -> str:
    """What the star slid by itself this turn (``GameSession.star_slides``), or nothing."""
    letters, last = game.rules.letters, game.rules.last_notch
    said = [
        f"tile {letters[i]} ({game.tiles[i]}) {'one notch' if n == 1 else f'{n} notches'}"
        + (" to GO!" if game.notches[i] >= last else "")
        for i, n in enumerate(slides)
        if n > 0
    ]
    return f"A die shows a star, so the tile of the shape rolled slid by itself: {' and '.join(said)}." if said else ""


def _col_range(cells: Sequence[Sequence[int]]) -> tuple[int, int]:
    cols = [c[1] for c in cells]
    return min(cols), max(cols)
