"""Hints and analyses beside the requests, fairly: a game has one job waiting (a new request replaces
it in place) and one running, so a flooding tab holds one worker at most; cheap agents have a lane."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .analysis import Job
from .sessions import GameError

QUICK = frozenset({"random", "greedy"})
"""Agents whose hint and analysis take milliseconds: served by the quick lane."""


@dataclass
class Task:
    job: Job
    game: str
    work: Callable[[Job], Any]


class Lane:
    """Worker threads serving the games in line in turn, one job of a game at a time."""

    def __init__(self, name: str, workers: int) -> None:
        self._cond = threading.Condition()
        self._waiting: OrderedDict[str, Task] = OrderedDict()
        self._running: dict[str, Task] = {}
        self._closed = self._started = False
        self.served: list[str] = []
        """The games in the order their jobs started (the last few hundred): fairness is tested on it."""
        self.threads = [
            threading.Thread(target=self._serve, name=f"numberdrop-web-{name}-{i}", daemon=True) for i in range(workers)
        ]

    def submit(self, task: Task) -> None:
        with self._cond:
            if self._closed:
                raise GameError("the server is shutting down", 503)
            if not self._started:  # on first use: an app never asked costs no thread
                self._started = True
                for thread in self.threads:
                    thread.start()
            replaced = self._waiting.get(task.game)
            running = self._running.get(task.game)
            self._waiting[task.game] = task  # a replacement keeps the game's place in line
            self._cond.notify()
        if replaced is not None:
            _drop(replaced.job)
        if running is not None:
            running.job.cancelled.set()

    def _next(self) -> Task | None:
        """The first game in line with nothing running (``None`` once closed)."""
        with self._cond:
            while True:
                if self._closed:
                    return None
                game = next((g for g in self._waiting if g not in self._running), None)
                if game is not None:
                    task = self._waiting.pop(game)
                    self._running[game] = task
                    self.served.append(game)
                    del self.served[:-500]
                    return task
                self._cond.wait()

    def _serve(self) -> None:
        while (task := self._next()) is not None:
            try:
                _run(task)
            finally:
                with self._cond:
                    del self._running[task.game]
                    self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            waiting, running = list(self._waiting.values()), list(self._running.values())
            self._waiting.clear()
            self._cond.notify_all()
        for task in waiting:
            _drop(task.job)
        for task in running:
            task.job.cancelled.set()


def _run(task: Task) -> None:
    future = task.job.future
    if task.job.cancelled.is_set():  # cancelled while it waited
        future.cancel()
    if not future.set_running_or_notify_cancel():
        return
    try:
        future.set_result(task.work(task.job))
    except BaseException as err:  # the job's outcome: read by whoever polls it
        future.set_exception(err)


def _drop(job: Job) -> None:
    """A job that will not run: cancelled before it started."""
    job.cancelled.set()
    job.stage = "replaced by a newer request"
    job.future.cancel()


class Jobs:
    """The recent jobs by id, and the two lanes that run them."""

    def __init__(self, workers: int = 4, quick_workers: int = 1, keep: int = 500) -> None:
        self.slow, self.quick = Lane("slow", workers), Lane("quick", quick_workers)
        self.keep = keep
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()

    def submit(self, kind: str, work: Callable[[Job], Any], game: str = "", agent: str = "") -> Job:
        """A job for ``game`` (replacing the game's earlier one), in the quick lane for a cheap agent."""
        job = Job(kind)
        with self._lock:
            self._jobs[job.id] = job
            while len(self._jobs) > self.keep:
                self._jobs.popitem(last=False)
        (self.quick if agent in QUICK else self.slow).submit(Task(job, game or job.id, work))
        return job

    def get(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise GameError(f"unknown job {job_id!r}", 404)
        return job

    def shutdown(self) -> None:
        self.slow.close()
        self.quick.close()

    def join(self, timeout: float) -> None:
        """Wait for the workers to end (after ``shutdown``: the running jobs stop at their next step)."""
        for thread in [*self.slow.threads, *self.quick.threads]:
            if thread.is_alive():
                thread.join(timeout)
