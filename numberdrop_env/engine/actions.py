"""The flat action encoding of one player's decisions: the pending decision (the *phase*) tells
which block of integers is meaningful, at offsets fixed by the rules.
"""

from __future__ import annotations

import itertools
from enum import Enum
from functools import lru_cache

import numpy as np

from .rules import Rules
from .shapes import ShapeTable

PERMUTATIONS = np.array(list(itertools.permutations(range(4))), np.int64)
"""Arrangement k writes sorted die ``PERMUTATIONS[k][i]`` into landed cell ``i``."""


class Phase(str, Enum):
    """The decision the player owes next."""

    START = "start"  # column of the starting number
    SLIDE = "slide"  # mandatory slide: letter of a tile not at the last notch
    STAR_SLIDE = "star_slide"  # free star slide (shape die shows a star)
    BLOCK = "block"  # placement of the X block that reached the last notch
    PLACE = "place"  # placement of the numbered tetromino
    ARRANGE = "arrange"  # which die goes in which landed cell
    WILD = "wild"  # value of the next wild die
    COMBO = "combo"  # select a cell, confirm the combination, or pass
    OVER = "game_over"
    WAIT = "wait"  # multiplayer: this player's part of the turn is done, the others' is not


PHASES = tuple(p for p in Phase if p is not Phase.WAIT)
"""The phases of a solo game (its observation's one-hot); ``WAIT`` exists only at a table."""

PHASE_CODES = {phase: code for code, phase in enumerate(Phase)}
"""``info["phase_code"]`` of the environments: 0 start, 1 slide, 2 star_slide, 3 block, 4 place,
5 arrange, 6 wild, 7 combo, 8 game_over, 9 wait (a table seat whose part of the turn is done)."""


def phase_code(phase: Phase) -> np.int64:
    """The integer of a phase (``PHASE_CODES``): tools that stack infos into arrays take no strings."""
    return np.int64(PHASE_CODES[phase])


class ActionLayout:
    """Offsets of each block of actions in the flat ``Discrete`` space, from the size of each block
    (plain attributes: read in hot loops)."""

    def __init__(self, rows: int, cols: int, tiles: int, placements: int, wild_values: int) -> None:
        self.rows, self.cols, self.tiles, self.placements, self.wild_values = rows, cols, tiles, placements, wild_values
        self.start = 0
        self.slide = self.start + cols
        self.block = self.slide + tiles
        self.place = self.block + placements
        self.arrange = self.place + placements
        self.wild = self.arrange + len(PERMUTATIONS)
        self.select = self.wild + wild_values
        self.confirm = self.select + rows * cols
        self.pass_ = self.confirm + 1
        self.size = self.pass_ + 1

    def phase_range(self, phase: Phase) -> range:
        """Actions that can be legal in a phase."""
        spans = {
            Phase.START: (self.start, self.slide),
            Phase.SLIDE: (self.slide, self.block),
            Phase.STAR_SLIDE: (self.slide, self.block),
            Phase.BLOCK: (self.block, self.place),
            Phase.PLACE: (self.place, self.arrange),
            Phase.ARRANGE: (self.arrange, self.wild),
            Phase.WILD: (self.wild, self.select),
            Phase.COMBO: (self.select, self.size),
            Phase.OVER: (0, 0),
            Phase.WAIT: (0, 0),
        }
        return range(*spans[phase])


@lru_cache(maxsize=8)
def tetromino_table(rules: Rules) -> ShapeTable:
    return ShapeTable.build(rules.tetrominoes, rules.rows, rules.cols)


@lru_cache(maxsize=8)
def layout_for(rules: Rules) -> ActionLayout:
    table = tetromino_table(rules)
    return ActionLayout(rules.rows, rules.cols, len(rules.letters), table.size, rules.max_number + 1)


@lru_cache(maxsize=32)
def block_table(rules: Rules, name: str) -> ShapeTable:
    """Placements of one multiplayer block; its orientations index the solo *block* actions."""
    cells = dict(rules.multi_blocks)[name]
    table = ShapeTable.build(((name, cells),), rules.rows, rules.cols)
    if table.size > len(layout_for(rules).phase_range(Phase.BLOCK)):
        raise ValueError(f"Rules: block {name} has more placements than the block actions can encode")
    return table
