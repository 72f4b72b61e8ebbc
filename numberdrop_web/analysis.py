"""What an agent would play and why: an ``AgentLine`` asks its policy only about its own line's
positions, in order, so a game played by hints is ``numberdrop-evaluate``'s game for that seed;
a position off the line gets a second policy reset from the position."""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any

import numpy as np

from agents.numberdrop.network import best_candidates, offer_turns
from agents.registry import make_policy
from numberdrop_env.engine.actions import Phase
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.turns import TURN_PHASES, TurnPlanner
from numberdrop_env.render.text import decision_words

from .choices import Seen, Watch, expectimax_rows, look_ahead_of, look_ahead_rows
from .sessions import GameError, GameSession
from .ties import tie_note
from .views import drawing
from .words import turn_lines

MAX_TURN_DECISIONS = 400
"""An agent that has not finished a turn after this many decisions is stuck."""


class Cancelled(Exception):
    """The job was cancelled between two steps."""


def state_key(game: SoloGame) -> str:
    """A position's identity (its whole state, the dice generator's included)."""
    return hashlib.sha1(json.dumps(game.to_dict(), sort_keys=True).encode()).hexdigest()


def turn_end(game: SoloGame) -> str:
    """What a turn leaves, hashed: the grid, the used cells and the notches."""
    s = game.sheet
    return hashlib.sha1(b"|".join((s.values.tobytes(), s.used.tobytes(), game.notches.tobytes()))).hexdigest()


class Job:
    """Work running beside the requests: its progress, and a flag that asks it to stop."""

    def __init__(self, kind: str) -> None:
        self.id = uuid.uuid4().hex[:16]
        self.kind = kind
        self.stage = "queued"
        self.progress: float | None = None
        self.started = time.monotonic()
        self.cancelled = threading.Event()
        self.future: Future = Future()

    def report(self, stage: str, progress: float | None = None) -> None:
        if self.cancelled.is_set():
            raise Cancelled
        self.stage, self.progress = stage, progress

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"job": self.id, "kind": self.kind, "stage": self.stage, "progress": self.progress}
        out["seconds"] = round(time.monotonic() - self.started, 3)
        if self.cancelled.is_set():
            out["status"] = "cancelled"
        elif not self.future.done():
            out["status"] = "running"
        elif self.future.exception() is not None:
            err = self.future.exception()
            out["status"] = "error"
            out["error"] = f"{type(err).__name__}: {err}" if not isinstance(err, GameError) else str(err)
        else:
            out["status"] = "done"
            out["result"] = self.future.result()
        return out


