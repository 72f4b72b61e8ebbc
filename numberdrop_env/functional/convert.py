"""``from_game`` and ``to_game``: a ``State`` and the engine's ``SoloGame`` stand for the same game,
every field of ``SoloGame.to_dict(include_rng=False)`` kept both ways (the engine checks what it is
given back, so a state no play could reach is refused with its ``ValueError``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import jax
import numpy as np

from ..engine.actions import PHASES, Phase
from ..engine.rules import DEFAULT_RULES, WILD, Rules
from ..engine.solo import SoloGame
from .env import NumberDrop
from .state import State


def game_fields(game: SoloGame) -> dict[str, np.ndarray]:
    """The ``State`` fields of a game that follow from its ``to_dict`` (not the mask, rewards or
    structures), as NumPy arrays."""
    if not isinstance(game, SoloGame):
        raise TypeError(f"game must be a SoloGame, got {type(game).__name__}")
    r, d = game.rules, game.to_dict(include_rng=False)
    sheet, cols = d["sheet"], r.cols
    phase = Phase(d["phase"])
    i32 = np.int32
    rolled = d["dice"] is not None
    selection = [row * cols + c for row, c in d["selection"]]
    return {
        "grid": np.array(sheet["values"], i32),
        "used": np.array(sheet["used"], bool),
        "identical": np.array(sheet["identical"], bool),
        "consecutive": np.array(sheet["consecutive"], bool),
        "bonus": np.array(sheet["bonus"], bool),
        "letters": np.array(sheet["circled"], bool),
        "lines": np.array(sheet["lines"], bool),
        "penalties": np.array(sheet["penalties"], bool),
        "tiles": np.array([r.shape_names.index(x) for x in d["tiles"]], i32),
        "notches": np.array(d["notches"], i32),
        "dice": np.array(d["dice"] if rolled else [0] * len(r.number_dice), i32),
        "shape_face": np.array(r.shape_die.index(d["shape_face"]) if rolled else -1, i32),
        "phase": np.array(PHASES.index(phase), i32),
        "turn": np.array(d["turn"], i32),
        "star_pending": np.array(d["star_pending"], bool),
        "block_tile": np.array(-1 if d["block_tile"] is None else d["block_tile"], i32),
        "pending_cells": np.array([row * cols + c for row, c in d["pending_cells"]] or [-1] * 4, i32),
        "pending_values": np.array(d["pending_values"] or [WILD] * 4, i32),
        "selection": np.array(selection + [-1] * (r.bonus_size - len(selection)), i32),
        "selection_size": np.array(len(selection), i32),
    }


def from_game(game: SoloGame) -> State:
    """The state of a game, its mask and combination structures computed by the JAX engine."""
    fields = game_fields(game)
    fields["terminated"] = np.array(game.is_over)
    return _builder(game.rules)(fields)


@lru_cache(maxsize=8)
def _builder(rules: Rules) -> Callable[[dict[str, np.ndarray]], State]:
    """A compiled function from a game's fields to its whole state (one per set of rules)."""
    env = NumberDrop(rules)

    def build(fields: dict[str, jax.Array]) -> State:
        return env.refresh(env.init(jax.random.PRNGKey(0)).replace(**fields))

    return jax.jit(build)


def to_game(state: State, rules: Rules = DEFAULT_RULES, seed: Any = None) -> SoloGame:
    """The engine's game of one (unbatched) state; its dice continue from ``seed``."""
    if not isinstance(state, State):
        raise TypeError(f"state must be a State, got {type(state).__name__}")
    s = jax.tree.map(np.asarray, state)
    if s.phase.shape != ():
        raise ValueError(f"to_game takes one game, got a batch of shape {s.phase.shape}")
    if bool(s.roll_due):
        raise ValueError("state.roll_due: a roll is owed (resolve_chance first); the engine always rolls at once")
    r = rules
    phase = PHASES[int(s.phase)]
    if bool(s.terminated) and phase is not Phase.OVER:
        raise ValueError("state: the game was ended by an illegal action, which the engine cannot hold")
    cols = r.cols
    rolled = int(s.shape_face) >= 0
    size = int(s.selection_size)
    data = {
        "version": 1,
        "sheet": {
            "values": s.grid.tolist(),
            "used": s.used.tolist(),
            "identical": s.identical.tolist(),
            "consecutive": s.consecutive.tolist(),
            "circled": s.letters.tolist(),
            "crossed": [False] * len(r.letters),
            "lines": s.lines.tolist(),
            "penalties": s.penalties.tolist(),
            "bonus": bool(s.bonus),
        },
        "tiles": [r.shape_names[i] for i in s.tiles.tolist()],
        "notches": s.notches.tolist(),
        "dice": s.dice.tolist() if rolled else None,
        "shape_face": r.shape_die[int(s.shape_face)] if rolled else None,
        "phase": phase.value,
        "turn": int(s.turn),
        "star_pending": bool(s.star_pending),
        "block_tile": None if int(s.block_tile) < 0 else int(s.block_tile),
        "pending_cells": [list(divmod(c, cols)) for c in s.pending_cells.tolist()] if phase in _PENDING else [],
        "pending_values": s.pending_values.tolist() if phase is Phase.WILD else [],
        "selection": [list(divmod(c, cols)) for c in s.selection[:size].tolist()],
        "rng": None,
    }
    return SoloGame.from_dict(data, r, seed)


_PENDING = (Phase.ARRANGE, Phase.WILD)
