"""The compiled fast path of ``NumberDrop-v0`` against its pure NumPy reference.

Masks, observations (bit for bit: keys, dtypes, shapes and bytes) and the combination
structures must equal ``tests/oracles/decision_reference.py``, the code they replaced, at every
decision of random, combination-greedy and greedy-agent games, of multiplayer seats and
of other rules, and at every prefix of random selections on sheets rich in regions and
paths. Observations must be fresh arrays that no later step changes.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable

import gymnasium as gym
import numpy as np
import pytest

from agents.numberdrop.greedy import GreedyPolicy
from numberdrop_env import DEFAULT_RULES, Phase, Rules, SoloGame, layout_for
from numberdrop_env.engine.table import Table
from numberdrop_env.envs.base import breakdown_dict
from numberdrop_env.envs.decision import observe
from numberdrop_env.envs.observe import Observer
from tests.oracles import decision_reference as reference

L = layout_for(DEFAULT_RULES)
Policy = Callable[[SoloGame, np.random.Generator], int]


# ----------------------------------------------------------------------------- checks
def assert_same_observation(fast: dict[str, np.ndarray], slow: dict[str, np.ndarray]) -> None:
    assert list(fast) == list(slow)
    for name, want in slow.items():
        got = fast[name]
        assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape, name
        assert got.tobytes() == want.tobytes(), name


def check_state(game: SoloGame, stats: Counter) -> None:
    """Mask, observation and combination structures of one state equal the reference's."""
    mask = game.legal_mask()
    want = reference.legal_mask(game)
    assert mask.dtype == want.dtype and mask.shape == want.shape and np.array_equal(mask, want), game.phase
    assert_same_observation(observe(game), reference.observe(game))
    combos = game.combo_index
    if combos is not None:
        for name, want in reference.combo_structures(game.sheet).items():
            got = getattr(combos, name)
            assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want), name
        cells, confirm = combos.options(game.selection)
        want_cells, want_confirm = reference.combo_options(combos, game.selection)
        assert cells.dtype == want_cells.dtype and np.array_equal(cells, want_cells) and confirm == want_confirm
        stats[f"selection_{len(game.selection)}"] += 1
    stats[game.phase.value] += 1
    stats["states"] += 1