class AgentLine:
    """An agent's policies for one game and the hints they gave, by position."""

    def __init__(self, name: str, session: GameSession) -> None:
        self.name = name
        self.seed = session.seed if session.seed is not None else 0
        self.lock = threading.Lock()
        self.expected = state_key(session.at(0))
        self._policy: Any = None
        self._free: Any = None
        self.hints: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.seen: dict[str, Seen] = {}
        """What the agent's ranking computed for each hinted position's choice."""

    def policy(self, on_line: bool, key: str) -> Any:
        """The line's policy (built and reset with the game's seed once), or the off-line one
        reset from the position."""
        if on_line:
            if self._policy is None:
                self._policy = make_policy(self.name)
                self._policy.reset(self.seed)
            return self._policy
        if self._free is None:
            self._free = make_policy(self.name)
        self._free.reset(int(key[:12], 16))
        return self._free

    def built(self, on_line: bool) -> bool:
        """Whether ``policy`` has its agent already (building one can take seconds: torch, a model)."""
        return (self._policy if on_line else self._free) is not None

    @contextmanager
    def asking(self) -> Iterator[None]:
        """Held while the line's policy is asked (a shared agent is lent the line's state meanwhile)."""
        with self.lock:
            yield

    def hint(self, game: SoloGame, job: Job | None = None) -> dict[str, Any]:
        """The agent's turn from ``game`` (a copy is played; ``game`` is not touched)."""
        key = state_key(game)
        with self.asking():
            if key in self.hints:
                self.hints.move_to_end(key)
                return self.hints[key]
            on_line = key == self.expected
            if job is not None and not self.built(on_line):
                job.stage = f"loading {self.name} (its first use here: its model or tables are read)"
            policy = self.policy(on_line, key)
            if job is not None:
                job.stage = f"{self.name} chooses its turn"
            stop = job.cancelled.is_set if job is not None and not on_line else None
            hint = self._play_turn(policy, game, stop)
            hint["on_line"] = on_line
            self.seen[key], after = hint.pop("_seen"), hint.pop("_after")
            if on_line:
                self.expected = after
            self.hints[key] = hint
            while len(self.hints) > 512:
                self.seen.pop(self.hints.popitem(last=False)[0], None)
            return hint

    def _play_turn(self, policy: Any, game: SoloGame, stop: Callable[[], bool] | None = None) -> dict[str, Any]:
        """The agent plays the rest of the turn on a copy, then the next one's single-choice decisions
        (as in a whole game); a yes from ``stop`` before a decision raises ``Cancelled``."""
        start = time.perf_counter()
        clone, actions, words = game.clone(), [], []
        turn, end, turn_actions = clone.turn, None, None
        with Watch(policy) as watch:
            while not clone.is_over:
                if stop is not None and stop():
                    raise Cancelled
                mask = clone.legal_mask()
                if clone.turn != turn:
                    end = end or turn_end(clone)
                    turn_actions = turn_actions if turn_actions is not None else list(actions)
                    if np.count_nonzero(mask) != 1:
                        break
                watch.active = clone.turn == turn
                action = int(policy.act(clone, mask))
                if not 0 <= action < len(mask) or not mask[action]:
                    raise RuntimeError(f"agent {self.name!r} chose action {action}, which is not legal")
                words.append(decision_words(clone, action))
                clone.step(action)
                actions.append(action)
                if len(actions) > MAX_TURN_DECISIONS:
                    raise RuntimeError(f"agent {self.name!r} did not finish its turn in {MAX_TURN_DECISIONS} decisions")
        exact, sentence = turn_lines(game, actions if turn_actions is None else turn_actions)
        return {
            "agent": self.name,
            "actions": actions,
            "words": words,
            "summary": sentence,
            "exact": exact,
            "points": clone.score() - game.score(),
            "score_after": clone.score(),
            "breakdown_after": clone.sheet.score_breakdown(),
            "ends_game": clone.is_over,
            "drawing": drawing(game, clone),
            "turn_end": end or turn_end(clone),
            "seconds": round(time.perf_counter() - start, 4),
            "_after": state_key(clone),
            "_seen": watch.seen,
        }

    def analyse(self, game: SoloGame, job: Job, top: int = 8, lookahead: bool = True) -> dict[str, Any]:
        """The hint and the turn's ``top`` candidates, each with the numbers the agent ranks
        by; the agent's own choice is always a row, with the numbers it chose by."""
        hint = self.hint(game, job)
        job.report("listing the candidates", 0.0)
        if game.phase not in TURN_PHASES:
            return {"hint": hint, "candidates": [], "columns": [], "headings": {}, "note": _MID_TURN}
        with self.asking():
            policy = self.policy(True, "")  # the line's own, whether the hint was on the line or not
            seen = self.seen.get(state_key(game))
            table = explained(self.name, policy, game, seen, top, job) if lookahead else None
            if table is None:
                table = valued(self.name, policy, game, top)
        rows, columns, why = table
        chosen = [row for row in rows if row["turn_end"] == hint["turn_end"]]
        for row in chosen[:1]:
            row["chosen"] = True
        if not chosen:
            rows.append(_hint_row(game, hint, len(rows)))
        job.report("done", 1.0)
        heads = headings(columns)
        tie = tie_note(self.name, rows, columns, heads)
        return {"hint": hint, "candidates": rows, "columns": columns, "headings": heads, "why": why, "tie": tie}


_MID_TURN = "the candidates are listed at a turn's first decision; this turn has begun"

HEADINGS: dict[str, tuple[str, str]] = {
    "points": ("points now", "the points the turn scores at once (a combination, a line, a penalty)"),
    "value": ("points + sheet", "points now plus the planner's hand-written value of the sheet the turn leaves"),
    "agent_value": ("agent's value", "the agent's own value of the turn (see below)"),
    "lookahead": ("look-ahead mean", "points now plus the agent's value of the next turn, averaged over sampled rolls"),
    "spread": ("\u00b1 spread", "how much the look-ahead's value varies from roll to roll (standard deviation)"),
    "rolls": ("rolls", "how many sampled next rolls the look-ahead averaged"),
}


def headings(columns: list[str]) -> dict[str, dict[str, str]]:
    return {key: dict(zip(("head", "explain"), HEADINGS[key])) for key in columns}


Table = tuple[list[dict[str, Any]], list[str], str]
"""An analysis's rows, its columns, and a sentence saying how the agent chose."""


