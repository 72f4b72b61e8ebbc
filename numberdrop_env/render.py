"""A readable text picture of a solo sheet, for ``render_mode="ansi"`` and the CLI."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .rules import EMPTY, WILD, X

if TYPE_CHECKING:
    from .solo import SoloGame


def render_text(game: "SoloGame") -> str:
    r, sheet = game.rules, game.sheet
    pending = dict(zip(game.pending_cells, game.pending_values or ["?"] * len(game.pending_cells)))
    selected = set(game.selection)
    lines = [f"Number Drop (solo)  turn {game.turn}  phase {game.phase.value}  score {game.score()}"]
    if game.dice is not None:
        dice = " ".join("*" if v == WILD else str(v) for v in game.dice)
        lines.append(f"dice: {dice}   shape die: {game.shape_face}")
    lines.append("     " + " ".join(f"{c:^3}" for c in range(r.cols)))
    for row in range(r.rows - 1, -1, -1):
        cells = [_cell(sheet.values[row, c], sheet.used[row, c], pending.get((row, c)), (row, c) in selected)
                 for c in range(r.cols)]
        if row >= r.regular_rows:
            box = f"-{r.penalty_points} [{'x' if sheet.penalties[row - r.regular_rows] else ' '}]"
        else:
            box = f"+{r.line_points} [{'x' if sheet.lines[row] else ' '}]"
        lines.append(f"{row:>3} |" + " ".join(cells) + f"| {box}")
        if row == r.regular_rows:
            lines.append("    " + "=" * (4 * r.cols) + " Game Over line")
    lines.append(_track(game))
    lines.append("solo board: " + "  ".join(
        f"{letter}:{tile} {'#' * int(n)}{'.' * (r.last_notch - int(n))}"
        for letter, tile, n in zip(r.letters, game.tiles, game.notches)))
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


def _track(game: "SoloGame") -> str:
    r, s = game.rules, game.sheet
    mark = lambda done: "x" if done else " "  # noqa: E731
    ident = " ".join(f"{k}[{mark(d)}]" for k, d in zip(r.box_sizes, s.identical))
    cons = " ".join(f"{k}[{mark(d)}]" for k, d in zip(r.box_sizes, s.consecutive))
    letters = " ".join(f"({l})" if c else (f"~{l}~" if x else f" {l} ")
                       for l, c, x in zip(r.letters, s.circled, s.crossed))
    return (f"identical   {ident}\nconsecutive {cons}\nbonus {r.bonus_size}[{mark(s.bonus)}]   letters {letters}"
            f"\nbreakdown {game.sheet.score_breakdown()}")
