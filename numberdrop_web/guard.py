"""What the server refuses before a request reaches a game (any page open here can send requests):
foreign ``Host`` and ``Origin`` headers, oversized or stalled bodies, malformed JSON."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterable
from itertools import accumulate
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .sessions import GameError

BODY_LIMIT = 64 * 1024
"""Bytes a request body may have: a whole game's record is about 1 KB."""
BODY_SECONDS = 10.0
"""Seconds a request body may take to arrive once its headers have."""
MAX_DEPTH = 32
"""Nesting of JSON arrays and objects a body may have (a record's position needs about 5)."""
MAX_DIGITS = 40
"""Digits of a JSON integer (a seed has at most 19): longer ones are refused unconverted."""
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def host_name(value: str) -> str:
    """The name part of a ``Host`` (``[::1]:8765`` -> ``[::1]``), lower case, no final dot."""
    value = value.strip().lower()
    name = value[: value.index("]") + 1] if value.startswith("[") and "]" in value else value.rsplit(":", 1)[0]
    return name.rstrip(".")


def allowed_hosts(host: str | None = None, extra: Iterable[str] = ()) -> frozenset[str]:
    """This machine's names, and the address the server listens on when it is another."""
    names = {*LOCAL_HOSTS, *extra}
    if host and host not in ("0.0.0.0", "::"):
        names.add(f"[{host}]" if ":" in host and not host.startswith("[") else host)
    return frozenset(host_name(n) for n in names)


class HostGuard:
    """Refuses (403) a request whose ``Host`` is not one of ``hosts``, and a state-changing
    one whose ``Origin`` is present and is not the server's own address."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str] = LOCAL_HOSTS) -> None:
        self.app, self.hosts = app, frozenset(host_name(h) for h in hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self.refusal(scope) if scope["type"] == "http" else None
        await (self.app if refusal is None else error(403, refusal))(scope, receive, send)

    def refusal(self, scope: Scope) -> str | None:
        headers = {k.lower(): v for k, v in scope["headers"]}
        host = headers.get(b"host", b"").decode("latin-1")
        if host_name(host) not in self.hosts:
            return f"this server answers only to {', '.join(sorted(self.hosts))}, not to Host {host!r}"
        origin = headers.get(b"origin")
        if origin is None or scope["method"] in SAFE_METHODS:
            return None
        text = origin.decode("latin-1").strip().lower()
        scheme, sep, netloc = text.partition("://")
        if not sep or scheme not in ("http", "https") or netloc.rstrip("/") != host.strip().lower():
            return f"requests that change a game come from this server's own page, not from {text!r}"
        return None


class BodyLimit:
    """Refuses a body over ``limit`` bytes (413), whether it says its length or not, and one
    that stops arriving for ``seconds`` (408: the connection is then closed, not held)."""

    def __init__(self, app: ASGIApp, limit: int = BODY_LIMIT, seconds: float = BODY_SECONDS) -> None:
        self.app, self.limit, self.seconds = app, limit, seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length", b"0")
        if not length.isdigit():
            await error(400, "Content-Length must be a number of bytes")(scope, receive, send)
            return
        if len(length) > 12 or int(length) > self.limit:
            over = f"request body of {length.decode()[:20]} bytes is over the limit of {self.limit} bytes"
            await error(413, over)(scope, receive, send)
            return
        seen, complete = 0, False

        async def limited() -> Message:
            nonlocal seen, complete
            if complete:  # the body is in: what follows is the client leaving, whenever it does
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), self.seconds)
            except TimeoutError:
                stalled = f"the request body stopped arriving for {self.seconds:g} s"
                raise HTTPException(408, stalled, headers={"connection": "close"}) from None
            seen += len(message.get("body", b""))
            complete = message["type"] != "http.request" or not message.get("more_body", False)
            if seen > self.limit:
                raise HTTPException(413, f"request body over the limit of {self.limit} bytes")
            return message

        await self.app(scope, limited, send)


_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def nesting(raw: bytes) -> int:
    """How deep a JSON text's arrays and objects nest (brackets inside strings do not count)."""
    brackets = _STRINGS.sub(b"", raw).translate(None, _NOT_BRACKETS)
    return max(accumulate(1 if b in b"[{" else -1 for b in brackets), default=0)


def _small_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_DIGITS})")
    return int(text)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


async def read_json(request: Request, allowed: set[str]) -> dict[str, Any]:
    """The body as a JSON object of the ``allowed`` fields (an empty body is ``{}``); anything else,
    malformed, too deep or too long-numbered JSON included, is a 4xx."""
    kind = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if kind != "application/json":
        raise GameError(f"send JSON (Content-Type: application/json), not {kind!r}", 415)
    raw = await request.body()
    if not raw.strip():
        return {}
    if (depth := nesting(raw)) > MAX_DEPTH:
        raise GameError(f"JSON nested {depth} deep (at most {MAX_DEPTH})", 400)
    try:
        data = json.loads(raw, parse_constant=_no_constant, parse_int=_small_int)
    except (ValueError, UnicodeDecodeError, RecursionError) as err:
        raise GameError(f"malformed JSON: {err}", 400) from err
    if not isinstance(data, dict):
        raise GameError(f"the body must be a JSON object, got {type(data).__name__}", 400)
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise GameError(f"unknown field(s) {unknown}; allowed: {sorted(allowed)}", 400)
    return data


_NUMBER = re.compile(r"[0-9]{1,12}(\.[0-9]{0,9})?|\.[0-9]{1,9}")


def query_number(request: Request, name: str, default: str | None = None) -> int | float:
    """A query parameter written as a plain decimal number (``2``, ``0.4``): an integer without a point."""
    raw = request.query_params.get(name, default)
    if raw is None or not _NUMBER.fullmatch(raw):
        raise GameError(f"{name} must be a number written in digits 0-9, got {(raw or '')[:20]!r}", 400)
    return float(raw) if "." in raw else int(raw)
