"""A solo game as the page draws it: plain JSON, and one option per legal action of the pending
decision with its geometry (the page knows no rule)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from numberdrop_env.engine.actions import PERMUTATIONS, Phase
from numberdrop_env.engine.rules import EMPTY, WILD, Rules, X
from numberdrop_env.engine.shapes import normalise
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.render.text import PHASE_WORDS, decision_words

HIGH_SCORES = (99, 92, 75, 61, 55, 46, 34, 27, 13)
"""The rulebook's solo high-score table, best first."""


def die_value(v: int) -> int | str:
    """A die or cell value as the page shows it: a star is ``"*"``."""
    return "*" if v == WILD else int(v)


RULES_SHOWN = (
    "rows cols regular_rows letters box_sizes bonus_size line_points penalty_points full_column_points last_notch"
    " max_number max_score"
).split()


@lru_cache(maxsize=8)
def geometry(rules: Rules) -> dict[str, Any]:
    """What never changes during a game: the grid, the boxes and every tetromino orientation
    with the orientation a rotation (clockwise on the sheet) or a mirror image turns it into."""
    from numberdrop_env.engine.actions import tetromino_table

    table = tetromino_table(rules)
    index = {cells: o for o, cells in enumerate(table.orientations)}
    orientations = []
    for o, cells in enumerate(table.orientations):
        rotated = normalise((-c, r) for r, c in cells)  # row up, column right: clockwise
        mirrored = normalise((r, -c) for r, c in cells)
        orientations.append(
            {
                "index": o,
                "shape": table.names[int(table.orientation_shape[o])],
                "cells": [list(c) for c in cells],
                "rotate": index[rotated],
                "flip": index[mirrored],
            }
        )
    return {
        **{name: getattr(rules, name) for name in RULES_SHOWN},
        "shapes": list(table.names),
        "orientations": orientations,
        "high_scores": list(HIGH_SCORES),
        "phase_words": PHASE_WORDS,
    }


SHEET_ARRAYS = ("values", "used", "identical", "consecutive", "circled", "lines", "penalties", "heights")


def game_state(game: SoloGame) -> dict[str, Any]:
    """The whole game as the page draws it, with the options of the pending decision."""
    s = game.sheet
    return {
        "phase": game.phase.value,
        "prompt": PHASE_WORDS[game.phase.value],
        "turn": game.turn,
        "over": game.is_over,
        "score": game.score(),
        "breakdown": s.score_breakdown(),
        "sheet": {**{name: getattr(s, name).tolist() for name in SHEET_ARRAYS}, "bonus": bool(s.bonus)},
        "tiles": list(game.tiles),
        "notches": game.notches.tolist(),
        "dice": None if game.dice is None else [die_value(v) for v in game.dice],
        "sorted_dice": [die_value(v) for v in game.sorted_dice()],
        "shape_face": game.shape_face,
        "block_tile": game.block_tile,
        "block_letter": None if game.block_tile is None else game.rules.letters[game.block_tile],
        "pending_cells": [list(c) for c in game.pending_cells],
        "pending_values": [die_value(v) for v in game.pending_values],
        "selection": [list(c) for c in game.selection],
        "legal": legal_options(game),
    }


def legal_options(game: SoloGame) -> dict[str, Any]:
    """Every legal decision now, grouped as the page offers them; each carries its action."""
    mask, L, p = game.legal_mask(), game.layout, game.phase
    legal = np.flatnonzero(mask).tolist()
    out: dict[str, Any] = {"kind": p.value, "count": len(legal)}
    if p is Phase.START:
        out["columns"] = [{"column": a - L.start, "action": a} for a in legal]
    elif p in (Phase.SLIDE, Phase.STAR_SLIDE):
        letters = game.rules.letters
        out["tiles"] = [
            {"tile": a - L.slide, "letter": letters[a - L.slide], "action": a, "words": decision_words(game, a)}
            for a in legal
        ]
    elif p in (Phase.BLOCK, Phase.PLACE):
        offset = L.block if p is Phase.BLOCK else L.place
        out["placements"] = [_placement(game, a, offset) for a in legal]
    elif p is Phase.ARRANGE:
        dice = game.sorted_dice()
        out["cells"] = [list(c) for c in game.pending_cells]
        out["arrangements"] = [
            {"action": a, "values": [die_value(dice[i]) for i in PERMUTATIONS[a - L.arrange]]} for a in legal
        ]
    elif p is Phase.WILD:
        out["cell"] = list(game.pending_cells[game.pending_values.index(WILD)])
        out["values"] = [{"value": a - L.wild, "action": a} for a in legal]
    elif p is Phase.COMBO:
        cols = game.rules.cols
        out["select"] = [{"cell": list(divmod(a - L.select, cols)), "action": a} for a in legal if a < L.confirm]
        out["confirm"] = L.confirm if mask[L.confirm] else None
        out["confirm_box"] = _box_of(game) if mask[L.confirm] else None
        out["pass"] = L.pass_
    return out


def _box_of(game: SoloGame) -> dict[str, Any]:
    """The box a confirmed selection ticks: its size and whether its numbers are the same or a run."""
    values = {int(game.sheet.values[r, c]) for r, c in game.selection}
    return {"size": len(game.selection), "kind": "identical" if len(values) == 1 else "consecutive"}


def _placement(game: SoloGame, action: int, offset: int) -> dict[str, Any]:
    t, (o, col) = game.table, divmod(action - offset, game.rules.cols)
    shape = t.names[int(t.orientation_shape[o])]
    cells = [list(c) for c in t.cells(action - offset, game.sheet.heights)]
    return {"action": action, "orientation": o, "column": col, "shape": shape, "cells": cells}


def options_actions(options: dict[str, Any]) -> list[int]:
    """Every action the options of ``legal_options`` offer (the tests compare it with the mask)."""
    found: list[int] = []
    for key in ("columns", "tiles", "placements", "arrangements", "values", "select"):
        found += [o["action"] for o in options.get(key, [])]
    for key in ("confirm", "pass"):
        if options.get(key) is not None:
            found.append(options[key])
    return sorted(found)


def drawing(before: SoloGame, after: SoloGame) -> dict[str, Any]:
    """What a turn changes on the sheet, for a ghost: numbers written, X cells, cells scored
    and tiles slid (from ``before`` to ``after``, two states of one game)."""
    b, a = before.sheet, after.sheet
    changed = (b.values == EMPTY) & (a.values != EMPTY)
    written = [[int(r), int(c), int(a.values[r, c])] for r, c in zip(*np.nonzero(changed & (a.values != X)))]
    blocks = [[int(r), int(c)] for r, c in zip(*np.nonzero(changed & (a.values == X)))]
    scored = [[int(r), int(c)] for r, c in zip(*np.nonzero(a.used & ~b.used))]
    slides = (after.notches - before.notches).tolist()
    return {"written": written, "blocks": blocks, "scored": scored, "slides": slides}
