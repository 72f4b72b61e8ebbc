"""What a turn candidate is: one way to play the rest of a turn and the sheet it leaves,
shared by ``TurnPlanner`` (``.turns``) and its specification (``.turns_python``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine.actions import Phase
from ..engine.solo import SoloGame
from .heuristic import Weights

PLAN_PHASES = (Phase.SLIDE, Phase.STAR_SLIDE, Phase.BLOCK, Phase.PLACE, Phase.ARRANGE)
"""Phases from which the rest of a rolled turn can be enumerated."""
TURN_PHASES = (Phase.START, *PLAN_PHASES)
"""Phases ``TurnPlanner.candidates`` accepts: the starting number's column is a turn of its own."""


def check_phase(game: SoloGame) -> None:
    """Refuse a game whose pending decision does not start the rest of a turn."""
    if game.phase not in TURN_PHASES:
        raise ValueError(
            f"cannot enumerate a turn from phase {game.phase.value!r}; expected one of {[p.value for p in TURN_PHASES]}"
        )


def remaining_turns(notches: np.ndarray | tuple[int, ...], last: int) -> float:
    """Expected number of turns after the current one, from the notches left."""
    ahead = [last - n for n in (notches.tolist() if isinstance(notches, np.ndarray) else notches) if n < last]
    if not ahead:
        return 0.0
    return sum(ahead) / (1.0 + 1.0 / 6.0 + 0.0702 * len(ahead))


@dataclass(eq=False)
class Candidate:
    """One way to play the rest of a turn and the sheet it leaves."""

    actions: tuple[int, ...]
    """Micro-actions of ``NumberDrop-v0`` from the pending decision to the end of the turn."""
    phases: tuple[Phase, ...]
    """The phase each action is played in."""
    value: float
    """Planner value: ``points`` plus the heuristic of the afterstate (the ranking)."""
    points: int
    """Official score change of the turn (boxes, column bonuses, +2 lines, -5 rows)."""
    values: list[int]
    """Afterstate grid, flat (``row * cols + column``), before the next roll."""
    used: list[bool]
    heights: list[int]
    notches: tuple[int, ...]
    combo: tuple[str, int] | None
    """(kind, size) of the scored combination, or None for a pass or a lost piece."""
    ends_game: bool
    """The game ends after this turn (Game Over line crossed, piece lost, last notch)."""
    terms: dict[str, float] = field(default_factory=dict)
    """The planner value's parts: geometry, potential, turns, letter."""

    @property
    def key(self) -> tuple[Any, ...]:
        """Identity of the afterstate: candidates with equal keys are the same outcome."""
        return (tuple(self.values), tuple(self.used), self.notches)

    def play(self, game: SoloGame) -> int:
        """Play the candidate on ``game`` (at the decision it was enumerated from) by jumping to its
        afterstate, the starting number by its one decision; returns its points."""
        if game.phase is Phase.START:
            return sum(game.step(a) for a in self.actions)
        game.play_afterstate(
            np.asarray(self.values),
            np.asarray(self.used),
            np.asarray(self.heights),
            np.asarray(self.notches),
            self.combo,
            piece_lost=not self.terms,
        )
        return self.points

    def describe(self, game: SoloGame) -> dict[str, Any]:
        """The candidate in the game's words, decision by decision (JSON-safe)."""
        g = game.clone()
        steps = []
        for a in self.actions:
            steps.append(g.describe(a))
            if not g.legal_mask()[a]:
                raise ValueError(f"candidate does not apply to this game: {steps[-1]}")
            g.step(a)
        return {
            "points": self.points,
            "value": round(self.value, 3),
            "combination": None if self.combo is None else {"kind": self.combo[0], "size": self.combo[1]},
            "ends_game": self.ends_game,
            "decisions": steps,
        }


def letter_values(g: SoloGame, w: Weights) -> list[float]:
    """What circling each letter is worth now: 0 once circled or once its block is gone; at a
    table (``g.rivals``) plus ``hurt`` and ``threat`` by the opponents' circles."""
    last = g.rules.last_notch
    live = [(int(n) < last) and not c for n, c in zip(g.notches, g.sheet.circled.tolist())]
    rivals = getattr(g, "rivals", None)
    if rivals is None:
        return [w.letter if ok else 0.0 for ok in live]
    circled, half = rivals
    return [
        w.letter + w.hurt * (1.0 - c) + w.threat * max(c, h) if ok else 0.0
        for ok, c, h in zip(live, circled.tolist(), half.tolist())
    ]


def start_candidates(game: SoloGame) -> list[Candidate]:
    """Where to write the starting number: one candidate per column, left to right, all of
    planner value 0 (nothing is known yet)."""
    L, s = game.layout, game.sheet
    notches = tuple(game.notches.tolist())
    out = []
    for col in np.flatnonzero(game.legal_mask()[L.start : L.slide]).tolist():
        values, used = s.values.ravel().tolist(), s.used.ravel().tolist()
        values[col] = game.start_number
        heights = s.heights.tolist()
        heights[col] = 1
        out.append(Candidate((L.start + col,), (Phase.START,), 0.0, 0, values, used, heights, notches, None, False))
    return out
