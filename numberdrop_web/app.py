"""The web app: a Starlette application serving the page and the JSON API (``docs/web.md``); a refused
request gets a 4xx and ``{"error": message}`` and changes nothing."""

from __future__ import annotations

import asyncio
import math
import secrets
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agents.cli.replay import Record, final_game
from numberdrop_env.engine.rules import DEFAULT_RULES

from .analysis import Job
from .compiling import wait_for_compile
from .guard import (
    BODY_LIMIT,
    BODY_SECONDS,
    BodyLimit,
    HostGuard,
    allowed_hosts,
    error,
    query_number,
    read_json,
)
from .jobs import Jobs
from .policies import check_offered, line_of, offered_agents
from .sessions import MAX_ACTIONS, GameError, GameSession, GameStore
from .views import game_state, geometry
from .words import star_slide_words

STATIC = Path(__file__).resolve().parent / "static"
MAX_SEED = 2**63 - 1
DEFAULT_AGENT = "greedy"


class SecurityHeaders:
    """Answers carry a content policy (the page runs its own script and nothing else) and the
    server's own time on the request (``Server-Timing``, read by the latency benchmark)."""

    HEADERS = [
        (b"content-security-policy", b"default-src 'self'; img-src 'self' data: blob:; object-src 'none'"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
    ]

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = time.perf_counter()

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                spent = f"app;dur={1000 * (time.perf_counter() - start):.2f}".encode()
                message["headers"] = [*message.get("headers", []), *self.HEADERS, (b"server-timing", spent)]
            await send(message)

        await self.app(scope, receive, with_headers if scope["type"] == "http" else send)


KINDS = {bool: "true or false", int: "an integer", float: "a finite number"}


def checked(value: Any, name: str, kind: type = int, low: float = 0, high: float = MAX_SEED) -> Any:
    """``value`` when it is of ``kind`` (an integer serves as a float) and a number in ``low..high``; else a 400."""
    fits = isinstance(value, bool) if kind is bool else isinstance(value, (int, kind)) and not isinstance(value, bool)
    if not fits or (kind is float and not math.isfinite(value)):
        raise GameError(f"{name} must be {KINDS[kind]}, got {value!r:.20}", 400)
    if kind is not bool and not low <= value <= high:
        raise GameError(f"{name} must be in {low}..{high}, got {value}", 400)
    return kind(value)


def action_list(value: Any, name: str) -> list[int]:
    if not isinstance(value, list):
        raise GameError(f"{name} must be a list of integers, got {type(value).__name__}", 400)
    if len(value) > MAX_ACTIONS:
        raise GameError(f"{name}: at most {MAX_ACTIONS} actions, got {len(value)}", 400)
    return value  # each action is checked as it is played


def expect(body: dict[str, Any], session: GameSession) -> None:
    """Refuse (409) a request made for another position than the game's."""
    if "expect" in body and checked(body["expect"], "expect") != session.index:
        raise GameError(f"the game is at decision {session.index}, not {body['expect']}: reload its state", 409)


def session_json(session: GameSession, index: int | None = None) -> dict[str, Any]:
    """A game's state (after ``index`` actions; by default all) and where it stands."""
    game = session.game if index is None or index == session.index else session.at(index)
    at = session.index if index is None else index
    return {
        "id": session.id,
        "seed": session.seed,
        "agent": session.agent,
        "player": session.record.player,
        "index": session.index if index is None else index,
        "length": session.index,
        "actions": list(session.actions),
        "turn_starts": session.turn_starts(),
        "last_points": session.last_points if index is None else 0,
        **game_state(game),
        "notice": star_slide_words(game, session.star_slides(at, game)),
    }


AHEAD_OPTIONS = 32
"""A decision with at most this many options comes with the state each leads to, so the page draws
a click's outcome at once (only the star's drops, about a hundred, wait for the answer)."""


def ahead_json(session: GameSession, auto: bool) -> dict[str, dict[str, Any]]:
    """The state each legal action of the pending decision leads to, by action (empty when
    there are more than ``AHEAD_OPTIONS``); the game is left as it was."""
    game = session.game
    legal = [] if game.is_over else np.flatnonzero(game.legal_mask()).tolist()
    if len(legal) > AHEAD_OPTIONS:
        return {}
    out = {}
    for action in legal:
        with session.trying(action, auto) as points:
            out[str(action)] = {**session_json(session), "points": points}
    return out


class Api:
    """The routes' handlers: decisions (a millisecond or less) run in the server's loop, hints and
    analyses (seconds) in the jobs' threads."""

    def __init__(self, store: GameStore, jobs: Jobs, default_agent: str) -> None:
        self.store, self.jobs, self.default_agent = store, jobs, default_agent

    async def meta(self, request: Request) -> Response:
        agents = {"agents": offered_agents(), "default_agent": self.default_agent}
        limits = {"body_limit": BODY_LIMIT, "idle_seconds": self.store.idle_seconds}
        return JSONResponse({**geometry(DEFAULT_RULES), **agents, **limits})

    async def create(self, request: Request) -> Response:
        body = await read_json(request, {"seed", "agent", "actions", "record", "auto", "player"})
        agent = check_offered(body.get("agent", self.default_agent))
        auto = checked(body.get("auto", False), "auto", bool)
        player = body.get("player", "human")
        if not isinstance(player, str) or len(player) > 64:
            raise GameError("player must be a string of at most 64 characters", 400)
        if "record" in body:
            if "seed" in body or "actions" in body:
                raise GameError("send either a record or a seed and actions, not both", 400)
            session = self._from_record(body["record"], agent)
        else:
            seed = body.get("seed")
            seed = secrets.randbelow(1_000_000) if seed is None else checked(seed, "seed")
            actions = action_list(body.get("actions", []), "actions")
            session = GameSession(seed=seed, agent=agent, player=player)
            if actions or auto:
                session.play(actions, auto)
        self.store.add(session)
        return JSONResponse(session_json(session), status_code=201)

    @staticmethod
    def _from_record(data: Any, agent: str) -> GameSession:
        try:
            record = Record.from_dict(data)
            if len(record.actions) > MAX_ACTIONS:
                raise ValueError(f"a record of at most {MAX_ACTIONS} actions, got {len(record.actions)}")
            final_game(record)  # checks every action and the recorded score
            session = GameSession(seed=record.seed, state=record.state, agent=agent, player=record.player or "record")
        except (ValueError, TypeError, KeyError) as err:
            raise GameError(f"record: {err}", 400) from err
        session.play(list(record.actions))
        return session

    async def show(self, request: Request) -> Response:
        session = self.store.get(request.path_params["game"])
        with session.lock:
            return JSONResponse(session_json(session))

    async def state_at(self, request: Request) -> Response:
        session = self.store.get(request.path_params["game"])
        at = query_number(request, "at")
        with session.lock:
            return JSONResponse(session_json(session, checked(at, "at", int, 0, session.index)))

    async def act(self, request: Request) -> Response:
        session = self.store.get(request.path_params["game"])
        body = await read_json(request, {"action", "actions", "expect", "auto", "ahead"})
        if ("action" in body) == ("actions" in body):
            raise GameError("send one of action (an integer) and actions (a list of integers)", 400)
        actions = [body["action"]] if "action" in body else action_list(body["actions"], "actions")
        auto = checked(body.get("auto", False), "auto", bool)
        ahead = checked(body.get("ahead", False), "ahead", bool)
        with session.lock:
            expect(body, session)
            points = session.play(actions, auto)
            out = {**session_json(session), "points": points}
            if ahead:
                out["ahead"] = ahead_json(session, auto)
            return JSONResponse(out)

    async def undo(self, request: Request) -> Response:
        session = self.store.get(request.path_params["game"])
        body = await read_json(request, {"count", "expect"})
        with session.lock:
            expect(body, session)
            session.undo(checked(body.get("count", 1), "count", int, 1))
            return JSONResponse(session_json(session))

    async def record(self, request: Request) -> Response:
        session = self.store.get(request.path_params["game"])
        with session.lock:
            data = session.to_record().to_dict()
        name = f"numberdrop-seed{session.seed}.json" if session.seed is not None else "numberdrop-game.json"
        return JSONResponse(data, headers={"content-disposition": f'attachment; filename="{name}"'})

    async def start_job(self, request: Request, kind: str) -> Response:
        session = self.store.get(request.path_params["game"])
        fields = {"agent", "wait", "top", "lookahead"} if kind == "analysis" else {"agent", "wait"}
        body = await read_json(request, fields)
        agent = check_offered(body.get("agent", session.agent))
        wait = checked(body.get("wait", 2.0), "wait", float, 0, 30)
        top = checked(body.get("top", 8), "top", int, 1, 32)
        lookahead = checked(body.get("lookahead", True), "lookahead", bool)
        with session.lock:
            if session.game.is_over:
                raise GameError("the game is over: there is no turn to hint", 422)
            game, index = session.game.clone(), session.index
        line = line_of(session, agent)

        def work(job: Job) -> dict[str, Any]:
            wait_for_compile(job, agent)
            result = line.hint(game, job) if kind == "hint" else line.analyse(game, job, top, lookahead)
            return {**result, "index": index, "game": session.id}

        job = self.jobs.submit(kind, work, game=session.id, agent=agent)
        return JSONResponse(await self._wait(job, wait), status_code=200)

    @staticmethod
    async def _wait(job: Job, wait: float) -> dict[str, Any]:
        if wait > 0:
            waited = asyncio.wrap_future(job.future)
            waited.add_done_callback(_outcome_read)
            await asyncio.wait([waited], timeout=wait)
        return job.to_json()

    async def job(self, request: Request) -> Response:
        """A job as it stands, once done or after ``?wait`` seconds; DELETE cancels it."""
        job = self.jobs.get(request.path_params["job"])
        if request.method == "DELETE":
            if not job.future.done():
                job.cancelled.set()
            return JSONResponse(job.to_json())
        wait = checked(query_number(request, "wait", "0"), "wait", float, 0, 30)
        return JSONResponse(await self._wait(job, wait))


def _outcome_read(waited: asyncio.Future) -> None:
    """Mark a waited-on copy of a job's future as read: the job's outcome is answered from the job
    itself, and asyncio would otherwise log a cancelled job's exception as never retrieved."""
    if not waited.cancelled():
        waited.exception()


async def _refused(request: Request, exc: Exception) -> Response:
    """Every error as ``{"error": message}``; a client that left before its body arrived reads
    nothing and nothing is logged, and anything unforeseen is a 500."""
    if isinstance(exc, GameError):
        return error(exc.status, str(exc))
    if isinstance(exc, HTTPException):
        return error(exc.status_code, str(exc.detail), dict(exc.headers or {}))  # a 405 keeps its Allow
    if isinstance(exc, ClientDisconnect):
        return error(400, "the client closed the connection before its request body arrived")
    return error(500, f"internal error: {type(exc).__name__}: {exc}")


def _page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})