def explained(name: str, policy: Any, game: SoloGame, seen: Any, top: int, job: Job) -> Table | None:
    """A look-ahead's rows: the plans it weighed with the numbers it compared (``choices``)."""
    if seen is None:
        return None
    job.report("the look-ahead's numbers", 0.5)
    if seen["lookahead"]:  # the agent of the line is the hint's: it has the same look-ahead
        start, weighed = look_ahead_rows(look_ahead_of(policy), seen, top)
        columns = ["points", "lookahead", "spread", "rolls"]
        why = (
            f"{name} looked one turn ahead: each plan's points now plus its value of the next turn, "
            f"averaged over sampled rolls; it plays the plan of the highest mean"
        )
        if any(r.get("dropped") for _, r in weighed):
            why += f" among those valued again on more rolls ({max(r['rolls'] for _, r in weighed)} in all)"
    elif seen["turn_rolls"]:
        start, weighed = expectimax_rows(policy, seen, top)
        columns = ["points", "agent_value", "lookahead", "spread", "rolls"]
        why = (
            f"{name} searched its {policy.top} best turns by points + n-tuple value one roll further: "
            "points now plus the next turn's expected best; it plays the highest"
        )
    else:
        return None
    if state_key(start) != state_key(game):
        return None
    rows = [_candidate_row(game, plan, i) | numbers for i, (plan, numbers) in enumerate(weighed)]
    return rows, columns, why


def valued(name: str, policy: Any, game: SoloGame, top: int) -> Table:
    """A one-ply agent's rows: its candidates by the value it maximises."""
    offered, values = _offered(policy, game, top)
    rows = [_candidate_row(game, c, rank) for rank, c in enumerate(offered)]
    if values is None:
        why = f"{name} plays the turn of the most points + sheet value"
        if game.phase is Phase.START:
            why = f"{name} writes its 1 by a fixed rule, without numbers; the planner's values are shown"
        if name == "random":
            why = "random picks each decision at random, without numbers; the planner's values are shown"
        return rows, ["points", "value"], why
    for row, v in zip(rows, values):
        row["agent_value"] = round(float(v), 3)
    return rows, ["points", "agent_value"], f"{name} plays the turn of the highest {_agent_head(name)}"


def _agent_head(name: str) -> str:
    """What a one-ply agent maximises, as its sentence names it."""
    if name.startswith("ntuple"):
        return "points + n-tuple value"
    return "network's value" if name in ("q", "best") else HEADINGS["agent_value"][0]


def _offered(policy: Any, game: SoloGame, top: int) -> tuple[list[Any], np.ndarray | None]:
    """The candidates to show: a turn-level network's best by its own values, an afterstate
    value's best by points plus value, else the planner's."""
    if callable(getattr(policy, "ranked", None)) and game.phase is not Phase.START:
        offered, values = policy.ranked(game, top)
        return list(offered), values
    if getattr(policy, "turn_level", False) and hasattr(policy, "setup") and game.phase is not Phase.START:
        (offered,), batch, masks = offer_turns(policy.setup, [game])
        slots, values = best_candidates(policy.model, batch, masks, top)
        return [offered[int(j)] for j in slots], values
    planners = [getattr(owner, "planner", None) for owner in (policy, getattr(policy, "greedy", None))]
    planner = next((p for p in planners if isinstance(p, TurnPlanner)), _PLANNER)
    return list(planner.candidates(game, limit=top)), None


_PLANNER = TurnPlanner()


def _candidate_row(game: SoloGame, candidate: Any, rank: int) -> dict[str, Any]:
    clone = game.clone()
    for a in candidate.actions:
        clone.step(a)
    exact, sentence = turn_lines(game, candidate.actions)
    return {
        "rank": rank + 1,
        "actions": list(candidate.actions),
        "summary": exact,
        "sentence": sentence,
        "points": int(candidate.points),
        "value": round(float(candidate.value), 3),
        "breakdown_after": clone.sheet.score_breakdown(),
        "ends_game": bool(candidate.ends_game),
        "drawing": drawing(game, clone),
        "turn_end": turn_end(clone),
        "chosen": False,
    }


def _hint_row(game: SoloGame, hint: dict[str, Any], rank: int) -> dict[str, Any]:
    """The agent's own turn when the list does not hold it (an agent that chooses without numbers)."""
    keep = ("actions", "points", "breakdown_after", "ends_game", "drawing", "turn_end")
    return {"rank": rank + 1, **{k: hint[k] for k in keep}, "summary": hint["exact"], "value": None, "chosen": True}
