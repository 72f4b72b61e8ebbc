"""Fuzzing the state loaders: mutated saved states are refused with ``ValueError``/``TypeError`` or
accepted as a playable game, never anything else.

Each engine (solo game, multiplayer table, Lucky Numbers) gets a few thousand mutants of
states saved along real games: a field replaced by a value of another type or range, a
number nudged by one, a key dropped or added, a list cut, grown, swapped or reversed. An
accepted mutant must round-trip and, unless it is over, offer a legal decision that plays.

A longer run: ``python -m tests.gamekit.test_state_fuzz 20000`` (mutants per engine).
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from luckynumbers_env import Game
from luckynumbers_env import Rules as LuckyRules
from numberdrop_env import SoloGame
from numberdrop_env.engine.table import Table
from tests.support.helpers import eager

ODD = [
    None,
    True,
    False,
    0,
    1,
    -1,
    2,
    4,
    7,
    9,
    10,
    11,
    20,
    255,
    256,
    261,
    -255,
    2**31,
    2**63,
    10**18,
    2**128,
    -(2**70),
    0.5,
    1.0,
    float("nan"),
    float("inf"),
    "",
    "x",
    "I",
    "*",
    "wait",
    "game_over",
    "place",
    [],
    [0],
    [[]],
    [1, 2],
    {},
    {"a": 1},
]


# ----------------------------------------------------------------------------- saved states of real games
def solo_states(games: int, every: int = 7) -> list[dict[str, Any]]:
    out = []
    for seed in range(games):
        game, rng = SoloGame(seed=seed), np.random.default_rng(seed)
        for k in range(10**4):
            if k % every == 0 or game.is_over:
                out.append(game.to_dict())
            if game.is_over:
                break
            game.step(eager(game, game.legal_mask(), rng))
    return out


def table_states(games: int, every: int = 11) -> list[dict[str, Any]]:
    out = []
    for seed in range(games):
        table, rng = Table(2 + seed % 5, seed=seed), np.random.default_rng(seed)
        for k in range(10**5):
            if k % every == 0 or table.over or table.block_letter is not None:
                out.append(table.to_dict())
            if table.over:
                break
            p = table.to_act()[0]
            table.step(p, eager(table.seats[p], table.legal_mask(p), rng))
    return out


def lucky_states(games: int, every: int = 5) -> list[dict[str, Any]]:
    out = []
    variants = [LuckyRules(players=2), LuckyRules(players=3, setup="michael", bruno=True), LuckyRules(players=4)]
    for seed in range(games):
        game, rng = Game(variants[seed % 3], seed), np.random.default_rng(seed)
        for k in range(10**5):
            if k % every == 0 or game.over:
                out.append(game.to_dict())
            if game.over:
                break
            game.step(int(rng.choice(game.legal_actions())))
    return out


# ----------------------------------------------------------------------------- mutations
def _paths(node: Any, path: tuple = ()) -> list[tuple]:
    """Every place in a nested state: dict keys and list indices."""
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, path + (i,))
    return out


def _get(node: Any, path: tuple) -> Any:
    for k in path:
        node = node[k]
    return node


def _nudge(value: Any, rng: np.random.Generator) -> Any:
    """A nearby value of the same kind (an int off by one, a flipped bool), else an odd value."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + int(rng.choice([-1, 1, 256, -256]))
    return ODD[rng.integers(len(ODD))]


def mutate(state: dict[str, Any], paths: list[tuple], rng: np.random.Generator) -> dict[str, Any]:
    """One to three random edits of a copy of ``state`` (``paths``: its places, from ``_paths``).

    Half the edits hit a field near the top (a table's or a seat's), the others any place,
    most of them grid cells. A place an earlier edit removed is skipped.
    """
    data = json.loads(json.dumps(state))
    near_top = [p for p in paths if len(p) <= 3]
    for _ in range(int(rng.integers(1, 4))):
        pool = near_top if rng.random() < 0.5 else paths
        path = pool[rng.integers(len(pool))]
        try:
            parent, key = _get(data, path[:-1]), path[-1]
            parent[key]
        except (KeyError, IndexError, TypeError):
            continue
        if not isinstance(parent, (dict, list)):
            continue
        _edit(data, parent, key, paths, rng)
    return data


