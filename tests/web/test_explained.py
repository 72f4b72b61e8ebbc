"""What the server tells the page so that it never acts without a word: the star's own slide,
the box a combination ticks, why the starred one of tied analysis rows was chosen, and a hint
waiting for numba's first compile (its stage says so, and a cancel stops the wait)."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("starlette", reason="the web app needs the `web` extra")

from agents.registry import make_policy
from numberdrop_env import numba_cache, startup
from numberdrop_env.engine.actions import Phase
from numberdrop_env.engine.solo import SoloGame
from numberdrop_web import compiling
from numberdrop_web.ties import tie_note

HEADS = {"value": {"head": "points + sheet", "explain": ""}}


def greedy_until(seed: int, stop) -> list[int]:
    game, policy, actions = SoloGame(seed=seed), make_policy("greedy"), []
    policy.reset(seed)
    while not stop(game):
        assert not game.is_over
        actions.append(int(policy.act(game, game.legal_mask())))
        game.step(actions[-1])
    return actions


def test_the_star_slide_of_the_rolled_shapes_tile_is_said(client) -> None:
    actions = greedy_until(3, lambda g: g.phase is Phase.PLACE)  # seed 3's first turn: a star, the I rolled
    st = client.post("/api/games", json={"seed": 3, "actions": actions}).json()
    letter = "ABCDE"[st["tiles"].index(st["shape_face"])]
    assert f"tile {letter} ({st['shape_face']}) one notch" in st["notice"]
    before = client.get(f"/api/games/{st['id']}/state?at={len(actions) - 1}").json()
    assert before["notice"] == ""  # before the slide, nothing slid by itself


def test_the_score_button_knows_the_box_it_ticks(client) -> None:
    actions = greedy_until(5, lambda g: g.phase is Phase.COMBO and g.legal_mask()[g.layout.confirm])
    st = client.post("/api/games", json={"seed": 5, "actions": actions}).json()
    values = {st["sheet"]["values"][r][c] for r, c in st["selection"]}
    kind = "identical" if len(values) == 1 else "consecutive"
    assert st["legal"]["confirm_box"] == {"size": len(st["selection"]), "kind": kind}


def rows(*values: float) -> list[dict]:
    return [{"rank": i + 1, "value": v, "chosen": i == 0} for i, v in enumerate(values)]


def test_tied_rows_say_why_the_starred_one_was_chosen() -> None:
    exact = tie_note("greedy", rows(36.25, 36.25, 30.0), ["points", "value"], HEADS)
    assert "row 2" in exact and "36.250" in exact and "first in its own order" in exact
    close = tie_note("greedy", rows(36.04, 35.96, 30.0), ["points", "value"], HEADS)
    assert "row 2 shows 36.0 too" in close and "35.960 against 36.040" in close
    many = tie_note("greedy", rows(36.25, 36.25, 36.25, 36.25, 30.0), ["points", "value"], HEADS)
    assert many.startswith("\u2605 and rows 2\u20134 tie at 36.250")
    assert tie_note("greedy", rows(36.3, 36.0), ["points", "value"], HEADS) == ""
    assert tie_note("random", rows(1.0, 1.0), ["points"], HEADS) == ""  # no column it chose by


def test_an_analysis_carries_its_tie_sentence(client) -> None:
    gid = client.post("/api/games", json={"seed": 9, "auto": True}).json()["id"]
    result = client.post(f"/api/games/{gid}/analysis", json={"agent": "greedy", "wait": 30}).json()["result"]
    assert result["tie"] == tie_note("greedy", result["candidates"], result["columns"], result["headings"])


def test_a_hint_waiting_for_the_compiler_says_so_and_can_be_cancelled(client, monkeypatch) -> None:
    monkeypatch.setattr(numba_cache, "interpreted", lambda: True)  # a background compile under way
    monkeypatch.setattr(startup, "poll", lambda: None)
    gid = client.post("/api/games", json={"seed": 2}).json()["id"]
    job = client.post(f"/api/games/{gid}/hint", json={"agent": "search", "wait": 0.5}).json()
    assert job["status"] == "running" and job["stage"] == compiling.WAITING
    assert "about a minute" in job["stage"]
    other = client.post("/api/games", json={"seed": 3}).json()["id"]
    quick = client.post(f"/api/games/{other}/hint", json={"agent": "greedy", "wait": 30}).json()
    assert quick["status"] == "done"  # the greedy plays the planner's Python meanwhile
    assert client.delete(f"/api/jobs/{job['job']}").json()["status"] == "cancelled"
    ended = client.get(f"/api/jobs/{job['job']}?wait=10").json()
    assert ended["status"] == "cancelled"


def test_a_hint_building_its_agent_says_so(monkeypatch) -> None:
    from starlette.testclient import TestClient

    from numberdrop_web import analysis
    from numberdrop_web.app import create_app

    gate, real = threading.Event(), analysis.make_policy

    def slow(name, *args, **kwargs):  # an agent whose model takes a while to read
        assert gate.wait(30), "the test never let the agent be built"
        return real(name, *args, **kwargs)

    monkeypatch.setattr(analysis, "make_policy", slow)
    with TestClient(create_app(workers=1), base_url="http://127.0.0.1") as client:  # new workers: nothing built
        gid = client.post("/api/games", json={"seed": 2}).json()["id"]
        job = client.post(f"/api/games/{gid}/hint", json={"agent": "greedy", "wait": 0.3}).json()
        assert job["status"] == "running" and job["stage"].startswith("loading greedy")
        gate.set()
        assert client.get(f"/api/jobs/{job['job']}?wait=30").json()["status"] == "done"
