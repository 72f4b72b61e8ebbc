"""Hints and analyses: games served in turn, one job per game, cheap agents never queued behind
look-aheads; and agents built once and shared by the games, with the hints of an agent built
for each game alone."""

from __future__ import annotations

import threading

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web app needs the `web` extra")

from numberdrop_web.analysis import AgentLine, Job
from numberdrop_web.jobs import Jobs, Lane, Task
from numberdrop_web.policies import built, built_count, line_of
from numberdrop_web.sessions import GameSession

WAIT = 30  # seconds: a bound on a hang, not a timing


class Recorder:
    """Work that notes its name when it runs, held until ``release`` where asked."""

    def __init__(self) -> None:
        self.ran: list[str] = []
        self.held: dict[str, threading.Event] = {}
        self.started: dict[str, threading.Event] = {}

    def work(self, name: str, hold: bool = False):
        self.held[name], self.started[name] = threading.Event(), threading.Event()
        if not hold:
            self.held[name].set()

        def run(job: Job) -> str:
            self.started[name].set()
            assert self.held[name].wait(WAIT)
            self.ran.append(name)
            return name

        return run


def submit(lane: Lane, rec: Recorder, game: str, name: str, hold: bool = False) -> Job:
    from concurrent.futures import Future

    job = Job("hint")
    job.future = Future()
    lane.submit(Task(job, game, rec.work(name, hold)))
    return job


def test_the_games_are_served_in_turn_and_a_newer_request_replaces_the_waiting_one() -> None:
    lane, rec = Lane("test", 1), Recorder()
    try:
        submit(lane, rec, "X", "x", hold=True)
        assert rec.started["x"].wait(WAIT)  # the one worker is busy: the rest wait in line
        a1 = submit(lane, rec, "A", "a1")
        b1 = submit(lane, rec, "B", "b1")
        a2 = submit(lane, rec, "A", "a2")  # replaces a1 and keeps A's place, ahead of B
        c1 = submit(lane, rec, "C", "c1")
        rec.held["x"].set()
        for job in (a2, b1, c1):
            job.future.result(WAIT)
    finally:
        lane.close()
    assert rec.ran == ["x", "a2", "b1", "c1"]
    assert lane.served == ["X", "A", "B", "C"]
    assert a1.future.cancelled() and a1.to_json()["status"] == "cancelled"


def test_a_game_has_one_job_running_and_its_next_waits_while_other_games_go_first() -> None:
    lane, rec = Lane("test", 2), Recorder()
    try:
        a1 = submit(lane, rec, "A", "a1", hold=True)
        assert rec.started["a1"].wait(WAIT)
        a2 = submit(lane, rec, "A", "a2")  # asks a1 to stop; waits for it: one job of A at a time
        assert a1.cancelled.is_set()
        b1 = submit(lane, rec, "B", "b1")  # submitted after a2, served before it (A is busy)
        b1.future.result(WAIT)
        assert rec.ran == ["b1"] and not rec.started["a2"].is_set()
        rec.held["a1"].set()
        a2.future.result(WAIT)
    finally:
        lane.close()
    assert rec.ran == ["b1", "a1", "a2"]
    assert lane.served == ["A", "B", "A"]


def test_a_cheap_agent_is_answered_while_the_look_aheads_are_all_busy() -> None:
    jobs, rec = Jobs(workers=1), Recorder()
    try:
        jobs.submit("analysis", rec.work("best", hold=True), game="A", agent="best")
        assert rec.started["best"].wait(WAIT)
        queued = [jobs.submit("analysis", rec.work(f"best{i}"), game=f"G{i}", agent="best") for i in range(20)]
        greedy = jobs.submit("hint", rec.work("greedy"), game="B", agent="greedy")
        assert greedy.future.result(WAIT) == "greedy"
        assert rec.ran == ["greedy"] and not any(job.future.done() for job in queued)
    finally:
        rec.held["best"].set()
        jobs.shutdown()


def test_a_waiting_job_cancelled_by_delete_never_runs() -> None:
    lane, rec = Lane("test", 1), Recorder()
    try:
        submit(lane, rec, "X", "x", hold=True)
        assert rec.started["x"].wait(WAIT)
        b = submit(lane, rec, "B", "b")
        b.cancelled.set()
        c = submit(lane, rec, "C", "c")
        rec.held["x"].set()
        c.future.result(WAIT)
    finally:
        lane.close()
    assert rec.ran == ["x", "c"] and b.future.cancelled()


# ---------------------------------------------------------------------------- shared agents
def _hinted_turns(lines: dict[int, AgentLine], sessions: dict[int, GameSession], turns: int) -> dict[int, list]:
    """Each game's hints for ``turns`` turns, the games' turns interleaved, each hint played;
    between two rounds, a hint off the line (a position the agent did not reach)."""
    out: dict[int, list] = {seed: [] for seed in sessions}
    for _ in range(turns):
        for seed, session in sessions.items():
            if session.game.is_over:
                continue
            hint = lines[seed].hint(session.game.clone())
            out[seed].append(hint["actions"])
            session.play(hint["actions"])
        off = GameSession(seed=99, agent=lines[0].name)
        off.play([int(np.flatnonzero(off.game.legal_mask())[-1])])
        out.setdefault(-1, []).append(lines[0].hint(off.game.clone())["actions"])
    return out


@pytest.mark.parametrize(("agent", "turns"), [("random", 4), ("search", 4), ("ntuple_expectimax", 4), ("best", 2)])
def test_a_shared_agent_gives_the_hints_of_an_agent_built_for_the_game_alone(agent: str, turns: int) -> None:
    seeds = (0, 1, 2)
    shared = {s: GameSession(seed=s, agent=agent) for s in seeds}
    alone = {s: GameSession(seed=s, agent=agent) for s in seeds}
    got = _hinted_turns({s: line_of(shared[s], agent) for s in seeds}, shared, turns)
    want = _hinted_turns({s: AgentLine(agent, alone[s]) for s in seeds}, alone, turns)
    assert got == want
    assert all(hints for hints in got.values())


def test_the_games_share_one_instance_of_each_agent_per_thread() -> None:
    sessions = [GameSession(seed=s, agent="greedy") for s in range(5)]
    first = built("greedy")
    before = built_count()
    for session in sessions:
        line_of(session, "greedy").hint(session.game.clone())
    assert built("greedy") is first and built_count() == before
    assert all(not hasattr(line_of(s, "greedy"), "_free") or line_of(s, "greedy")._free is None for s in sessions)
