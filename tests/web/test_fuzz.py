"""Generated requests to every route: junk of every shape (deep nesting, huge and odd numbers,
wrong types, unknown ids, odd query strings and headers); none gets a 5xx, and a refused one
leaves the games as they were. About 10,400 requests in all, through Starlette's TestClient."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web app needs the `web` extra")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from numberdrop_env.engine.solo import SoloGame
from numberdrop_web.app import create_app

from .conftest import LOCAL

EXAMPLES = int(os.environ.get("NUMBERDROP_FUZZ_EXAMPLES", 1300))
"""Examples per test, each one request: 10,400 requests in all (``-s`` prints the count)."""
SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=EXAMPLES,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)


class Target:
    """The app, its client and games in three states: fresh, under way, over."""

    def __init__(self) -> None:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*httpx.*")
            from starlette.testclient import TestClient

        self.app = create_app(workers=1, max_games=100_000)  # no game of the three is dropped
        self.client = TestClient(self.app, base_url=LOCAL, raise_server_exceptions=False)
        self.sent = 0
        self.by_test: dict[str, int] = {}
        over = SoloGame(seed=5)
        actions = []
        while not over.is_over:
            actions.append(int(np.flatnonzero(over.legal_mask())[0]))
            over.step(actions[-1])
        self.games = {
            "fresh": self.create({"seed": 1}),
            "under_way": self.create({"seed": 5, "actions": actions[:30]}),
            "over": self.create({"seed": 5, "actions": actions}),
        }
        hint = self.client.post(f"/api/games/{self.games['fresh']}/hint", json={"agent": "random", "wait": 5})
        self.job = hint.json()["job"]

    def create(self, body: dict[str, Any]) -> str:
        r = self.client.post("/api/games", json=body)
        assert r.status_code == 201, r.text
        return r.json()["id"]

    def snapshot(self) -> tuple[int, dict[str, Any]]:
        """How many games there are, and the three games' actions and states."""
        store = self.app.state.store
        games = {gid: store._games[gid] for gid in self.games.values()}
        return len(store), {gid: (list(s.actions), s.game.to_dict()) for gid, s in games.items()}

    def send(self, method: str, path: str, body: bytes | None, headers: dict[str, Any], changes: bool) -> int:
        """Send one request; a 5xx fails, and so does a refused request that changed a game."""
        before = self.snapshot() if changes else None
        r = self.client.request(method, path, content=body, headers=headers)
        self.sent += 1
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").split("::")[-1].split(" ")[0]
        self.by_test[test] = self.by_test.get(test, 0) + 1
        assert r.status_code < 500, (method, path, body[:300] if body else body, r.status_code, r.text[:500])
        assert r.headers["content-type"].startswith(("application/json", "text/", "image/")), r.headers
        if before is not None and r.status_code >= 400:
            assert self.snapshot() == before, (method, path, body, r.status_code)
        return r.status_code


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    t = Target()
    with t.client:
        yield t
    print(f"\n{t.sent} generated requests, none answered with a 5xx: {t.by_test}")


# ---------------------------------------------------------------------------- what is sent
HUGE = st.integers(min_value=-(2**200), max_value=2**200)
NUMBERS = st.one_of(st.integers(-3, 300), HUGE, st.floats(allow_nan=True, allow_infinity=True), st.booleans())
LEAVES = st.one_of(st.none(), NUMBERS, st.text(max_size=12))
JUNK = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


def _raw_number(digits: int, sign: str) -> bytes:
    return (sign + "9" * digits).encode()


RAW = st.one_of(
    st.integers(1, 30_000).map(lambda n: b"[" * n),
    st.integers(1, 12_000).map(lambda n: b'{"a":' * n),
    st.tuples(st.text(st.sampled_from("[{"), min_size=1, max_size=200), st.integers(0, 50)).map(
        lambda t: (t[0] + "0" + "]" * t[1]).encode()
    ),
    st.binary(max_size=300),
    st.text(max_size=100).map(str.encode),
)


def bodies(fields: dict[str, Any]) -> st.SearchStrategy[bytes]:
    """A route's own fields with values of every kind, JSON of every shape, and raw junk."""
    valued = st.fixed_dictionaries({}, optional={name: st.one_of(values, JUNK) for name, values in fields.items()})
    big = st.tuples(st.sampled_from(sorted(fields) or ["x"]), st.integers(1, 6_000), st.sampled_from(["", "-"]))
    return st.one_of(
        valued.map(lambda d: json.dumps(d).encode()),
        JUNK.map(lambda d: json.dumps(d).encode()),
        big.map(lambda t: b'{"' + t[0].encode() + b'": ' + _raw_number(t[1], t[2]) + b"}"),
        RAW,
    )


