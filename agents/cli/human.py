"""A person plays a solo game in the terminal (``numberdrop-play --human``): a number, a compact
decision (dice values in cell order, a drop as ``T2 c4``) or a command (``HELP``); leaving saves
the game for ``--resume``."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from numberdrop_env.engine.actions import Phase
from numberdrop_env.engine.rules import WILD
from numberdrop_env.engine.shapes import ShapeTable
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.render.text import PHASE_WORDS, cell_name, decision_words, render_text

from ..numberdrop.greedy import GreedyPolicy
from .replay import Record

HELP = """\
  N          play decision N of the list (e.g. 3); a star's value is typed as itself (0-9)
  3512       arrange the dice: one value per landed cell, in cell order (the bottom row
             first, left to right within a row; the prompt names the cells); a star is
             typed as * (its value is asked next) or as the value you want for it
  T2 c4      drop shape T in its orientation 2 with its leftmost cell in column 4
  shapes     draw the orientations of the shapes you may drop, cells numbered in cell order
  #ID        play the decision with action id ID (the NumberDrop-v0 encoding)
  p X        preview: the sheet after X (a number, an arrangement, a drop), without playing it
  hint       what the greedy agent would play
  undo       take back your last decision
  sheet      show the sheet and the decisions again
  quit       save the game and leave (Ctrl-D and Ctrl-C do the same)
  help       this list
