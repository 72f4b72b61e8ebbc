"""The one game runner: any agent form, any number of workers, any backend, the same games."""

import multiprocessing
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from types import SimpleNamespace

import pytest

from agents.base import RandomPolicy
from agents.cli import evaluate
from agents.evaluation.runner import LUCKYNUMBERS, Local, Match, play_policy, pool, run_matches, worker_context
from agents.evaluation.solo import play_game, run
from agents.evaluation.tables import run_tables
from agents.registry import make_policy
from numberdrop_env import numba_cache

SEEDS = [9, 3, 5, 4]


def scores(results):
    return [(r.seed, r.score, r.breakdown) for r in results]


def test_a_policy_object_a_name_and_options_play_the_same_games_on_any_workers():
    direct = scores(play_game(RandomPolicy(), s) for s in SEEDS)
    assert scores(play_policy(RandomPolicy(), SEEDS)) == direct  # in this process, given order
    assert scores(play_policy(RandomPolicy(), SEEDS, workers=2)) == direct  # pickled to the workers
    assert scores(play_policy("random", SEEDS, workers=2)) == direct
    assert scores(play_policy(("random", {}), SEEDS)) == direct


def test_one_call_plays_solo_games_and_tables_as_their_commands_do():
    solo, lucky = run_matches(
        [
            Match(("random",), (2, 3)),
            Match(("random", "greedy"), (0, 1), LUCKYNUMBERS, 3, setup="michael"),
        ]
    )
    assert scores(solo) == scores(run(["random"], 2, 2, progress=False)["random"])
    tables = run_tables(["random", "greedy"], 3, 2, 0, game="luckynumbers", setup="michael", progress=False)
    strip = [[{k: v for k, v in g.items() if k != "seconds"} for g in seed] for seed in lucky]
    assert strip == [[{k: v for k, v in g.items() if k != "seconds"} for g in tables[s]] for s in (0, 1)]


@pytest.mark.parametrize(
    "match, backend, message",
    [
        (Match(("random",), (0,), "chess"), "local", "unknown game"),
        (Match(("random",), (0,)), "gpu", "unknown backend"),
        (Match(("nobody",), (0,)), "local", "nobody"),
    ],
)
def test_bad_matches_fail_before_any_game(match, backend, message):
    with pytest.raises(ValueError, match=message):
        run_matches([match], backend=backend, progress=False)


@pytest.mark.slow
@pytest.mark.integration
def test_tables_on_ray_are_the_local_tables():
    pytest.importorskip("ray")
    argv = ["--players", "3", "--agents", "greedy,random", "--games", "2", "--seed", "4", "--no-progress"]
    local = evaluate.main(argv + ["--workers", "1"])
    remote = evaluate.main(argv + ["--workers", "2", "--backend", "ray"])
    assert remote == local


def test_worker_processes_find_what_this_process_compiled_in_the_record(tmp_path, monkeypatch):
    """The quick start of an agent in a worker asks numba's record whether the planner is cached:
    a process pool first records what this process compiled (else every worker of a trainer's
    gate would play its first games as Python)."""
    record = str(tmp_path / numba_cache.RECORD)
    monkeypatch.setattr(numba_cache, "record_paths", lambda: [record])
    play_game(make_policy("greedy"), 0)  # the planner, compiled (or loaded) in this process
    name = "planner.enumeration.enumerate_packed"
    assert numba_cache.not_cached([name]) == [name]  # no record yet
    with pool(2):
        assert numba_cache.not_cached([name]) == []


def _greedy_score(seed: int) -> int:
    return play_game(make_policy("greedy"), seed).score


def test_worker_processes_record_what_they_compiled(tmp_path, monkeypatch):
    """A trainer's self-play compiles the planner in its workers, not in its own process: each
    task's worker records it, so that the closing table's workers start compiled."""
    monkeypatch.setattr(numba_cache, "record_paths", lambda: [str(tmp_path / numba_cache.RECORD)])
    name = "planner.enumeration.enumerate_packed"
    assert numba_cache.not_cached([name]) == [name]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as executor:
        scores = Local(executor, 2).map(_greedy_score, [0, 1], SimpleNamespace(update=lambda n: None), lambda seed: 1)
    assert scores == [_greedy_score(0), _greedy_score(1)] and numba_cache.not_cached([name]) == []


def test_worker_processes_start_the_platforms_way_unless_jax_runs_here():
    """A child forked from a process whose JAX threads run hangs; one spawned does not."""
    if "jax" not in sys.modules:
        assert worker_context() is None  # the platform's default
    pytest.importorskip("jax")
    assert worker_context().get_start_method() == "spawn"


@pytest.mark.slow
def test_the_jax_agent_plays_on_two_workers_without_hanging():
    """``numberdrop-evaluate --agents jax_ppo --workers 2`` used to fork the JAX threads and hang."""
    pytest.importorskip("jax")
    command = [sys.executable, "-m", "agents.cli.evaluate", "--agents", "jax_ppo", "--games", "2", "--workers", "2"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "2 games, seeds 0..1" in done.stdout
