"""Masks against the brute-force oracle, masked actions refused without a trace, and 3,000
random games of every table size and variant without an error."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from luckynumbers_env import Game, Phase, Rules
from tests.oracles.lucky_oracle import legal_actions as oracle_actions

VARIANTS = [
    Rules(players=n, setup=setup, bruno=bruno)
    for n in (2, 3, 4)
    for setup in ("standard", "michael")
    for bruno in (False, True)
]


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.players}p-{r.setup}-{'bruno' if r.bruno else 'plain'}")
def test_mask_equals_the_oracle_at_every_decision(rules):
    for seed in range(4):
        game = Game(rules, seed=seed)
        rng = random.Random(seed)
        while not game.over:
            mask = game.legal_mask()
            assert set(np.flatnonzero(mask).tolist()) == oracle_actions(game)
            assert np.flatnonzero(mask).tolist() == game.legal_actions()
            game.step(rng.choice(game.legal_actions()))


@pytest.mark.parametrize(
    "rules", VARIANTS[::3], ids=lambda r: f"{r.players}p-{r.setup}-{'bruno' if r.bruno else 'plain'}"
)
def test_every_masked_action_raises_and_changes_nothing(rules):
    game = Game(rules, seed=1)
    rng = random.Random(1)
    step = 0
    while not game.over:
        if step % 25 == 0:
            before = game.to_dict()
            mask = game.legal_mask()
            for action in np.flatnonzero(~mask):
                with pytest.raises(ValueError, match="not legal"):
                    game.step(int(action))
                assert game.to_dict() == before
        game.step(rng.choice(game.legal_actions()))
        step += 1


def random_move(game: Game, rng: random.Random) -> int:
    """A random legal action; choosing a source, the pool and the table are equally likely (a
    uniform choice among all actions would nearly always take a face-up tile, and games would
    run three times longer without reaching other positions)."""
    legal = game.legal_actions()
    if game.phase is Phase.CHOOSE and legal[0] == 0 and len(legal) > 1 and rng.random() < 0.25:
        return 0
    return rng.choice(legal)


def play_random_games(seeds: list[int]) -> Counter:
    """Random legal moves to the end; checks the end of every game. Returns how games ended."""
    ends: Counter = Counter()
    for seed in seeds:
        rules = VARIANTS[seed % len(VARIANTS)]
        game = Game(rules, seed=seed)
        rng = random.Random(seed)
        while not game.over:
            game.step(random_move(game, rng))
        empty = [game.empty_cells(p) for p in range(rules.players)]
        if game.ended_by == "full":
            assert game.winners == [empty.index(0)] and game.pool_size >= 0
        else:
            assert game.pool_size == 0 and game.winners == [p for p in range(rules.players) if empty[p] == min(empty)]
        state = game.to_dict()
        assert Counter([v for b in state["boards"] for v in b if v] + state["table"]) == Counter(
            {v: rules.players for v in range(1, 21)}
        ) - Counter(state["pool"])
        assert Game.from_dict(state).to_dict() == state
        ends[(rules.players, game.ended_by)] += 1
    return ends


def test_three_thousand_random_games_without_error():
    """Enough games that both ways of ending occur at every table size (the rarest, a full board
    at two players, 7 times), at about 4 CPU-ms a game (in this process: the test run already
    keeps every core busy)."""
    ends = play_random_games(list(range(3_000)))
    assert sum(ends.values()) == 3_000
    for n in (2, 3, 4):  # both ways of ending happen at every table size
        assert ends[(n, "full")] > 0 and ends[(n, "pool")] > 0


def test_the_seed_fixes_the_whole_game():
    for rules in VARIANTS[::2]:
        a, b = Game(rules, seed=7), Game(rules, seed=7)
        rng = random.Random(0)
        while not a.over:
            assert a.to_dict() == b.to_dict()
            action = rng.choice(a.legal_actions())
            assert a.step(action).tolist() == b.step(action).tolist()
        assert b.over and a.to_dict() == b.to_dict()
    assert Game(Rules(), seed=1).pool_order() != Game(Rules(), seed=2).pool_order()


def test_phases_seen_in_random_games_cover_every_decision():
    seen = set()
    for rules in (Rules(players=2, setup="michael", bruno=True), Rules(players=4, bruno=True)):
        for seed in range(5):
            game = Game(rules, seed=seed)
            rng = random.Random(seed)
            while not game.over:
                seen.add((game.phase, game.extra))
                game.step(rng.choice(game.legal_actions()))
    assert {(Phase.SETUP, False), (Phase.CHOOSE, False), (Phase.PLACE, False), (Phase.CHOOSE, True)} <= seen
