"""The sheet as it looks on paper, drawn with Pillow: the same state gives the same pixels
(Pillow's built-in font, nothing random)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from gamekit.checks import positive_int

from ..engine.rules import DEFAULT_RULES, EMPTY, WILD, Rules, X
from ..engine.sheet import SCORE_PARTS, Sheet
from .text import PHASE_WORDS, render_table, render_text

if TYPE_CHECKING:
    from ..engine.solo import SoloGame
    from ..engine.table import Table

Cell = tuple[int, int]
RGB = tuple[int, int, int]

PAPER: RGB = (251, 248, 239)
INK: RGB = (38, 38, 46)
FAINT: RGB = (165, 165, 175)
PEN: RGB = (196, 32, 40)
"""Circles, ticks and the Game Over line: what the player writes in red."""
BLOCK: RGB = (72, 72, 82)
PENALTY: RGB = (250, 226, 222)
PENDING: RGB = (255, 190, 110)
"""The tetromino being placed (landed cells, numbers not yet written)."""
SELECTED: RGB = (130, 185, 255)
FRESH: RGB = (255, 238, 150)
"""Cells written since the previous picture (a replay's highlight)."""
TILE: RGB = (196, 222, 245)
SAFE: RGB = (190, 235, 190)
"""A tile whose letter is circled: its block will never drop."""

CELL = 30
MARGIN = 10
TITLE_H = 22
LABEL_W = 20
BOX = 18
SIDE_W = 56
"""Room right of the grid for the +2 / -5 boxes and their labels."""
TRACK_W = 150
CAPTION_H = 36
PANEL_W = 186
NOTCH_H = 24
DIE = 28


@lru_cache(maxsize=8)
def font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's built-in font: the same glyphs on every machine (the bitmap one without FreeType)."""
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ImportError, OSError):  # Pillow < 10.1 or no FreeType
        return ImageFont.load_default()


