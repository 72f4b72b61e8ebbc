"""What the server refuses before a game sees a request: other sites' pages (a foreign Host, a
foreign Origin), JSON that breaks a parser, numbers in odd digits, a body that stops arriving."""

from __future__ import annotations

import logging
import socket
import time

import pytest

pytest.importorskip("starlette", reason="the web app needs the `web` extra")

from numberdrop_web.guard import allowed_hosts, host_name, nesting

from .conftest import LiveServer


def new_game(client) -> str:
    r = client.post("/api/games", json={"seed": 0})
    assert r.status_code == 201, r.text
    return r.json()["id"]


@pytest.mark.parametrize(
    "body",
    [b"[" * 20_000, b'{"a":' * 10_000, b'{"action": ' + b"[" * 40 + b"0" + b"]" * 40 + b"}"],
)
def test_deep_json_is_refused_without_parsing_it(client, body) -> None:
    gid = new_game(client)
    r = client.post(f"/api/games/{gid}/actions", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "nested" in r.json()["error"], r.text
    assert client.get(f"/api/games/{gid}").json()["index"] == 0


def test_brackets_inside_strings_are_not_nesting() -> None:
    assert nesting(b'{"player": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\"[["}') == 1
    assert nesting(b'[[1], {"a": [2]}]') == 3


@pytest.mark.parametrize("number", [b"9" * 5_000, b"-" + b"9" * 41, b"1" * 4_000])
def test_long_integers_are_refused_unconverted(client, number) -> None:
    r = client.post("/api/games", content=b'{"seed": ' + number + b"}", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "digits" in r.json()["error"], r.text


@pytest.mark.parametrize("at", ["²", "٣", "9" * 5_000, "1_0", " 1", "+1", "0x1", ""])
def test_query_numbers_are_ascii_digits(client, at) -> None:
    gid = new_game(client)
    r = client.get(f"/api/games/{gid}/state", params={"at": at})
    assert r.status_code == 400 and "digits 0-9" in r.json()["error"], r.text


@pytest.mark.parametrize("wait", ["nan", "inf", "١", "1e3", "-1", "9" * 5000])
def test_a_polls_wait_is_plain_decimal_seconds(client, wait) -> None:
    gid = new_game(client)
    job = client.post(f"/api/games/{gid}/hint", json={"agent": "random", "wait": 5}).json()
    assert client.get(f"/api/jobs/{job['job']}", params={"wait": wait}).status_code == 400
    assert client.get(f"/api/jobs/{job['job']}", params={"wait": "0.5"}).json()["status"] == "done"


def test_a_seed_of_2_to_the_64_is_refused_cleanly(client) -> None:
    r = client.post("/api/games", json={"seed": 2**64})
    assert r.status_code == 400 and "seed must be in 0..9223372036854775807" in r.json()["error"]


def test_an_agent_that_cannot_play_here_is_not_offered_nor_played(client) -> None:
    assert "rllib" not in client.get("/api/meta").json()["agents"]
    gid = new_game(client)
    r = client.post(f"/api/games/{gid}/hint", json={"agent": "rllib"})
    assert r.status_code == 400 and "checkpoint" in r.json()["error"]
    assert client.post("/api/games", json={"agent": "rllib"}).status_code == 400


def test_405_answers_say_which_methods_are_allowed(client) -> None:
    r = client.put("/api/games", json={})
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    r = client.post("/api/jobs/x", json={})
    assert r.status_code == 405 and set(r.headers["allow"].split(", ")) == {"GET", "HEAD", "DELETE"}


# ---------------------------------------------------------------------------- hosts and origins
@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1.evil.example", "testserver", ""])
def test_a_foreign_host_is_refused(app, client, host) -> None:
    held = len(app.state.store)
    for method, path in (("GET", "/"), ("GET", "/api/meta"), ("POST", "/api/games")):
        r = client.request(method, path, json={} if method == "POST" else None, headers={"host": host})
        assert r.status_code == 403 and "answers only to" in r.json()["error"], (method, path, r.text)
    assert len(app.state.store) == held


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8765", "localhost:8765", "LOCALHOST", "[::1]:8765"])
def test_this_machines_names_are_served(client, host) -> None:
    assert client.get("/api/meta", headers={"host": host}).status_code == 200


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "http://127.0.0.1:9999", "https://127.0.0.1.evil.example", "file://"]
)
def test_a_foreign_origin_cannot_change_a_game(app, client, origin) -> None:
    gid = new_game(client)
    headers = {"origin": origin}
    assert client.post("/api/games", json={"seed": 1}, headers=headers).status_code == 403
    assert client.post(f"/api/games/{gid}/actions", json={"action": 0}, headers=headers).status_code == 403
    assert client.delete("/api/jobs/x", headers=headers).status_code == 403
    assert client.get(f"/api/games/{gid}").json()["index"] == 0
    assert len(app.state.store) == 1


def test_the_pages_own_origin_plays(client) -> None:
    headers = {"host": "127.0.0.1:8765", "origin": "http://127.0.0.1:8765"}
    r = client.post("/api/games", json={"seed": 0}, headers=headers)
    assert r.status_code == 201
    r = client.post(f"/api/games/{r.json()['id']}/actions", json={"action": 0}, headers=headers)
    assert r.status_code == 200 and r.json()["index"] == 1


def test_the_allowed_hosts_follow_the_address_listened_on() -> None:
    assert allowed_hosts() == {"127.0.0.1", "localhost", "[::1]"}
    assert "192.168.1.5" in allowed_hosts("192.168.1.5")
    assert allowed_hosts("0.0.0.0") == allowed_hosts()  # every address: this machine's names only
    assert "[fe80::1]" in allowed_hosts("fe80::1")
    assert "box.lan" in allowed_hosts(extra=["box.lan"])
    assert host_name("[::1]:8765") == "[::1]" and host_name("LocalHost.:80") == "localhost"


# ---------------------------------------------------------------------------- a body that stops
def _raw(port: int, head: bytes, body: bytes, wait: float) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(head + body)
        out = b""
        try:
            while chunk := s.recv(4096):
                out += chunk
        except TimeoutError:
            pass
        return out


def test_a_body_that_stops_arriving_is_answered_and_the_connection_closed() -> None:
    server = LiveServer(workers=1, body_seconds=0.5)
    messages: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: messages.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger("uvicorn.error").addHandler(handler)
    try:
        head = (
            b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
        )
        start = time.monotonic()
        answer = _raw(server.port, head, b'{"seed": 1,', wait=10)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert time.monotonic() - start < 5  # answered, and the server closed the connection
        assert len(server.app.state.store) == 0
        r = _raw(
            server.port,
            head.replace(b"100", b"11").replace(b"Host", b"Connection: close\r\nHost"),
            b'{"seed": 1}',
            wait=10,
        )
        assert b" 201 " in r.split(b"\r\n")[0]  # and it serves on
        with socket.create_connection(("127.0.0.1", server.port)) as s:  # a client that leaves mid-body
            s.sendall(head + b'{"seed": 1,')
        time.sleep(1)
    finally:
        logging.getLogger("uvicorn.error").removeHandler(handler)
        server.stop()
    assert not [m for m in messages if "Traceback" in m or "Exception" in m], messages


def test_the_command_line_names_the_hosts_served() -> None:
    from numberdrop_web.cli import build_parser

    args = build_parser().parse_args(["--host", "0.0.0.0", "--allow-host", "box.lan", "--allow-host", "10.0.0.2"])
    assert allowed_hosts(args.host, args.allow_host) == {"127.0.0.1", "localhost", "[::1]", "box.lan", "10.0.0.2"}
