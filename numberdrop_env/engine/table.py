"""The multiplayer game (2 to 6 players): one shared roll, then every seat's decisions in the solo
action encoding; a seat is a ``SoloGame`` whose solo board never moves, so solo agents play it."""

from __future__ import annotations

from typing import Any

import numpy as np

from gamekit.checks import as_int, make_rng

from .actions import Phase, block_table
from .persist import TABLE_STATE_VERSION, restore_table
from .rules import DEFAULT_RULES, MAX_PLAYERS, MIN_PLAYERS, WILD, Rules
from .shapes import ShapeTable
from .solo import SoloGame, roll_dice


class Seat(SoloGame):
    """One player's sheet at a table: a solo game without slides, dealt its dice and block phase by
    the table; a clone is *detached* and plays on alone, so a look-ahead can sample turns."""

    def __init__(self, rules: Rules, index: int, rng: np.random.Generator) -> None:
        super().__init__(rules, seed=np.random.default_rng(0))
        self.tiles = rules.shape_names
        self.rng = rng
        self.index = index
        self.block_shape: str | None = None
        self.piece_lost = False
        self.detached = False
        self.rivals = np.zeros((2, len(rules.letters)))
        """Per letter: share of opponents who circled it, and who scored one of its two boxes."""

    @property
    def start_number(self) -> int:
        return self.index + 1

    def begin_turn(self, turn: int, dice: tuple[int, ...], shape_face: str, block: tuple[int, str] | None) -> None:
        """The table's roll: drop the active block (unless circled or impossible) or the tetromino."""
        self.turn, self.dice, self.shape_face = turn, dice, shape_face
        self.star_pending = False
        self._mask = None
        if block is not None:
            letter, shape = block
            due = not self.sheet.circled[letter] and block_table(self.rules, shape).legal(self.sheet.heights).any()
            if due:
                self.block_tile, self.block_shape = letter, shape
            self.phase = Phase.BLOCK if due else Phase.WAIT  # no legal placement: the block is discarded
        elif self._placements(self.allowed_shapes()).any():
            self.phase = Phase.PLACE
        else:
            self._end_turn(piece_lost=True)

    def block_placements(self) -> np.ndarray:
        return self._block_table().legal(self.sheet.heights)

    def _after_slides(self) -> None:
        self._end_turn()  # a seat never slides: it gets here after its block phase, which ends the turn

    def _start_turn(self) -> None:
        if not self.detached:
            self.phase = Phase.WAIT  # the table rolls when everyone is ready
            return
        self.begin_turn(self.turn + 1, *roll_dice(self.rng, self.rules), None)

    def _end_turn(self, piece_lost: bool = False) -> None:
        self.selection, self._combos = [], None
        self.block_tile = self.block_shape = None
        self.piece_lost |= piece_lost
        if not self.detached:
            self.phase = Phase.WAIT
        elif self.sheet.end_of_turn() or self.piece_lost:
            self.phase = Phase.OVER
        else:
            self._start_turn()

    def _block_table(self) -> ShapeTable:
        return block_table(self.rules, self.block_shape)

    def clone(self) -> Seat:
        other = super().clone()  # with its own copy of the generator
        other.detached = True
        return other


