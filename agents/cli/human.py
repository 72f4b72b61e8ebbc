"""A person plays a solo game in the terminal: ``numberdrop-play --human``.

Each decision is listed in words and numbered 1..n in action order; the player types a
number or a short command. Bad input gets a message and the prompt again. ``quit``,
Ctrl-D or Ctrl-C saves the game (``SoloGame.save``, dice generator included) to a file
that ``--resume`` continues. Decisions with a single legal choice are played for the
player and announced.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.render.text import PHASE_WORDS, decision_words, render_text

from ..numberdrop.greedy import GreedyPolicy
from .replay import Record

HELP = """\
  N          play decision N of the list (e.g. 3)
  #ID        play the decision with action id ID (the NumberDrop-v0 encoding)
  p N        preview: the sheet after decision N, without playing it
  hint       what the greedy agent would play
  undo       take back your last decision
  sheet      show the sheet and the decisions again
  quit       save the game and leave (Ctrl-D and Ctrl-C do the same)
  help       this list
Cells are named r<row>c<column>: row 0 is the bottom row, as on the sheet."""

QUIT = {"quit", "q", "exit"}


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
        self.say(render_text(self.game))
        while not self.game.is_over:
            legal = [int(a) for a in np.flatnonzero(self.game.legal_mask())]
            if len(legal) == 1:
                self.say(f"only one choice: {decision_words(self.game, legal[0])}")
                self._play(legal[0])
                continue
            self._list(legal)
            if not self._turn(legal):
                self.game.save(self.save_path)
                self.say(
                    f"game saved to {self.save_path}; continue it with "
                    f"`numberdrop-play --human --resume {self.save_path}`"
                )
                return False
        self.say(f"game over: final score {self.game.score()}  {self.game.sheet.score_breakdown()}")
        return True

    def _turn(self, legal: list[int]) -> bool:
        """Ask until a decision is played or undone (True) or the player quits (False)."""
        prompt = f"turn {self.game.turn}, {PHASE_WORDS[self.game.phase.value]} [1-{len(legal)}, help]> "
        while True:
            try:
                line = self.ask(prompt).strip().lower()
            except (EOFError, KeyboardInterrupt):
                self.say("")
                return False
            if line in QUIT:
                return False
            try:
                if line == "undo":
                    self._undo()
                    return True  # a position with other decisions: list them afresh
                action = self._command(line, legal)
            except ValueError as err:
                self.say(str(err))
                continue
            if action is not None:
                self.history.append((self.game.clone(), len(self.record.actions)))
                self._play(action)
                self.say(render_text(self.game))
                return True

    def _command(self, line: str, legal: list[int]) -> int | None:
        """The decision a line plays, or None for a command that plays nothing; ValueError for bad input."""
        words = line.split()
        if not words:
            raise ValueError(f"type a number from 1 to {len(legal)}, or help")
        head = words[0]
        if head in ("help", "h", "?"):
            self.say(HELP)
        elif head in ("sheet", "s", "list", "l"):
            self.say(render_text(self.game))
            self._list(legal)
        elif head == "hint":
            self._hint(legal)
        elif head in ("p", "preview"):
            if len(words) != 2:
                raise ValueError("preview which decision? e.g. p 3")
            preview = self.game.clone()
            preview.step(legal[self._number(words[1], legal) - 1])
            self.say(render_text(preview))
        elif head.startswith("#"):
            return self._action_id(head[1:], legal)
        elif len(words) == 1:
            return legal[self._number(head, legal) - 1]
        else:
            raise ValueError(f"unknown command {line!r}; type help")
        return None

    def _number(self, text: str, legal: list[int]) -> int:
        if not text.isdigit():
            raise ValueError(f"unknown command {text!r}; type a number from 1 to {len(legal)}, or help")
        n = int(text)
        if not 1 <= n <= len(legal):
            raise ValueError(f"there is no decision {n}: choose from 1 to {len(legal)}")
        return n

    def _action_id(self, text: str, legal: list[int]) -> int:
        if not text.isdigit():
            raise ValueError(f"#{text} is not an action id: type # and a number, e.g. #{legal[0]}")
        if int(text) not in legal:
            raise ValueError(f"action #{text} is not legal now; the legal ones are listed")
        return int(text)

    def _hint(self, legal: list[int]) -> None:
        action = GreedyPolicy().act(self.game.clone(), self.game.legal_mask())
        self.say(f"the greedy agent plays {legal.index(action) + 1}: {decision_words(self.game, action)}")

    def _undo(self) -> None:
        if not self.history:
            raise ValueError("nothing to undo")
        self.game, played = self.history.pop()
        del self.record.actions[played:]
        self.record.score = self.game.score()
        self.say(render_text(self.game))

    def _play(self, action: int) -> None:
        self.game.step(action)
        self.record.actions.append(action)
        self.record.score = self.game.score()

    def _list(self, legal: list[int]) -> None:
        items = [f"{i:>3}. {decision_words(self.game, a)}" for i, a in enumerate(legal, 1)]
        width = max(map(len, items)) + 2
        columns = max(1, min(3, 100 // width)) if len(items) > 10 else 1
        rows = -(-len(items) // columns)
        for r in range(rows):
            self.say(
                "".join(items[r + k * rows].ljust(width) for k in range(columns) if r + k * rows < len(items)).rstrip()
            )


def start(seed: int, resume: Path | None) -> tuple[SoloGame, Record]:
    """A new game from a seed, or a saved one; the record starts where the game does."""
    if resume is None:
        return SoloGame(seed=seed), Record(seed=seed, player="human")
    game = SoloGame.load(resume)
    return game, Record(seed=None, state=game.to_dict(), player="human", score=game.score())