def random_policy(game: SoloGame, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(game.legal_mask())
    return int(legal[rng.integers(len(legal))])


def combo_greedy_policy(game: SoloGame, rng: np.random.Generator) -> int:
    """Grow every selection as far as it goes and score it: many boxes, letters and bonuses."""
    mask = game.legal_mask()
    if game.phase is Phase.COMBO:
        cells = np.flatnonzero(mask[L.select : L.confirm])
        if len(cells):
            return L.select + int(cells[rng.integers(len(cells))])
        return L.confirm if mask[L.confirm] else L.pass_
    return random_policy(game, rng)


def play(game: SoloGame, policy: Policy, rng: np.random.Generator, stats: Counter) -> SoloGame:
    while True:
        check_state(game, stats)
        if game.is_over:
            return game
        before = game.score()
        reward = game.step(policy(game, rng))
        assert reward == game.score() - before


# ----------------------------------------------------------------------------- whole games
def test_random_and_combination_greedy_games_match_the_reference():
    stats: Counter = Counter()
    for seed in range(300):
        rng = np.random.default_rng(seed)
        play(SoloGame(seed=seed), random_policy if seed % 2 else combo_greedy_policy, rng, stats)
    assert stats["states"] > 10000, stats
    assert all(stats[p.value] for p in Phase if p is not Phase.WAIT), stats
    assert stats["selection_4"] > 0, stats


def test_greedy_agent_games_match_the_reference():
    stats: Counter = Counter()
    for seed in range(3):
        policy = GreedyPolicy()
        policy.reset(seed)
        game = play(SoloGame(seed=seed), lambda g, _: policy.act(g, g.legal_mask()), np.random.default_rng(seed), stats)
        assert game.score() > 30  # the greedy agent's long, well-scored games
    assert stats["states"] > 200 and stats["selection_5"] > 0, stats


def test_other_rules_match_the_reference():
    rules = Rules(rows=12, cols=6, regular_rows=9, max_number=7)
    stats: Counter = Counter()
    for seed in range(40):
        play(SoloGame(rules, seed=seed), combo_greedy_policy, np.random.default_rng(seed), stats)
    assert stats["states"] > 1000 and stats["selection_2"] > 0, stats


def test_multiplayer_seats_match_the_reference():
    stats: Counter = Counter()
    for seed in range(12):
        table, rng = Table(3, seed=seed), np.random.default_rng(seed)
        while not table.over:
            for seat in table.seats:
                check_state(seat, stats)
            p = table.to_act()[0]
            table.step(p, combo_greedy_policy(table.seats[p], rng))
    assert stats["block"] and stats["wait"], stats


# ----------------------------------------------------------------------------- selections
def rich_combo_game(rng: np.random.Generator) -> SoloGame:
    """A combination phase on a sheet of few distinct values: big regions, long branching
    paths, and some boxes already scored (with as many used cells)."""
    game = SoloGame(seed=int(rng.integers(1000)))
    while game.phase is not Phase.COMBO:
        game.step(random_policy(game, rng))
    rows = int(rng.integers(3, 8))
    values = np.full((14, 7), -1)
    if rng.random() < 0.5:
        values[:rows] = rng.integers(lo := int(rng.integers(0, 7)), lo + 3, (rows, 7))
    else:
        values[:rows] = (np.add.outer(np.arange(rows), np.arange(7)) + int(rng.integers(4))) % 10
    values[:rows][rng.random((rows, 7)) < 0.05] = 10  # a few X cells
    identical, consecutive = rng.random(5) < 0.3, rng.random(5) < 0.3
    bonus = bool(rng.random() < 0.2)
    need = int(
        3 * (identical.sum() + consecutive.sum())
        + np.flatnonzero(identical).sum()
        + np.flatnonzero(consecutive).sum()
        + 8 * bonus
    )  # box i holds 3 + i cells
    numbers = np.flatnonzero((values >= 0) & (values <= 9))
    if need > len(numbers) // 2:
        identical[:], consecutive[:], bonus, need = False, False, False, 0
    used = np.zeros(14 * 7, bool)
    used[rng.choice(numbers, need, replace=False)] = True
    state = game.to_dict()
    state["sheet"].update(
        values=values.tolist(),
        used=used.reshape(14, 7).tolist(),
        identical=identical.tolist(),
        consecutive=consecutive.tolist(),
        circled=(identical & consecutive).tolist(),
        lines=[False] * 11,
        penalties=[False] * 3,
        bonus=bonus,
    )
    state["selection"] = []
    return SoloGame.from_dict(state)


def test_every_prefix_of_selections_on_rich_sheets_matches_the_reference():
    stats: Counter = Counter()
    rng = np.random.default_rng(7)
    for _ in range(40):
        start = rich_combo_game(rng)
        for _ in range(8):
            game = start.clone()
            while game.phase is Phase.COMBO:
                check_state(game, stats)
                game.step(combo_greedy_policy(game, rng) if rng.random() < 0.9 else random_policy(game, rng))
            check_state(game, stats)
    assert stats["selection_8"] > 0 and stats["selection_7"] > 0, stats


# ----------------------------------------------------------------------------- the environment
@pytest.mark.parametrize("kwargs", [{}, {"auto_forced": True}, {"illegal_action": "penalize"}])
def test_environment_steps_answer_like_the_reference(kwargs):
    env = gym.make("NumberDrop-v0", **kwargs)
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=3)
    game = env.unwrapped.game
    kept: list[tuple[dict[str, np.ndarray], dict[str, np.ndarray]]] = []
    for _ in range(2000):
        game = env.unwrapped.game
        assert_same_observation(obs, reference.observe(game))
        assert np.array_equal(info["action_mask"], reference.legal_mask(game))
        assert breakdown_dict(info["score_breakdown"]) == game.sheet.score_breakdown() and info["score"] == game.score()
        assert not any(
            np.shares_memory(a, b)
            for a in obs.values()
            for b in (game.sheet.values, game.sheet.used, game.sheet.heights, game.legal_mask())
        )
        kept.append((obs, copy.deepcopy(obs)))
        if "illegal_action" in kwargs and rng.random() < 0.1:
            action = int(np.flatnonzero(~info["action_mask"])[0])
        else:
            action = random_policy(game, rng)
        before = game.score()
        obs, reward, terminated, truncated, info = env.step(action)
        assert not any(np.shares_memory(a, b) for a in obs.values() for b in kept[-1][0].values())
        if info["illegal_action"]:
            assert reward == -1.0
        else:
            assert reward == env.unwrapped.game.score() - before
        if terminated or truncated:
            obs, info = env.reset()
    for returned, copied in kept:  # later steps never wrote into an observation handed out
        assert_same_observation(returned, copied)


def test_observer_is_the_observation_of_the_documented_space():
    env = gym.make("NumberDrop-v0")
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert Observer(DEFAULT_RULES).size == sum(int(np.prod(s.shape)) for s in env.observation_space.values())
