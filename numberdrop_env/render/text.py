"""A readable text picture of a solo sheet, for ``render_mode="ansi"`` and the CLI, and its
decisions in words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..engine.rules import EMPTY, WILD, X

if TYPE_CHECKING:
    from ..engine.solo import SoloGame
    from ..engine.table import Table


def render_text(game: SoloGame) -> str:
    r, sheet = game.rules, game.sheet
    pending = dict(zip(game.pending_cells, game.pending_values or ["?"] * len(game.pending_cells)))
    selected = set(game.selection)
    lines = [f"Number Drop (solo)  turn {game.turn}  phase {game.phase.value}  score {game.score()}"]
    if game.dice is not None:
        dice = " ".join("*" if v == WILD else str(v) for v in game.dice)
        lines.append(f"dice: {dice}   shape die: {game.shape_face}")
    lines.append("     " + " ".join(f"{c:^3}" for c in range(r.cols)))
    for row in range(r.rows - 1, -1, -1):
        cells = [
            _cell(sheet.values[row, c], sheet.used[row, c], pending.get((row, c)), (row, c) in selected)
            for c in range(r.cols)
        ]
        if row >= r.regular_rows:
            box = f"-{r.penalty_points} [{'x' if sheet.penalties[row - r.regular_rows] else ' '}]"
        else:
            box = f"+{r.line_points} [{'x' if sheet.lines[row] else ' '}]"
        lines.append(f"{row:>3} |" + " ".join(cells) + f"| {box}")
        if row == r.regular_rows:
            lines.append("    " + "=" * (4 * r.cols) + " Game Over line")
    lines.append(_track(game))
    lines.append(
        "solo board: "
        + "  ".join(
            f"{letter}:{tile} {'#' * int(n)}{'.' * (r.last_notch - int(n))}"
            for letter, tile, n in zip(r.letters, game.tiles, game.notches)
        )
    )
    return "\n".join(lines) + "\n"


def _cell(value: int, used: bool, pending: int | str | None, selected: bool) -> str:
    if pending is not None:
        return f"?{'*' if pending == WILD else pending}?"
    if value == EMPTY:
        return " . "
    if value == X:
        return " X "
    if selected:
        return f"<{value}>"
    return f"({value})" if used else f" {value} "


def _track(game: SoloGame) -> str:
    r, s = game.rules, game.sheet
    mark = lambda done: "x" if done else " "  # noqa: E731
    ident = " ".join(f"{k}[{mark(d)}]" for k, d in zip(r.box_sizes, s.identical))
    cons = " ".join(f"{k}[{mark(d)}]" for k, d in zip(r.box_sizes, s.consecutive))
    letters = " ".join(
        f"({t})" if c else (f"~{t}~" if x else f" {t} ") for t, c, x in zip(r.letters, s.circled, s.crossed)
    )
    return (
        f"identical   {ident}\nconsecutive {cons}\nbonus {r.bonus_size}[{mark(s.bonus)}]   letters {letters}"
        f"\nbreakdown {game.sheet.score_breakdown()}"
    )


PHASE_WORDS = {
    "start": "write the 1 in row 0",
    "slide": "slide a tile",
    "star_slide": "star: slide a tile",
    "block": "drop the block",
    "place": "drop the tetromino",
    "arrange": "arrange the dice",
    "wild": "choose a star's value",
    "combo": "score a combination or pass",
    "game_over": "game over",
    "wait": "wait for the others",
}
"""The pending decision (a phase's value) as a player would say it."""


def cell_name(cell: Sequence[int]) -> str:
    """``r2c3``: row 2 (row 0 at the bottom), column 3, as the text picture numbers them."""
    return f"r{cell[0]}c{cell[1]}"


def decision_words(game: SoloGame, action: int) -> str:
    """A legal decision of ``game`` in a short sentence, for people (``SoloGame.describe`` for programs)."""
    d = game.describe(action)
    if not d.get("valid", True):
        return f"action {action} means nothing in phase {d['phase']}"
    phase, r = d["phase"], game.rules
    if phase == "start":
        return f"write the {d['number']} in column {d['cells'][0][1]}"
    if phase in ("slide", "star_slide"):
        last = " (GO!)" if d["notch"] + 1 == r.last_notch else ""
        return f"slide {d['letter']} ({d['tile']}) to notch {d['notch'] + 1}{last}"
    if phase in ("block", "place"):
        what = f"block {d['letter']} ({d['shape']})" if phase == "block" else d["shape"]
        return f"drop {what} on {_cells(d['cells'])}" if d["cells"] else f"{what} does not fit in column {d['column']}"
    if phase == "arrange":
        return "write " + " ".join(f"{cell_name(c)}={v}" for c, v in zip(d["cells"], d["values"]))
    if phase == "wild":
        return f"the star in {cell_name(d['cell'])} is a {d['value']}"
    if d["choice"] == "select":
        return f"select {cell_name(d['cell'])} ({game.sheet.values[tuple(d['cell'])]})"
    if d["choice"] == "pass":
        return "pass (score no combination)"
    values = {int(game.sheet.values[tuple(c)]) for c in d["cells"]}
    kind = "identical" if len(values) == 1 else "consecutive"
    return f"score {len(d['cells'])} {kind}: {_cells(d['cells'])}"


def _cells(cells: Sequence[Sequence[int]]) -> str:
    return " ".join(cell_name(c) for c in cells)


def render_table(table: Table) -> str:
    """The whole table: a head line (turn, blocks), then every seat's sheet as ``render_text`` draws it."""
    head = (
        f"Number Drop ({table.num_players} players)  turn {table.turn}  first player {table.first_player}  "
        f"blocks "
        + " ".join(f"{t}:{b}{'~' if x else ''}" for t, b, x in zip(table.rules.letters, table.blocks, table.crossed))
    )
    lines = [head]
    for p, s in enumerate(table.seats):  # the solo text without its title and (absent) solo board
        lines.append(f"--- player_{p} (score {s.score()}, phase {s.phase.value})")
        lines += [line for line in render_text(s).splitlines()[1:] if not line.startswith("solo board")]
    return "\n".join(lines)