Cells are named r<row>c<column>: row 0 is the bottom row, as on the sheet."""

QUIT = {"quit", "q", "exit"}
DROP = re.compile(r"([a-z])(\d+)\s*c\s*(\d+)")
DROPS = (Phase.PLACE, Phase.BLOCK)


class HumanGame:
    """The terminal loop around one game; ``ask`` and ``say`` are ``input`` and ``print`` by default."""

    def __init__(
        self,
        game: SoloGame,
        record: Record,
        save_path: Path,
        ask: Callable[[str], str] = input,
        say: Callable[[str], None] = print,
    ) -> None:
        self.game, self.record, self.save_path = game, record, Path(save_path)
        self.ask, self.say = ask, say
        self.history: list[tuple[SoloGame, int]] = []

    def play(self) -> bool:
        """Play until the game ends (True) or the player leaves (False, the game saved)."""
        shown = False  # whether the sheet on the screen is the game's (no decision played since)
        while not self.game.is_over:
            legal = [int(a) for a in np.flatnonzero(self.game.legal_mask())]
            if len(legal) == 1:
                self.say(f"only one choice: {decision_words(self.game, legal[0])}")
                self._play(legal)
                shown = False
                continue
            self.say(self._menu(legal) if shown else self._sheet(legal))
            if not self._turn(legal):
                self._save()
                return False
            self.say(render_text(self.game))  # after the decision played or undone
            shown = True
        if not shown:
            self.say(render_text(self.game))
        self.say(f"game over: final score {self.game.score()}  {self.game.sheet.score_breakdown()}")
        return True

    def _save(self) -> None:
        self.save_path.parent.mkdir(parents=True, exist_ok=True)
        self.game.save(self.save_path)
        self.say(
            f"game saved to {self.save_path}; continue it with `numberdrop-play --human --resume {self.save_path}`"
        )

    def _turn(self, legal: list[int]) -> bool:
        """Ask until a decision is played or undone (True) or the player quits (False)."""
        prompt, keys = self._prompt(legal), self._keys(legal)
        shows: dict[tuple[str, ...], Callable[[str], str]] = {  # the commands that play nothing
            ("help", "h", "?"): lambda _: HELP,
            ("sheet", "s", "list", "l"): lambda _: self._sheet(legal),
            ("shapes",): lambda _: draw_orientations(self.game.table, droppable(self.game)),
            ("hint",): lambda _: self._hint(legal),
            ("p", "preview"): lambda rest: self._preview(rest.strip(), legal),
        }
        while True:
            try:
                line = self.ask(prompt).strip().lower()
            except (EOFError, KeyboardInterrupt):
                self.say("")
                return False
            if line in QUIT:
                return False
            head, _, rest = line.partition(" ")
            show = next((show for words, show in shows.items() if head in words), None)
            try:
                if not line:
                    raise ValueError(f"type a number from {keys[0]} to {keys[-1]}, or help")
                if line == "undo":
                    if not self.history:
                        raise ValueError("nothing to undo")
                    self.game, played = self.history.pop()
                    del self.record.actions[played:]
                    self.record.score = self.game.score()
                    return True  # a position with other decisions: list them afresh
                if show is not None:
                    self.say(show(rest))
                    continue
                actions = self._decision(line, legal)
            except ValueError as err:
                self.say(str(err))
                continue
            self.history.append((self.game.clone(), len(self.record.actions)))
            self._play(actions)
            return True

    def _prompt(self, legal: list[int]) -> str:
        """The dice, what is asked and how to type it: the screen above may be scrolled away."""
        g, keys = self.game, self._keys(legal)
        dice = "" if g.dice is None else f", dice {' '.join('*' if v == WILD else str(v) for v in g.dice)}"
        shape = "" if g.shape_face is None else f" shape {g.shape_face}"
        how = ""
        if g.phase is Phase.ARRANGE:
            how = (
                f"cell order {' '.join(map(cell_name, g.pending_cells))} (bottom row first, left to right): "
                f"type {len(g.pending_cells)} values, e.g. {code(g, legal[0])}, or a number\n"
            )
        elif g.phase in DROPS:
            how = f"drop as shape, orientation, leftmost column: e.g. {code(g, legal[0])} (`shapes` draws them)\n"
        return f"{how}turn {g.turn}{dice}{shape}, {PHASE_WORDS[g.phase.value]} [{keys[0]}-{keys[-1]}, help]> "

    def _preview(self, text: str, legal: list[int]) -> str:
        if not text:
            raise ValueError("preview which decision? e.g. p 3")
        preview = self.game.clone()
        for action in self._decision(text, legal):
            preview.step(action)
        return render_text(preview)

    def _decision(self, text: str, legal: list[int]) -> list[int]:
        """The decisions one typed decision stands for: a number, ``#ID``, a drop or an arrangement."""
        if DROP.fullmatch(text):
            return [parse_drop(self.game, text, legal)]
        if text.startswith("#"):
            if not text[1:].isdigit():
                raise ValueError(f"{text} is not an action id: type # and a number, e.g. #{legal[0]}")
            if int(text[1:]) not in legal:
                raise ValueError(f"action {text} is not legal now; the legal ones are listed")
            return [int(text[1:])]
        if self.game.phase is Phase.ARRANGE and self._arrangement_like(text, legal):
            return parse_arrangement(self.game, text, legal)
        keys = self._keys(legal)
        if not text.isdigit():
            raise ValueError(f"unknown command {text!r}; type a number from {keys[0]} to {keys[-1]}, or help")
        if int(text) not in keys:
            what = "value" if self.game.phase is Phase.WILD else "decision"
            raise ValueError(f"there is no {what} {int(text)}: choose from {keys[0]} to {keys[-1]}")
        return [legal[keys.index(int(text))]]

    def _arrangement_like(self, text: str, legal: list[int]) -> bool:
        """Whether a line means values for the landed cells rather than a number of the list."""
        if len(text) == len(self.game.pending_cells):
            return True  # a list has at most 24 arrangements: four characters are never a number of it
        return set(text) <= set("0123456789*") and ("*" in text or len(text) > len(str(len(legal))))

    def _keys(self, legal: list[int]) -> list[int]:
        """The number each decision is typed as: a star's value is itself, the others count from 1."""
        if self.game.phase is Phase.WILD:
            return [a - self.game.layout.wild for a in legal]
        return list(range(1, len(legal) + 1))

    def _hint(self, legal: list[int]) -> str:
        action = int(GreedyPolicy().act(self.game.clone(), self.game.legal_mask()))
        key = self._keys(legal)[legal.index(action)]
        return f"the greedy agent plays {key}: {self._words(action)}"

    def _play(self, actions: list[int]) -> None:
        for action in actions:
            self.game.step(action)
            self.record.actions.append(action)
        self.record.score = self.game.score()

    def _words(self, action: int) -> str:
        """A decision as listed: its compact code, where it has one, then its words."""
        typed = code(self.game, action)
        return f"{typed}  {decision_words(self.game, action)}" if typed else decision_words(self.game, action)

    def _sheet(self, legal: list[int]) -> str:
        return f"{render_text(self.game)}\n{self._menu(legal)}"

    def _menu(self, legal: list[int]) -> str:
        """The decisions, numbered as typed, in up to three columns when there are many."""
        items = [f"{key:>3}. {self._words(a)}" for key, a in zip(self._keys(legal), legal)]
        width = max(map(len, items)) + 2
        columns = max(1, min(3, 100 // width)) if len(items) > 10 else 1
        rows = -(-len(items) // columns)
        return "\n".join("".join(item.ljust(width) for item in items[r::rows]).rstrip() for r in range(rows))


def orientations_of(table: ShapeTable, shape: str) -> list[int]:
    """The orientation indices of one shape, in table order: ``T2`` is the second of T's."""
    return [o for o, s in enumerate(table.orientation_shape) if table.names[s] == shape]


def droppable(game: SoloGame) -> tuple[str, ...]:
    """The shapes the player may drop now: the block's, the shape die's, or every tetromino."""
    if game.phase is Phase.BLOCK:
        return (game.tiles[game.block_tile],)
    if game.phase is Phase.PLACE:
        return game.allowed_shapes()
    return game.table.names


def code(game: SoloGame, action: int) -> str:
    """The compact form of a decision, as typed: ``T2 c4`` for a drop, ``3512`` for an arrangement
    (the values of the landed cells in cell order, ``*`` for a star), empty for the others."""
    if game.phase is Phase.ARRANGE:
        return "".join(map(str, game.describe(action)["values"]))
    if game.phase not in DROPS:
        return ""
    d = game.describe(action)
    return f"{d['shape']}{orientations_of(game.table, d['shape']).index(d['orientation']) + 1} c{d['column']}"


def parse_drop(game: SoloGame, text: str, legal: list[int]) -> int:
    """The drop action that ``T2 c4`` names; ValueError saying which part does not fit."""
    letter, number, column = DROP.fullmatch(text).groups()
    shape, k, col, table = letter.upper(), int(number), int(column), game.table
    if game.phase not in DROPS:
        raise ValueError(f"{shape}{k} c{col} is a drop; now: {PHASE_WORDS[game.phase.value]}")
    if shape not in table.names:
        raise ValueError(f"there is no shape {shape}: the tetrominoes are {' '.join(table.names)}")
    allowed = droppable(game)
    if shape not in allowed:
        why = f"the block is {allowed[0]}" if game.phase is Phase.BLOCK else f"the shape die shows {game.shape_face}"
        raise ValueError(f"you cannot drop {shape}: {why}")
    orientations = orientations_of(table, shape)
    if not 1 <= k <= len(orientations):
        raise ValueError(f"{shape} has orientations {shape}1 to {shape}{len(orientations)}; `shapes` draws them")
    o, cols = orientations[k - 1], table.cols
    fits = [c for c in range(cols) if table.fits_columns[o * cols + c]]
    if col not in fits:
        raise ValueError(f"{shape}{k} fits columns {fits[0]} to {fits[-1]} (the column of its leftmost cell)")
    action = (game.layout.block if game.phase is Phase.BLOCK else game.layout.place) + o * cols + col
    if action not in legal:
        raise ValueError(f"{shape}{k} c{col} would stick out above the top row: it is not legal")
    return action


def parse_arrangement(game: SoloGame, text: str, legal: list[int]) -> list[int]:
    """The arrangement a line of values in cell order names, then the values typed for its stars."""
    cells, dice = game.pending_cells, game.sorted_dice()
    if len(text) != len(cells) or not set(text) <= set("0123456789*"):
        raise ValueError(
            f"type {len(cells)} values, one per cell in the order {' '.join(map(cell_name, cells))} "
            f"(e.g. {code(game, legal[0])}), or a number from 1 to {len(legal)}"
        )
    left = Counter(v for v in dice if v != WILD)
    values: list[int | str] = []
    stars: list[int | None] = []  # what each star cell was typed as, in cell order (None: *)
    for char in text:
        if char != "*" and left[int(char)] > 0:
            left[int(char)] -= 1
            values.append(int(char))
        else:
            values.append("*")
            stars.append(None if char == "*" else int(char))
    shown = " ".join("*" if v == WILD else str(v) for v in dice)
    if len(stars) != dice.count(WILD) or any(v is not None and v > game.rules.max_number for v in stars):
        raise ValueError(
            f"{text} is not the dice {shown} in some order (a star as * or as a value 0-{game.rules.max_number})"
        )
    typed = [v for v in stars if v is not None]
    if stars[: len(typed)] != typed:
        raise ValueError(f"{text}: stars get their values in cell order, so type this * as a value too, or both as *")
    action = next(a for a in legal if game.describe(a)["values"] == values)
    return [action, *(game.layout.wild + v for v in typed)]


def draw_orientations(table: ShapeTable, shapes: tuple[str, ...]) -> str:
    """Each orientation of the shapes, named as typed (``T2``), its cells numbered in cell order."""
    lines = []
    for shape in shapes:
        pictures = [_picture(table.orientations[o]) for o in orientations_of(table, shape)]
        tallest = max(map(len, pictures))
        columns = [[f"{shape}{k}", *[""] * (tallest - len(p)), *p] for k, p in enumerate(pictures, 1)]
        width = max(len(part) for column in columns for part in column)
        lines += ["   ".join(part.ljust(width) for part in line).rstrip() for line in zip(*columns)]
    return "\n".join(lines)


def _picture(cells: tuple[tuple[int, int], ...]) -> list[str]:
    """Rows of one orientation, top row first; a cell shows its place in cell order (its sort order)."""
    height, width = max(r for r, _ in cells) + 1, max(c for _, c in cells) + 1
    return [
        "".join(str(cells.index((r, c)) + 1) if (r, c) in cells else "." for c in range(width))
        for r in range(height - 1, -1, -1)
    ]