class Table:
    """A multiplayer game of Number Drop: ``num_players`` seats around one block board."""

    def __init__(
        self, num_players: int = 2, rules: Rules = DEFAULT_RULES, seed: np.random.Generator | int | None = None
    ) -> None:
        num_players = as_int(num_players, MIN_PLAYERS, MAX_PLAYERS, "num_players")
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules value, got {type(rules).__name__}")
        self.rules = rules
        self.rng = make_rng(seed)
        names = [name for name, _ in rules.multi_blocks]
        self.blocks: tuple[str, ...] = tuple(names[i] for i in self.rng.permutation(len(names)))
        for name in self.blocks:
            block_table(rules, name)
        self.seats = [Seat(rules, p, self.rng) for p in range(num_players)]
        self.turn = 0
        self.dice: tuple[int, ...] | None = None
        self.shape_face: str | None = None
        self.block_letter: int | None = None
        self.over = False

    @property
    def num_players(self) -> int:
        return len(self.seats)

    @property
    def first_player(self) -> int:
        """Seat of the first player of the current turn (turn 1 is the first roll)."""
        return max(self.turn - 1, 0) % self.num_players

    @property
    def crossed(self) -> np.ndarray:
        """Letters crossed off (the same on every sheet)."""
        return self.seats[0].sheet.crossed.copy()

    def active_letters(self) -> list[int]:
        """Letters circled by someone and not crossed off, in order A..E."""
        circled = np.any([s.sheet.circled for s in self.seats], axis=0)
        return np.flatnonzero(circled & ~self.seats[0].sheet.crossed).tolist()

    def to_act(self) -> list[int]:
        """Seats that owe a decision now."""
        return [] if self.over else [p for p, s in enumerate(self.seats) if s.phase not in (Phase.WAIT, Phase.OVER)]

    def legal_mask(self, seat: int) -> np.ndarray:
        return self.seats[as_int(seat, 0, self.num_players - 1, "seat")].legal_mask()

    def scores(self) -> np.ndarray:
        return np.array([s.score() for s in self.seats])

    def winners(self) -> list[int]:
        """Seats with the top score (all of them share the win)."""
        scores = self.scores()
        return np.flatnonzero(scores == scores.max()).tolist()

    def step(self, seat: int, action: int) -> np.ndarray:
        """One seat's decision; returns every seat's change of score (end-of-turn boxes are
        ticked on the step that finishes the turn, for all seats)."""
        if self.over:
            raise ValueError("the game is over")
        game = self.seats[as_int(seat, 0, self.num_players - 1, "seat")]
        if game.phase is Phase.WAIT:
            raise ValueError(f"seat {seat} owes no decision now: it waits for the other players")
        before = self.scores()
        game.step(action)
        if not self.to_act():
            self._end_turn()
        return self.scores() - before

    def _end_turn(self) -> None:
        """Section 5 for every sheet, the crossings, then the next roll or the end."""
        if self.turn > 0:
            crossed_line = [s.sheet.end_of_turn() for s in self.seats]
            if self.block_letter is not None:
                self._cross(self.block_letter)
                self.block_letter = None  # its block has left the board: the block phase is over
            everyone = np.all([s.sheet.circled for s in self.seats], axis=0)
            for letter in np.flatnonzero(everyone & ~self.seats[0].sheet.crossed):
                self._cross(int(letter))  # Decision: it can never hit anyone
            if any(crossed_line) or any(s.piece_lost for s in self.seats):
                self.over = True
                for s in self.seats:
                    s.phase = Phase.OVER
                return
        self._start_turn()

    def _cross(self, letter: int) -> None:
        for s in self.seats:
            s.sheet.crossed[letter] = True
            s.notches[letter] = self.rules.last_notch  # its block has left the board

    def _share_rivals(self) -> None:
        """Tell each seat what its opponents' letters look like (public on the sheets)."""
        circled = np.array([s.sheet.circled for s in self.seats], float)
        half = np.array([s.sheet.identical ^ s.sheet.consecutive for s in self.seats], float)
        n = self.num_players - 1
        for p, s in enumerate(self.seats):
            s.rivals = np.stack([(circled.sum(0) - circled[p]) / n, (half.sum(0) - half[p]) / n])

    def roll(self) -> tuple[tuple[int, ...], str]:
        """The five dice of a turn: number dice and shape die (one roll for the whole table)."""
        return roll_dice(self.rng, self.rules)

    def _start_turn(self) -> None:
        self.dice, self.shape_face = self.roll()
        self.turn += 1
        star = WILD in self.dice or self.shape_face == "*"
        active = self.active_letters()
        self.block_letter = active[0] if star and active else None
        block = None if self.block_letter is None else (self.block_letter, self.blocks[self.block_letter])
        self._share_rivals()
        for s in self.seats:
            s.begin_turn(self.turn, self.dice, self.shape_face, block)
        if not self.to_act():  # every block discarded or dodged, or every piece lost
            self._end_turn()

    def to_dict(self) -> dict[str, Any]:
        """The whole table as plain JSON-safe data (the dice generator included)."""
        return {
            "version": TABLE_STATE_VERSION,
            "blocks": list(self.blocks),
            "turn": self.turn,
            "dice": None if self.dice is None else list(self.dice),
            "shape_face": self.shape_face,
            "block_letter": self.block_letter,
            "over": self.over,
            "seats": [_seat_dict(s) for s in self.seats],
            "rng": self.rng.bit_generator.state,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], rules: Rules = DEFAULT_RULES) -> Table:
        """Rebuild a table; a malformed or inconsistent state raises ``ValueError``/``TypeError``."""
        return restore_table(cls, data, rules)

    def clone(self) -> Table:
        return Table.from_dict(self.to_dict(), self.rules)


def _seat_dict(s: Seat) -> dict[str, Any]:
    """A seat's part of ``SoloGame.to_dict`` (the table holds the rest) and whether its piece was lost."""
    solo = s.to_dict(include_rng=False)
    return {**{key: solo[key] for key in _SEAT_FIELDS}, "piece_lost": s.piece_lost}


_SEAT_FIELDS = ("sheet", "phase", "pending_cells", "pending_values", "selection")
