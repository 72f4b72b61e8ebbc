"""Lucky Numbers states: round trips at every decision, refused corruptions, golden playthroughs."""

from __future__ import annotations

import copy
import json
import random

import pytest

from luckynumbers_env import Game, Rules
from tests.golden.lucky_golden import GAMES, GOLDEN, playthrough


@pytest.mark.parametrize(
    "rules",
    [Rules(players=2), Rules(players=3, setup="michael", bruno=True), Rules(players=4, bruno=True)],
    ids=["2p", "3p-michael-bruno", "4p-bruno"],
)
def test_round_trip_at_every_decision_continues_identically(rules):
    game = Game(rules, seed=9)
    rng = random.Random(9)
    while not game.over:
        state = json.loads(json.dumps(game.to_dict()))  # JSON-safe
        copy_ = Game.from_dict(state)
        assert copy_.to_dict() == game.to_dict()
        assert copy_.legal_actions() == game.legal_actions()
        action = rng.choice(game.legal_actions())
        assert copy_.step(action).tolist() == game.step(action).tolist()
        assert copy_.to_dict() == game.to_dict()
    assert Game.from_dict(game.to_dict()).to_dict() == game.to_dict()


def _corrupt(state, path, value):
    out = copy.deepcopy(state)
    target = out
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


def _start():
    game = Game(Rules(players=2), seed=0)
    game.step(0)  # draw: a tile in hand
    return game.to_dict()


@pytest.mark.parametrize(
    "path, value, error",
    [
        (("version",), 2, ValueError),
        (("phase",), "roll", ValueError),
        (("rules", "players"), 5, ValueError),
        (("boards", 0, 1), 1, ValueError),  # a 1 right of the 0,0 tile: not increasing
        (("boards", 0, 0), 0, ValueError),  # a diagonal cell empty after the setup
        (("boards", 0, 0), "3", TypeError),
        (("hand",), 0, ValueError),  # phase place without a tile in hand
        (("hand",), 21, ValueError),
        (("player",), 2, ValueError),
        (("drawn",), 1, TypeError),
        (("extra",), True, ValueError),  # no Bruno's variant
        (("winners",), [0], ValueError),  # winners before the end
        (("pool",), KeyError, ValueError),
        (("table",), [5], ValueError),  # one 5 too many
    ],
)
def test_from_dict_refuses_bad_states(path, value, error):
    with pytest.raises(error):
        Game.from_dict(_corrupt(_start(), path, value))


def test_from_dict_refuses_non_dicts_and_unknown_keys():
    with pytest.raises(TypeError):
        Game.from_dict([1, 2])
    state = _start()
    state["dice"] = 1
    with pytest.raises(ValueError, match="unknown"):
        Game.from_dict(state)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough(name):
    recorded = [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_text().splitlines()]
    replayed = list(playthrough(*GAMES[name]))
    assert len(replayed) == len(recorded)
    for step, (want, got) in enumerate(zip(recorded, replayed)):
        assert got == want, f"{name}, decision {step} differs"