def _edit(data: dict[str, Any], parent: Any, key: Any, paths: list[tuple], rng: np.random.Generator) -> None:
    op = rng.integers(6)
    if op == 0:
        parent[key] = copy.deepcopy(ODD[rng.integers(len(ODD))])
    elif op in (1, 2):
        parent[key] = _nudge(parent[key], rng)
    elif op == 3 and isinstance(parent, dict):
        if rng.random() < 0.5:
            del parent[key]
        else:
            parent[f"extra_{key}"] = 0
    elif op == 4 and isinstance(parent[key], list) and parent[key]:
        items = parent[key]
        how = rng.integers(4)
        if how == 0:
            items.pop()
        elif how == 1:
            items.append(copy.deepcopy(items[0]))
        elif how == 2:
            i, j = rng.integers(len(items), size=2)
            items[i], items[j] = items[j], items[i]
        else:
            items.reverse()
    else:
        try:  # another field's value
            parent[key] = copy.deepcopy(_get(data, paths[rng.integers(len(paths))]))
        except (KeyError, IndexError, TypeError):
            pass


# ----------------------------------------------------------------------------- what an accepted state must do
def _solo_plays(game: SoloGame, rng: np.random.Generator) -> None:
    assert SoloGame.from_dict(json.loads(json.dumps(game.to_dict()))).to_dict() == game.to_dict()
    if not game.is_over:
        mask = game.legal_mask()
        assert mask.any(), f"a live game in phase {game.phase.value} with no legal action"
        game.step(int(rng.choice(np.flatnonzero(mask))))


def _table_plays(table: Table, rng: np.random.Generator) -> None:
    assert Table.from_dict(json.loads(json.dumps(table.to_dict()))).to_dict() == table.to_dict()
    if not table.over:
        ready = table.to_act()
        assert ready, "a live table with nobody to act"
        for p in ready:
            assert table.legal_mask(p).any(), f"seat {p} must act but has no legal action"
        p = ready[0]
        table.step(p, int(rng.choice(np.flatnonzero(table.legal_mask(p)))))


def _lucky_plays(game: Game, rng: np.random.Generator) -> None:
    assert Game.from_dict(json.loads(json.dumps(game.to_dict()))).to_dict() == game.to_dict()
    if not game.over:
        legal = game.legal_actions()
        assert legal, f"a live game in phase {game.phase.value} with no legal action"
        game.step(int(rng.choice(legal)))


ENGINES: dict[str, tuple[Callable[[int], list], Callable[[Any], Any], Callable[[Any, Any], None]]] = {
    "solo": (solo_states, SoloGame.from_dict, _solo_plays),
    "table": (table_states, Table.from_dict, _table_plays),
    "lucky": (lucky_states, Game.from_dict, _lucky_plays),
}


def fuzz(engine: str, mutants: int, seed: int = 0, games: int = 6) -> dict[str, int]:
    """Load ``mutants`` mutated states; raise AssertionError on the first loader or play defect."""
    states_of, load, plays = ENGINES[engine]
    bases = states_of(games)
    places = [_paths(b)[1:] for b in bases]
    rng = np.random.default_rng(seed)
    counts = {"refused": 0, "accepted": 0}
    for _ in range(mutants):
        k = rng.integers(len(bases))
        data = mutate(bases[k], places[k], rng)
        try:
            game = load(data)
        except (ValueError, TypeError):
            counts["refused"] += 1
            continue
        except Exception as err:  # noqa: BLE001 - the point of the test
            raise AssertionError(
                f"{engine}: {type(err).__name__}: {err}\n{json.dumps(data, default=str)[:2000]}"
            ) from err
        counts["accepted"] += 1
        plays(game, rng)
    return counts


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_mutated_states_are_refused_cleanly_or_play(engine):
    counts = fuzz(engine, 2000)
    assert counts["refused"] > counts["accepted"] > 0  # most edits break a rule; a few keep a valid state


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    for name in sorted(ENGINES):
        print(name, fuzz(name, n, seed=1, games=20))