class SheetLayout:
    """Where everything sits in a sheet picture (pixels, origin top-left)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.grid_x, self.grid_y = MARGIN + LABEL_W, MARGIN + TITLE_H
        self.grid_w, self.grid_h = rules.cols * CELL, rules.rows * CELL
        self.track_x = self.grid_x + self.grid_w + SIDE_W
        self.size = self.track_x + TRACK_W + MARGIN, self.grid_y + self.grid_h + 16 + MARGIN

    def cell_box(self, row: int, col: int) -> tuple[int, int, int, int]:
        """(left, top, right, bottom) of a grid cell; row 0 is the bottom row."""
        r = self.rules
        if not (0 <= row < r.rows and 0 <= col < r.cols):
            raise ValueError(f"cell {(row, col)} is outside the {r.rows}x{r.cols} grid")
        left = self.grid_x + col * CELL
        top = self.grid_y + (r.rows - 1 - row) * CELL
        return left, top, left + CELL, top + CELL

    def row_box(self, row: int) -> tuple[int, int, int, int]:
        """The +2 (regular row) or -5 (penalty row) box of a row."""
        left, top, right, bottom = self.cell_box(row, self.rules.cols - 1)
        x, y = right + 6, (top + bottom - BOX) // 2
        return x, y, x + BOX, y + BOX

    def track_box(self, kind: str, size: int) -> tuple[int, int, int, int]:
        """The score-track box of a combination: kind ``identical``/``consecutive``, or the bonus."""
        r = self.rules
        top = self.grid_y + 22
        if size == r.bonus_size:
            y = top + len(r.box_sizes) * CELL + 4
            return self.track_x + 24, y, self.track_x + 24 + 84, y + 24
        if kind not in ("identical", "consecutive"):
            raise ValueError(f"kind must be 'identical' or 'consecutive', got {kind!r}")
        i = r.box_sizes.index(size)
        x = self.track_x + 24 + (0 if kind == "identical" else 44)
        y = top + i * CELL + 3
        return x, y, x + 40, y + 24

    def letter_center(self, index: int) -> tuple[int, int]:
        left, top, right, bottom = self.track_box("consecutive", self.rules.box_sizes[index])
        return right + 18, (top + bottom) // 2


# ---------------------------------------------------------------------------- the sheet
def draw_sheet(
    sheet: Sheet,
    *,
    pending_cells: Sequence[Cell] = (),
    pending_values: Sequence[int] = (),
    selection: Iterable[Cell] = (),
    fresh: Iterable[Cell] = (),
    title: str = "",
) -> Image.Image:
    """One player's sheet, with a landed tetromino's ``pending_values`` (``?`` where none is
    chosen), the ``selection`` of a combination and the ``fresh`` cells highlighted."""
    if not isinstance(sheet, Sheet):
        raise TypeError(f"sheet must be a Sheet, got {type(sheet).__name__}")
    layout = SheetLayout(sheet.rules)
    img = Image.new("RGB", layout.size, PAPER)
    draw = ImageDraw.Draw(img)
    if title:
        draw.text((MARGIN, MARGIN), title, font=font(14), fill=INK)
    pending = dict(zip(pending_cells, list(pending_values) + [None] * len(pending_cells)))
    _grid(draw, layout, sheet, pending, set(map(tuple, selection)), set(map(tuple, fresh)))
    _row_boxes(draw, layout, sheet)
    _track(draw, layout, sheet)
    _score(draw, layout, sheet)
    return img


def _grid(
    draw: ImageDraw.ImageDraw,
    layout: SheetLayout,
    sheet: Sheet,
    pending: dict[Cell, int | None],
    selection: set[Cell],
    fresh: set[Cell],
) -> None:
    r = sheet.rules
    small = font(11)
    for row in range(r.rows):
        for col in range(r.cols):
            box = layout.cell_box(row, col)
            value = int(sheet.values[row, col])
            fill = PENALTY if row >= r.regular_rows else PAPER
            fill = FRESH if (row, col) in fresh else fill
            fill = PENDING if (row, col) in pending else fill
            fill = SELECTED if (row, col) in selection else fill
            draw.rectangle(box, fill=BLOCK if value == X else fill, outline=FAINT)
            if value == X:
                _cross(draw, box, 7, PAPER, 2)
            elif value != EMPTY:
                _centered(draw, box, str(value), font(16), INK)
            elif (row, col) in pending:
                shown = pending[(row, col)]
                if shown == WILD:
                    _star(draw, _center(box), 9, INK)
                else:
                    _centered(draw, box, "?" if shown is None else str(shown), font(16), INK)
            if sheet.used[row, col]:
                draw.ellipse(_inset(box, 3), outline=PEN, width=2)
        _, top, _, bottom = layout.cell_box(row, 0)
        _centered(draw, (MARGIN, top, layout.grid_x - 3, bottom), str(row), small, FAINT)
    bottom = layout.grid_y + layout.grid_h
    for col in range(r.cols):
        left = layout.grid_x + col * CELL
        _centered(draw, (left, bottom + 1, left + CELL, bottom + 16), str(col), small, FAINT)
    y = layout.cell_box(r.regular_rows - 1, 0)[1]  # the Game Over line lies on top of the last regular row
    draw.line((layout.grid_x - 4, y, layout.grid_x + layout.grid_w + SIDE_W - 6, y), fill=PEN, width=3)


def _row_boxes(draw: ImageDraw.ImageDraw, layout: SheetLayout, sheet: Sheet) -> None:
    r = sheet.rules
    for row in range(r.rows):
        box = layout.row_box(row)
        penalty = row >= r.regular_rows
        ticked = sheet.penalties[row - r.regular_rows] if penalty else sheet.lines[row]
        draw.rectangle(box, fill=PAPER, outline=INK)
        if ticked:
            _cross(draw, box, 3, PEN, 2)
        label = f"-{r.penalty_points}" if penalty else f"+{r.line_points}"
        draw.text((box[2] + 4, box[1] + 3), label, font=font(11), fill=PEN if penalty else INK)


def _track(draw: ImageDraw.ImageDraw, layout: SheetLayout, sheet: Sheet) -> None:
    r = sheet.rules
    small = font(11)
    head = layout.grid_y
    for kind, x in (("identical", layout.track_x + 24), ("consecutive", layout.track_x + 68)):
        _centered(draw, (x, head, x + 40, head + 18), "same" if kind == "identical" else "run", small, INK)
    for i, size in enumerate(r.box_sizes):
        for kind, done in (("identical", sheet.identical[i]), ("consecutive", sheet.consecutive[i])):
            _ticked_box(draw, layout.track_box(kind, size), str(size), font(14), done)
        cx, cy = layout.letter_center(i)
        _centered(draw, (cx - 10, cy - 10, cx + 10, cy + 10), r.letters[i], font(14), INK)
        if sheet.circled[i]:
            draw.ellipse((cx - 11, cy - 11, cx + 11, cy + 11), outline=PEN, width=2)
        if sheet.crossed[i]:
            draw.line((cx - 10, cy + 10, cx + 10, cy - 10), fill=PEN, width=2)
    bonus = layout.track_box("", r.bonus_size)
    _ticked_box(draw, bonus, f"bonus {r.bonus_size}", font(13), sheet.bonus)
    y = bonus[3] + 6
    for kind, done in (("identical", sheet.identical.all()), ("consecutive", sheet.consecutive.all())):
        x = layout.track_box(kind, r.box_sizes[0])[0]
        _ticked_box(draw, (x, y, x + 40, y + 20), f"+{r.full_column_points}", small, done)


def _ticked_box(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], text: str, f, done: bool) -> None:
    """A box of the score track with its label, crossed in red once scored."""
    draw.rectangle(box, fill=PAPER, outline=INK)
    _centered(draw, box, text, f, INK)
    if done:
        _cross(draw, box, 4, PEN, 2)


def _score(draw: ImageDraw.ImageDraw, layout: SheetLayout, sheet: Sheet) -> None:
    parts = sheet.score_breakdown()
    x = layout.track_x + 4
    y = layout.track_box("", sheet.rules.bonus_size)[3] + 44
    draw.text((x, y), "score", font=font(13), fill=INK)
    draw.text((x + 52, y - 8), str(parts["total"]), font=font(28), fill=INK)
    words = ("same", "run", "bonus", "columns", "lines", "penalty")
    for i, (key, word) in enumerate(zip(SCORE_PARTS, words)):  # every part but the total
        draw.text((x, y + 34 + 15 * i), word, font=font(11), fill=FAINT)
        text = f"{parts[key]:+d}" if parts[key] else "0"  # right-aligned
        draw.text((x + 100 - draw.textlength(text, font=font(11)), y + 34 + 15 * i), text, font=font(11), fill=INK)


# ---------------------------------------------------------------------------- the solo board and dice
def draw_solo_panel(
    rules: Rules,
    tiles: Sequence[str],
    notches: Sequence[int],
    *,
    circled: Sequence[bool] = (),
    dice: Sequence[int] | None = None,
    shape_face: str | None = None,
    status: Sequence[str] = (),
    height: int | None = None,
) -> Image.Image:
    """The solo board (a ``circled`` letter's tile green: its block never drops), dice and status."""
    if len(tiles) != len(rules.letters) or len(notches) != len(rules.letters):
        raise ValueError(f"need one tile and one notch per letter {rules.letters}")
    height = height or SheetLayout(rules).size[1]
    img = Image.new("RGB", (PANEL_W, height), PAPER)
    draw = ImageDraw.Draw(img)
    draw.text((4, MARGIN), "solo board", font=font(14), fill=INK)
    y = _board(draw, rules, tiles, notches, list(circled) or [False] * len(tiles), MARGIN + TITLE_H)
    draw.text((4, y + 14), "dice", font=font(14), fill=INK)
    y = _dice(draw, rules, dice, shape_face, y + 36)
    for i, line in enumerate(status):
        draw.text((4, y + 14 + 17 * i), line, font=font(13), fill=INK)
    return img


def _board(
    draw: ImageDraw.ImageDraw,
    rules: Rules,
    tiles: Sequence[str],
    notches: Sequence[int],
    circled: Sequence[bool],
    top: int,
) -> int:
    x0, col_w = 34, 29
    for i, letter in enumerate(rules.letters):
        _centered(draw, (x0 + i * col_w, top, x0 + (i + 1) * col_w, top + 16), letter, font(13), INK)
    top += 18
    for notch in range(rules.last_notch + 1):
        y = top + notch * NOTCH_H
        label = "GO!" if notch == rules.last_notch else str(notch)
        _centered(draw, (0, y, x0 - 2, y + NOTCH_H), label, font(11), PEN if notch == rules.last_notch else FAINT)
        for i in range(len(rules.letters)):
            draw.rectangle((x0 + i * col_w + 2, y + 2, x0 + (i + 1) * col_w - 2, y + NOTCH_H - 2), outline=FAINT)
    for i, (shape, notch) in enumerate(zip(tiles, notches)):
        y = top + int(notch) * NOTCH_H
        box = (x0 + i * col_w + 2, y + 2, x0 + (i + 1) * col_w - 2, y + NOTCH_H - 2)
        fill = SAFE if circled[i] else (BLOCK if notch == rules.last_notch else TILE)
        draw.rectangle(box, fill=fill, outline=INK)
        _glyph(draw, rules, shape, _center(box), PAPER if fill == BLOCK else INK)
    return top + (rules.last_notch + 1) * NOTCH_H


def _dice(
    draw: ImageDraw.ImageDraw, rules: Rules, dice: Sequence[int] | None, shape_face: str | None, top: int, left: int = 0
) -> int:
    if dice is None:
        draw.text((left + 4, top + 6), "not rolled yet", font=font(13), fill=FAINT)
        return top + DIE
    for i, value in enumerate(dice):
        box = (left + 4 + i * (DIE + 6), top, left + 4 + i * (DIE + 6) + DIE, top + DIE)
        draw.rounded_rectangle(box, 5, fill=PAPER, outline=INK, width=2)
        if value == WILD:
            _star(draw, _center(box), 9, INK)
        else:
            _centered(draw, box, str(value), font(16), INK)
    x = left + 4 + len(dice) * (DIE + 6) + 4
    box = (x, top, x + DIE, top + DIE)
    draw.rounded_rectangle(box, 5, fill=TILE, outline=INK, width=2)
    if shape_face == "*":
        _star(draw, _center(box), 9, INK)
    elif shape_face is not None:
        _glyph(draw, rules, shape_face, _center(box), INK)
    return top + DIE


def _glyph(draw: ImageDraw.ImageDraw, rules: Rules, name: str, center: tuple[int, int], fill: RGB) -> None:
    """A tetromino or block drawn small, by its name."""
    cells, unit = dict(rules.tetrominoes + rules.multi_blocks)[name], 5
    rows = max(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) + 1
    x0, y0 = center[0] - cols * unit // 2, center[1] - rows * unit // 2
    for r, c in cells:
        x, y = x0 + c * unit, y0 + (rows - 1 - r) * unit
        draw.rectangle((x, y, x + unit - 1, y + unit - 1), fill=fill)


# ---------------------------------------------------------------------------- a solo game
def draw_game(game: SoloGame, *, fresh: Iterable[Cell] = (), caption: str = "") -> Image.Image:
    """A solo game: its sheet, the solo board and dice beside it, ``caption`` in a strip below."""
    r = game.rules
    sheet = draw_sheet(
        game.sheet,
        pending_cells=game.pending_cells,
        pending_values=game.pending_values,
        selection=game.selection,
        fresh=fresh,
        title=f"Number Drop  turn {game.turn}",
    )
    status = ["game over" if game.is_over else f"next: {PHASE_WORDS[game.phase.value]}"]
    if game.block_tile is not None:
        status[0] += f" {r.letters[game.block_tile]}"
    panel = draw_solo_panel(
        r,
        game.tiles,
        game.notches,
        circled=game.sheet.circled,
        dice=game.dice,
        shape_face=game.shape_face,
        status=status,
        height=sheet.height,
    )
    img = Image.new("RGB", (sheet.width + panel.width, sheet.height + (CAPTION_H if caption else 0)), PAPER)
    img.paste(sheet, (0, 0))
    img.paste(panel, (sheet.width, 0))
    if caption:
        _caption(ImageDraw.Draw(img), caption, sheet.height, img.width)
    return img


def draw_table(table: Table, *, per_row: int = 3) -> Image.Image:
    """A multiplayer table: every seat's sheet (``per_row`` to a row), the block board and the dice."""
    per_row = positive_int(per_row, "per_row")
    sheets = [
        draw_sheet(
            s.sheet,
            pending_cells=s.pending_cells,
            pending_values=s.pending_values,
            selection=s.selection,
            title=f"player_{p}{' (first)' if p == table.first_player else ''}  "
            f"{'game over' if s.is_over else PHASE_WORDS[s.phase.value]}",
        )
        for p, s in enumerate(table.seats)
    ]
    width, height = sheets[0].size
    rows = -(-len(sheets) // per_row)
    img = Image.new("RGB", (width * min(per_row, len(sheets)) + PANEL_W, height * rows), PAPER)
    for i, sheet in enumerate(sheets):
        img.paste(sheet, (width * (i % per_row), height * (i // per_row)))
    draw = ImageDraw.Draw(img)
    x = img.width - PANEL_W
    draw.text((x + 4, MARGIN), f"turn {table.turn}", font=font(14), fill=INK)
    draw.text((x + 4, MARGIN + 26), "block board", font=font(14), fill=INK)
    for i, (letter, name) in enumerate(zip(table.rules.letters, table.blocks)):
        y = MARGIN + 50 + i * 40
        box = (x + 34, y, x + 84, y + 34)
        draw.rectangle(box, fill=PENDING if table.block_letter == i else TILE, outline=INK)
        _glyph(draw, table.rules, name, _center(box), INK)
        draw.text((x + 8, y + 9), letter, font=font(14), fill=INK)
        if table.crossed[i]:
            draw.line((x + 4, y + 30, x + 88, y + 4), fill=PEN, width=3)
    draw.text((x + 4, MARGIN + 260), "dice", font=font(14), fill=INK)
    _dice(draw, table.rules, table.dice, table.shape_face, MARGIN + 282, left=x)
    return img


def picture(shown: SoloGame | Table, mode: str | None) -> str | np.ndarray | None:
    """What an environment's ``render()`` returns: the text picture (``"ansi"``), the drawing as an
    (H, W, 3) uint8 array (``"rgb_array"``) or None; a table shows every sheet."""
    table = hasattr(shown, "seats")
    if mode == "ansi":
        return render_table(shown) if table else render_text(shown)
    if mode == "rgb_array":
        return np.array(draw_table(shown) if table else draw_game(shown), dtype=np.uint8)
    return None


def _caption(draw: ImageDraw.ImageDraw, text: str, top: int, width: int) -> None:
    draw.line((MARGIN, top, width - MARGIN, top), fill=FAINT)
    f = font(12)
    lines, line = [], ""
    for word in text.split(" "):
        trial = f"{line} {word}".strip()
        if line and draw.textlength(trial, font=f) > width - 2 * MARGIN:
            lines.append(line)
            line = word
        else:
            line = trial
    lines.append(line)
    if len(lines) > 2:
        lines = [lines[0], lines[1][:-3] + "..."]
    for i, line in enumerate(lines):
        draw.text((MARGIN, top + 4 + 15 * i), line, font=f, fill=INK)


# ---------------------------------------------------------------------------- small pieces
def _center(box: tuple[int, int, int, int]) -> tuple[int, int]:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def _inset(box: tuple[int, int, int, int], d: int) -> tuple[int, int, int, int]:
    return box[0] + d, box[1] + d, box[2] - d, box[3] - d


def _cross(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], d: int, fill: RGB, width: int) -> None:
    x0, y0, x1, y1 = _inset(box, d)
    draw.line((x0, y0, x1, y1), fill=fill, width=width)
    draw.line((x0, y1, x1, y0), fill=fill, width=width)


def _centered(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], text: str, f, fill: RGB) -> None:
    left, top, right, bottom = draw.textbbox((0, 0), text, font=f)
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    draw.text((round(cx - (left + right) / 2), round(cy - (top + bottom) / 2)), text, font=f, fill=fill)


def _star(draw: ImageDraw.ImageDraw, center: tuple[int, int], radius: int, fill: RGB) -> None:
    """A five-pointed star: a wild die, drawn rather than typed so every font shows it."""
    angles = np.pi / 2 + np.arange(10) * np.pi / 5
    radii = np.where(np.arange(10) % 2 == 0, radius, radius * 0.45)
    points = [(center[0] + float(a) * np.cos(t), center[1] - float(a) * np.sin(t)) for a, t in zip(radii, angles)]
    draw.polygon(points, fill=fill)


DEFAULT_LAYOUT = SheetLayout(DEFAULT_RULES)
