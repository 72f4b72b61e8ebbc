"""The quick start (``numberdrop_env.startup``): games played as Python while the engine compiles
are the games the compiled engine plays, whenever the switch happens."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from numberdrop_env import numba_cache, startup
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.decision import NumberDropEnv
from numberdrop_env.envs.turn import NumberDropTurnEnv
from numberdrop_env.planner import kernels
from numberdrop_env.planner.turns import TurnPlanner


@pytest.fixture(autouse=True)
def compiled_after():
    """Each test leaves the process compiled, with no background compile wanted."""
    yield
    numba_cache.restore()
    startup._state = startup._State()


def _turn_game(seed: int, switch_at: int | None) -> list:
    """A ``NumberDropTurn-v0`` game (a varied choice of candidate each turn), interpreted up to
    turn ``switch_at`` (None: compiled throughout); every observation, reward and info. (No
    background compile runs here: the test's ``poll`` never switches, ``compiled`` at once.)"""
    env = NumberDropTurnEnv()
    if switch_at is not None:
        numba_cache.interpret()
    obs, info = env.reset(seed=seed)
    out, turn, over = [(obs, info)], 0, False
    while not over:
        if turn == switch_at:
            startup.compiled()  # no background compile here: binds the compiled functions again
        turn += 1
        action = turn % int(info["candidate_count"])
        obs, reward, over, _, info = env.step(action)
        out.append((obs, reward, info))
    assert numba_cache.interpreted() == (switch_at is not None and switch_at >= turn)
    return out


def _assert_same(a: object, b: object) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _assert_same(a[k], b[k])
    elif isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_turn_game_switching_at_any_turn_is_the_compiled_game(seed, monkeypatch):
    monkeypatch.setattr(startup, "poll", lambda: None)
    compiled = _turn_game(seed, None)
    for switch_at in (1, 5, 10, 1000):  # 1000: interpreted to the end
        played = _turn_game(seed, switch_at)
        assert len(played) == len(compiled)
        for a, b in zip(played, compiled):
            _assert_same(a, b)


def test_a_decision_game_switching_midway_is_the_compiled_game(monkeypatch):
    monkeypatch.setattr(startup, "poll", lambda: None)

    def game(switch_at: int | None) -> list:
        env = NumberDropEnv()
        if switch_at is not None:
            numba_cache.interpret()
        obs, info = env.reset(seed=3)
        rng, out, over, t = np.random.default_rng(3), [obs], False, 0
        while not over:
            if t == switch_at:
                startup.compiled()
            obs, reward, over, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            out.append((obs, reward, info["score"]))
            t += 1
        return out

    compiled = game(None)
    for played in (game(20), game(10_000)):
        assert len(played) == len(compiled)
        for a, b in zip(played, compiled):
            _assert_same(a, b)


def test_interpret_sets_the_compiled_functions_aside_and_restore_brings_them_back():
    before = numba_cache.compiled_functions()
    compiled = kernels.structures_into
    assert numba_cache.interpret() > 20
    assert numba_cache.interpreted() and kernels.structures_into is compiled.py_func
    assert numba_cache.compiled_functions() == before  # the record keeps naming the compiled ones
    assert numba_cache.resolve(["planner.kernels.structures_into"])["planner.kernels.structures_into"] is compiled
    numba_cache.restore()
    assert not numba_cache.interpreted() and kernels.structures_into is compiled


def test_the_planner_plays_its_specification_while_interpreted_and_batches_wait():
    game = SoloGame(seed=4)
    game.step(game.layout.start)
    planner = TurnPlanner()
    want = planner.candidates(game, limit=8)
    numba_cache.interpret()
    got = planner.candidates(game, limit=8)
    assert [c.actions for c in got] == [c.actions for c in want]
    np.testing.assert_allclose(got.arrays.value, want.arrays.value, rtol=0, atol=1e-9)
    states = planner.pack_batch([game], 8)
    count, _, _ = planner.candidate_arrays(states, game.rules, 8)  # not interpreted: compiled again
    assert not numba_cache.interpreted() and count[0] == len(want)


def test_game_arrays_plays_the_specification_while_interpreted_without_waiting():
    """An agent planning one game at a time gets the compiled batch arrays' rows from the
    specification (a wild die and a block drop among these turns), and stays interpreted."""
    planner, checked = TurnPlanner(), 0
    for seed in range(3):
        game = SoloGame(seed=seed)
        game.step(game.layout.start)
        while not game.is_over and checked < 12:
            want_states, want_count, want = planner.game_arrays(game, 32)
            numba_cache.interpret()
            states, count, got = planner.game_arrays(game, 32)
            assert numba_cache.interpreted()
            numba_cache.restore()
            k = int(want_count[0])
            assert count[0] == k and np.array_equal(states, want_states)
            for name, a, b in zip(got._fields, got, want):
                assert np.array_equal(a[0, :k], b[0, :k]), name
            planner.candidates(game, limit=1).play(0, game)
            checked += 1


def test_begin_starts_a_background_compile_only_when_needed(monkeypatch):
    spawned = []
    monkeypatch.setattr(startup, "_spawn", lambda: spawned.append(list(startup._state.wanted)))
    monkeypatch.setattr(startup, "_lock_held", lambda: False)
    assert not startup.begin("NumberDropTurn-v0")  # cached (the test run's warm-up): nothing to do
    assert "NumberDropTurn-v0" in startup._state.settled  # and not asked again in this process
    startup._state.settled.clear()
    monkeypatch.setattr(numba_cache, "not_cached", lambda names: list(names))
    monkeypatch.setattr(numba_cache, "not_compiled", lambda names: list(names))
    monkeypatch.setenv(startup.ENV_VAR, "0")
    assert not startup.begin("NumberDropTurn-v0") and not spawned  # turned off
    monkeypatch.delenv(startup.ENV_VAR)
    assert startup.begin("NumberDropTurn-v0") and spawned == [["NumberDropTurn-v0"]]
    assert numba_cache.interpreted()
    assert startup.begin("NumberDropTurn-v0") and len(spawned) == 1  # once per environment id
    monkeypatch.setattr(startup, "_state", startup._State())  # no child: nothing to wait for
    startup.compiled()
    assert not numba_cache.interpreted()


def test_the_lock_lets_one_background_compile_run(monkeypatch, tmp_path):
    monkeypatch.setattr(startup, "lock_path", lambda: str(tmp_path / startup.LOCK))
    assert startup.take_lock()
    assert startup._lock_held() and not startup.take_lock()
    startup.release_lock()
    assert not startup._lock_held() and startup.take_lock()
    startup.release_lock()
    if os.name == "posix":  # a lock left by a process that is gone is not held, and is taken over
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        (tmp_path / startup.LOCK).write_text(gone.stdout.strip())
        assert not startup._lock_held() and startup.take_lock()
        startup.release_lock()