GAME_IDS = st.one_of(st.sampled_from(["fresh", "under_way", "over"]), st.text(max_size=30))
QUERY = st.one_of(
    st.text(max_size=12),
    st.integers().map(str),
    st.integers(1, 6_000).map(lambda n: "9" * n),
    st.sampled_from(["²", "٣", "-0", "1e3", "nan", "inf", "0x10", "1_0", " 1", "0.5", ""]),
)
CONTENT_TYPES = st.sampled_from(["application/json", "application/json; charset=utf-8", "text/plain", "", "x/y"])
AGENTS = st.sampled_from(["random", "greedy", "nobody", "rllib", "", "GREEDY"])
ACTION = st.one_of(st.integers(-5, 300), HUGE)


def game_path(target: Target, game: str, tail: str = "") -> str:
    from urllib.parse import quote

    gid = target.games.get(game, game)
    return f"/api/games/{quote(gid, safe='')}{tail}"


def headers(content_type: str) -> dict[str, str]:
    return {"content-type": content_type} if content_type else {}


# ---------------------------------------------------------------------------- the routes
@SETTINGS
@given(body=bodies({"seed": NUMBERS, "agent": AGENTS, "actions": st.lists(ACTION), "record": JUNK,
                    "auto": NUMBERS, "player": JUNK}), kind=CONTENT_TYPES)  # fmt: skip
def test_new_games(target: Target, body: bytes, kind: str) -> None:
    target.send("POST", "/api/games", body, headers(kind), changes=True)


@SETTINGS
@given(game=GAME_IDS, body=bodies({"action": ACTION, "actions": st.lists(ACTION, max_size=5), "expect": NUMBERS,
                                   "auto": st.booleans(), "ahead": st.booleans()}), kind=CONTENT_TYPES)  # fmt: skip
def test_actions(target: Target, game: str, body: bytes, kind: str) -> None:
    target.send("POST", game_path(target, game, "/actions"), body, headers(kind), changes=True)


@SETTINGS
@given(game=GAME_IDS, body=bodies({"count": NUMBERS, "expect": NUMBERS}), kind=CONTENT_TYPES)
def test_undo(target: Target, game: str, body: bytes, kind: str) -> None:
    target.send("POST", game_path(target, game, "/undo"), body, headers(kind), changes=True)


@SETTINGS
@given(
    game=GAME_IDS,
    route=st.sampled_from(["/hint", "/analysis"]),
    body=bodies({"agent": AGENTS, "wait": st.sampled_from([0, 0.0, 1e-9]), "top": NUMBERS, "lookahead": NUMBERS}),
)
def test_hints_and_analyses(target: Target, game: str, route: str, body: bytes) -> None:
    target.send("POST", game_path(target, game, route), body, {"content-type": "application/json"}, changes=True)


@SETTINGS
@given(game=GAME_IDS, at=QUERY, tail=st.sampled_from(["", "/record", "/state"]))
def test_states_and_records(target: Target, game: str, at: str, tail: str) -> None:
    from urllib.parse import quote

    query = f"?at={quote(at)}" if tail == "/state" else ""
    target.send("GET", game_path(target, game, tail) + query, None, {}, changes=True)


@SETTINGS
@given(job=st.one_of(st.just("known"), st.text(max_size=30)), wait=QUERY, method=st.sampled_from(["GET", "DELETE"]))
def test_jobs(target: Target, job: str, wait: str, method: str) -> None:
    from urllib.parse import quote

    jid = target.job if job == "known" else quote(job, safe="")
    target.send(method, f"/api/jobs/{jid}?wait={quote(wait)}", None, {}, changes=True)


PATHS = st.sampled_from(
    ["/", "/index.html", "/favicon.ico", "/api/meta", "/api/games", "/static/app.js", "/static/../app.py",
     "/api/games/x/hint", "/api/jobs/", "/nowhere", "/api", "/static/"]
)  # fmt: skip


@SETTINGS
@given(
    path=st.one_of(PATHS, st.text(max_size=40).map(lambda t: "/" + t)),
    method=st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]),
    body=st.one_of(st.none(), RAW),
    query=st.text(max_size=20),
)
def test_any_method_on_any_path(target: Target, path: str, method: str, body: bytes | None, query: str) -> None:
    from urllib.parse import quote

    target.send(method, quote(path, safe="/") + "?" + quote(query, safe="=&"), body, {}, changes=True)


@SETTINGS
@given(
    host=st.one_of(st.sampled_from(["127.0.0.1:8765", "localhost", "[::1]:1", "evil.example"]), st.text(max_size=30)),
    origin=st.one_of(st.none(), st.sampled_from(["http://127.0.0.1", "null", "http://evil.example"]), st.text()),
    length=st.one_of(st.none(), QUERY),
    path=PATHS,
)
def test_odd_headers(target: Target, host: str, origin: str | None, length: str | None, path: str) -> None:
    sent = {"host": host.encode()}  # bytes: any octets, not only ASCII
    if origin is not None:
        sent["origin"] = origin.encode()
    body = b'{"seed": 3}' if length is None else None
    if length is not None:
        sent["content-length"] = length.encode()
    try:
        target.send("POST", path, body, sent, changes=True)
    except Exception as err:  # a header the client itself refuses to send (a newline in it, ...)
        if "header" not in str(err).lower() and not isinstance(err, (ValueError, UnicodeError)):
            raise
