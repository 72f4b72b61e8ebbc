"""The JAX engine's interface: keys, the end, illegal actions, the chance outcomes of the roll,
the converters and other rules."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp

from numberdrop_env.engine.dice import roll_distribution
from numberdrop_env.engine.rules import WILD, Rules
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.functional import NumberDrop, State, breakdown, from_game, to_game
from numberdrop_env.functional.tables import COMBO, OVER, SLIDE, START
from tests.numberdrop_env.functional.lockstep import assert_games_agree, compiled_lockstep, faces_of

ENV = NumberDrop()
GAMES = 8


def _random_step(env: NumberDrop):
    def step(state: State, key: jax.Array) -> State:
        pick, roll = jax.random.split(key)
        action = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))
        return env.step(state, action, roll)

    return step


PLAY = jax.jit(jax.vmap(_random_step(ENV)))
INIT = jax.jit(jax.vmap(ENV.init))
RESOLVE = jax.jit(ENV.resolve_chance)


def _play(key: jax.Array, games: int, steps: int) -> list[State]:
    init_key, key = jax.random.split(key)
    states = [INIT(jax.random.split(init_key, games))]
    for k in jax.random.split(key, steps):
        states.append(PLAY(states[-1], jax.random.split(k, games)))
    return states


def _equal(a: State, b: State) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


def test_a_game_is_reproducible_from_its_key() -> None:
    first, again, other = (_play(jax.random.PRNGKey(k), GAMES, 40) for k in (7, 7, 8))
    assert all(_equal(a, b) for a, b in zip(first, again))
    assert not _equal(first[-1], other[-1])
    assert (np.asarray(first[0].phase) == START).all() and (np.asarray(first[1].phase) == SLIDE).all()
    assert (np.sort(np.asarray(first[0].tiles), axis=1) == np.arange(5)).all()


def test_a_finished_game_stays_and_gains_nothing() -> None:
    states = _play(jax.random.PRNGKey(1), GAMES, 400)
    end = states[-1]
    assert np.asarray(end.terminated).all() and (np.asarray(end.phase) == OVER).all()
    assert not np.asarray(end.legal_action_mask).any()
    after = PLAY(end, jax.random.split(jax.random.PRNGKey(2), GAMES))
    assert (np.asarray(after.rewards) == 0).all()
    assert _equal(after.replace(rewards=end.rewards), end)
    returns = sum(np.asarray(s.rewards[:, 0]) for s in states[1:])
    np.testing.assert_array_equal(returns, np.asarray(jax.jit(jax.vmap(ENV.breakdown))(end)["total"]))


def test_an_illegal_action_ends_the_game_with_the_penalty() -> None:
    start = ENV.init(jax.random.PRNGKey(0))
    no_roll = np.zeros(5, np.int32)
    tried = [(compiled_lockstep(), a, -1.0) for a in (7, 411, 412, -1)]
    tried.append((jax.jit(lambda s, a, f: (NumberDrop(illegal_reward=-5).step_with_faces(s, a, f),)), 7, -5.0))
    for step, action, penalty in tried:
        state = step(start, action, no_roll)[0]
        assert bool(state.terminated) and float(state.rewards[0]) == penalty
        assert not np.asarray(state.legal_action_mask).any()
        np.testing.assert_array_equal(state.grid, start.grid)
        assert int(state.phase) == START  # the sheet stays as it was
        with pytest.raises(ValueError, match="illegal action"):
            to_game(state)


def test_the_roll_is_a_chance_outcome() -> None:
    table = roll_distribution()
    np.testing.assert_array_equal(ENV.chance_outcomes, table.faces)
    assert ENV.num_chance_outcomes == len(table.faces) == 1860
    start = ENV.init(jax.random.PRNGKey(3))
    assert not np.asarray(ENV.chance_probabilities(start)).any()
    both = jax.jit(lambda s, a, o: (ENV.decide(s, a), ENV.step_with_outcome(s, a, o)))
    after = both(start, 3, 0)[0]  # the starting number: the first roll is due
    assert bool(after.roll_due) and not np.asarray(after.legal_action_mask).any()
    probabilities = np.asarray(ENV.chance_probabilities(after))
    np.testing.assert_allclose(probabilities, table.probabilities, rtol=1e-6)
    for outcome in (0, 1000, 1859):
        rolled = RESOLVE(after, outcome)
        faces = table.faces[outcome]
        want = [die[f] for die, f in zip(ENV.rules.number_dice, faces[:-1])]
        np.testing.assert_array_equal(rolled.dice, want)
        assert int(rolled.shape_face) == faces[-1] and not bool(rolled.roll_due)
        assert bool(rolled.star_pending) == (WILD in want or ENV.rules.shape_die[faces[-1]] == "*")
        assert _equal(both(start, 3, outcome)[1], rolled)
        assert to_game(rolled).legal_mask().tolist() == np.asarray(rolled.legal_action_mask).tolist()
    assert _equal(RESOLVE(rolled, 5), rolled)  # no roll due: nothing changes
    faces = np.asarray(jax.jit(jax.vmap(ENV.sample_faces))(jax.random.split(jax.random.PRNGKey(0), 2000)))
    for die, size in enumerate(ENV.tables.die_sizes.tolist()):
        assert sorted(set(faces[:, die].tolist())) == list(range(size))


def test_converters_keep_every_field_and_refuse_what_they_cannot_hold() -> None:
    game = SoloGame(seed=5)
    rng = np.random.default_rng(5)
    while game.phase.value != "combo" or not game.legal_mask()[:410].any():
        game.step(int(rng.choice(np.flatnonzero(game.legal_mask()))))
        if game.is_over:
            game = SoloGame(seed=int(rng.integers(1000)))
    game.step(int(np.flatnonzero(game.legal_mask())[0]))  # a first cell selected
    state = from_game(game)
    assert int(state.phase) == COMBO
    assert to_game(state).to_dict(include_rng=False) == game.to_dict(include_rng=False)
    assert {k: int(v) for k, v in breakdown(state).items()} == game.sheet.score_breakdown()
    with pytest.raises(TypeError, match="SoloGame"):
        from_game(game.to_dict())
    with pytest.raises(TypeError, match="State"):
        to_game(game)
    with pytest.raises(ValueError, match="batch"):
        to_game(jax.tree.map(lambda x: jnp.stack([x, x]), state))
    with pytest.raises(ValueError, match="roll_due"):
        to_game(ENV.decide(ENV.init(jax.random.PRNGKey(0)), 0))
    with pytest.raises(TypeError, match="Rules"):
        NumberDrop(rules="default")
    with pytest.raises(TypeError, match="illegal_reward"):
        NumberDrop(illegal_reward="-1")


def test_the_observation_is_one_flat_vector() -> None:
    state = _play(jax.random.PRNGKey(4), GAMES, 30)[-1]
    obs = np.asarray(jax.jit(jax.vmap(ENV.observe))(state))
    assert obs.shape == (GAMES, *ENV.observation_shape) and obs.dtype == np.float32
    assert (obs >= 0).all() and (obs <= 1).all()
    assert sum(int(np.prod(s)) for s in ENV.observation_parts.values()) == ENV.observation_shape[0]
    assert ENV.num_actions == 412


def test_other_rules_are_other_tables() -> None:
    """A star on every die and a smaller sheet, played in lock-step with the engine."""
    rules = Rules(
        rows=12,
        cols=6,
        regular_rows=9,
        number_dice=((1, -1, 3, 4, 5, 7), (1, 2, -1, 4, 5, 6), (2, 3, 4, -1, 6, 7), (1, 2, 3, -1, 6, 7)),
    )
    env = NumberDrop(rules)
    assert env.num_actions == rules.cols + 5 + 2 * 19 * rules.cols + 24 + 10 + rules.rows * rules.cols + 2
    for seed in range(3):
        game, rng = SoloGame(rules, seed=seed), np.random.default_rng(seed)
        state = from_game(game)
        while not game.is_over:
            action = int(rng.choice(np.flatnonzero(game.legal_mask())))
            reward = game.step(action)
            state, parts, observation = compiled_lockstep(rules)(state, action, faces_of(game))
            assert float(state.rewards[0]) == reward
            one = jax.tree.map(lambda x: np.asarray(x)[None], (state, parts, observation))
            assert_games_agree([game], *one, f"seed {seed}")
            assert to_game(state, rules).to_dict(include_rng=False) == game.to_dict(include_rng=False)


def test_the_package_loads_no_numba_and_no_torch() -> None:
    code = (
        "import sys, numberdrop_env.functional as f; f.NumberDrop();"
        "print(sorted(m for m in ('numba', 'torch', 'pgx') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_package_roots_lazy_names_are_its_public_names() -> None:
    import numberdrop_env

    assert set(numberdrop_env.__all__) == {*numberdrop_env._LAZY, "multiplayer_v0"}
    assert all(getattr(numberdrop_env, name) is not None for name in numberdrop_env.__all__)
    with pytest.raises(AttributeError, match="no attribute"):
        numberdrop_env.NoSuchName  # noqa: B018