def _favicon(request: Request) -> Response:
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


def create_app(
    idle_seconds: float = 3600.0,
    max_games: int = 1000,
    workers: int = 4,
    default_agent: str = DEFAULT_AGENT,
    hosts: Iterable[str] = allowed_hosts(),
    body_seconds: float = BODY_SECONDS,
) -> Starlette:
    """The application; ``app.state.store`` and ``app.state.jobs`` hold its games and jobs.
    It answers requests addressed to one of ``hosts`` (this machine's names by default)."""
    check_offered(default_agent)  # a GameError is a ValueError
    store = GameStore(idle_seconds, max_games)
    jobs = Jobs(workers)
    api = Api(store, jobs, default_agent)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        jobs.shutdown()

    routes = [
        Route("/", _page),
        Route("/index.html", _page),
        Route("/favicon.ico", _favicon),
        Route("/api/meta", api.meta),
        Route("/api/games", api.create, methods=["POST"]),
        Route("/api/games/{game}", api.show),
        Route("/api/games/{game}/state", api.state_at),
        Route("/api/games/{game}/actions", api.act, methods=["POST"]),
        Route("/api/games/{game}/undo", api.undo, methods=["POST"]),
        Route("/api/games/{game}/record", api.record),
        Route("/api/games/{game}/hint", partial(api.start_job, kind="hint"), methods=["POST"]),
        Route("/api/games/{game}/analysis", partial(api.start_job, kind="analysis"), methods=["POST"]),
        Route("/api/jobs/{job}", api.job, methods=["GET", "DELETE"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={kind: _refused for kind in (GameError, HTTPException, ClientDisconnect, Exception)},
        lifespan=lifespan,
    )
    app.add_middleware(BodyLimit, seconds=body_seconds)
    app.add_middleware(HostGuard, hosts=hosts)
    app.add_middleware(SecurityHeaders)
    app.state.store, app.state.jobs = store, jobs
    return app
