"""The games the server holds, one per tab: a ``GameSession`` is a game's start and its actions;
``GameStore`` drops idle and least recently used ones (a tab then creates its game again)."""

from __future__ import annotations

import dataclasses
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from agents.cli.replay import Record
from numberdrop_env.engine.solo import SoloGame

MAX_ACTIONS = 2000
"""More decisions than any solo game has (about 200): a longer list is refused unread."""


class GameError(ValueError):
    """A request that does not fit the game (an illegal action, an out-of-range index)."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


class GameSession:
    """One game: its start, its actions and the live game after them."""

    def __init__(
        self,
        seed: int | None = 0,
        state: dict[str, Any] | None = None,
        agent: str = "greedy",
        player: str = "human",
    ) -> None:
        self.record = Record([], seed=seed, state=state, player=player)
        self.agent = agent
        self.id = secrets.token_urlsafe(9)
        self.lock = threading.RLock()
        self.game = self.record.start()
        self._checkpoints: dict[int, SoloGame] = {0: self.game.clone()}
        self.last_points = 0
        self.touched = time.monotonic()
        self.extra: dict[str, Any] = {}
        """What other parts keep per game (the agents' lines of ``analysis``)."""

    @property
    def seed(self) -> int | None:
        return self.record.seed

    @property
    def actions(self) -> list[int]:
        return self.record.actions

    @property
    def index(self) -> int:
        """The number of actions played: the position in the game."""
        return len(self.record.actions)

    def play(self, actions: list[int], auto: bool = False) -> int:
        """Play ``actions``, all or none, then with ``auto`` every single-choice decision; returns the
        points scored."""
        before = self.index
        points = 0
        try:
            for i, action in enumerate(actions):
                points += self._step(action, f"action {i}" if len(actions) > 1 else "action")
            while auto and not self.game.is_over and np.count_nonzero(self.game.legal_mask()) == 1:
                points += self._step(int(np.flatnonzero(self.game.legal_mask())[0]), "forced action")
        except BaseException:
            self._rewind(before, rebuild=True)  # from a clean copy: a crash may have left the game half changed
            raise
        self.last_points = points
        return points

    def _step(self, action: Any, what: str) -> int:
        game = self.game
        if isinstance(action, bool) or not isinstance(action, int):
            raise GameError(f"{what} must be an integer, got {type(action).__name__}", 400)
        if game.is_over:
            raise GameError("the game is over: no decision is left")
        if not 0 <= action < game.layout.size:
            raise GameError(f"{what} {action} is outside the action space 0..{game.layout.size - 1}", 400)
        if not game.legal_mask()[action]:
            raise GameError(f"{what} {action} is not legal now (phase {game.phase.value})")
        turn = game.turn
        points = game.step(action)
        self.record.actions.append(action)
        if game.turn != turn and not game.is_over:
            self._checkpoints[self.index] = game.clone()
        return points

    @contextmanager
    def trying(self, action: int, auto: bool = False) -> Iterator[int]:
        """Play ``action`` (as ``play`` does), give its points, then put the game back exactly as
        it was: the page is sent the positions its next clicks lead to before they are made."""
        game, checkpoints, points, index = self.game.clone(), dict(self._checkpoints), self.last_points, self.index
        try:
            yield self.play([action], auto)
        finally:
            self.game, self._checkpoints, self.last_points = game, checkpoints, points
            del self.record.actions[index:]

    def undo(self, count: int = 1) -> None:
        """Take back ``count`` decisions, and with them the decisions played for the player
        (a single legal choice) before each, so undo lands on a choice the player made."""
        if self.index == 0:
            raise GameError("nothing to undo: no decision has been played")
        target = self.index
        for _ in range(count):
            if target == 0:
                break
            target -= 1
            while target > 0 and np.count_nonzero(self.at(target).legal_mask()) == 1:
                target -= 1
        self._rewind(target)
        self.last_points = 0

    def _rewind(self, index: int, rebuild: bool = False) -> None:
        self.game = self.at(index, rebuild)
        del self.record.actions[index:]
        self._checkpoints = {k: g for k, g in self._checkpoints.items() if k <= index}

    def at(self, index: int, rebuild: bool = False) -> SoloGame:
        """A fresh copy of the game after the first ``index`` actions (for replays and undo),
        with ``rebuild`` replayed from the last turn's start even when it is the live game."""
        if index == self.index and not rebuild:
            return self.game.clone()
        start = max(k for k in self._checkpoints if k <= index)
        game = self._checkpoints[start].clone()
        for action in self.record.actions[start:index]:
            game.step(action)
        return game

    def star_slides(self, index: int, game: SoloGame) -> list[int]:
        """The notches each tile moved in the turn under way at ``index`` (``game`` is the game then)
        that no decision chose: the star's slide of the rolled shape's tile, which the page must say."""
        start = max(k for k in self._checkpoints if k <= index)
        moved = game.notches - self._checkpoints[start].notches
        first = game.layout.slide
        for action in self.record.actions[start:index]:
            if first <= action < first + len(moved):
                moved[action - first] -= 1
        return moved.tolist()

    def turn_starts(self) -> list[int]:
        """The indices at which each turn's first decision is pending (index 0 included)."""
        return sorted(self._checkpoints)

    def to_record(self) -> Record:
        return dataclasses.replace(self.record, actions=list(self.actions), score=self.game.score())


class GameStore:
    """The sessions by id: idle ones dropped after ``idle_seconds``, at most ``max_games``."""

    def __init__(
        self, idle_seconds: float = 3600.0, max_games: int = 1000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.idle_seconds = float(idle_seconds)
        self.max_games = int(max_games)
        self.clock = clock
        self._games: OrderedDict[str, GameSession] = OrderedDict()
        self._lock = threading.Lock()
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._games)

    def add(self, session: GameSession) -> GameSession:
        with self._lock:
            session.touched = self.clock()
            self._games[session.id] = session
            self._expire()
        return session

    def get(self, game_id: str) -> GameSession:
        with self._lock:
            self._expire()
            session = self._games.get(game_id)
            if session is None:
                raise GameError(
                    f"unknown game {game_id!r}: it has ended or was dropped after being idle; start it again", 404
                )
            session.touched = self.clock()
            self._games.move_to_end(game_id)
            return session

    def _expire(self) -> None:
        """Drop the least recently shown games while they are idle or too many."""
        now, games = self.clock(), self._games
        while games and (len(games) > self.max_games or now - next(iter(games.values())).touched > self.idle_seconds):
            games.popitem(last=False)
            self.dropped += 1
