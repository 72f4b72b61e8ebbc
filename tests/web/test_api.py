"""The web app's JSON API: options exactly the engine's mask, refused requests that change
nothing, undo, records, hints that replay the agent's own game, idle games, safety."""

from __future__ import annotations

import gc
import json
import threading
import time

import anyio
import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web app needs the `web` extra")

from agents.cli.replay import Record
from agents.evaluation.solo import play_game
from agents.registry import AGENTS, make_policy
from numberdrop_env.engine.solo import SoloGame
from numberdrop_web.analysis import AgentLine, Cancelled, Job
from numberdrop_web.app import AHEAD_OPTIONS
from numberdrop_web.sessions import GameSession, GameStore
from numberdrop_web.views import legal_options, options_actions


def new_game(client, **body) -> dict:
    r = client.post("/api/games", json={"seed": 0, **body})
    assert r.status_code == 201, r.text
    return r.json()


def step(client, gid: str, action: int, **extra) -> dict:
    r = client.post(f"/api/games/{gid}/actions", json={"action": action, **extra})
    assert r.status_code == 200, r.text
    return r.json()


def engine_state(app, gid: str) -> dict:
    return app.state.store.get(gid).game.to_dict()


def test_the_options_are_exactly_the_engines_legal_actions(client) -> None:
    rng = np.random.default_rng(1)
    for seed in range(3):
        state = new_game(client, seed=seed)
        mirror = SoloGame(seed=seed)
        while not state["over"]:
            offered = options_actions(state["legal"])
            assert offered == np.flatnonzero(mirror.legal_mask()).tolist()
            action = int(rng.choice(offered))
            state = step(client, state["id"], action)
            mirror.step(action)
            assert state["score"] == mirror.score()
        assert mirror.is_over and state["legal"]["count"] == 0


def test_meta_reads_the_agents_from_the_registry(client) -> None:
    meta = client.get("/api/meta").json()
    assert meta["agents"] == [name for name in AGENTS if name != "rllib"]  # rllib needs a checkpoint
    assert meta["high_scores"] == [99, 92, 75, 61, 55, 46, 34, 27, 13]
    orientations = meta["orientations"]
    assert len(orientations) == 19
    for o in orientations:  # four rotations come back; a mirror image twice is itself; both keep the shape
        turned = o["index"]
        for _ in range(4):
            turned = orientations[turned]["rotate"]
        assert turned == o["index"]
        assert orientations[orientations[o["index"]]["flip"]]["flip"] == o["index"]
        assert orientations[o["rotate"]]["shape"] == orientations[o["flip"]]["shape"] == o["shape"]


BAD_REQUESTS = [
    ({"content": b"{not json", "headers": {"content-type": "application/json"}}, 400, "malformed JSON"),
    ({"content": b"[1, 2]", "headers": {"content-type": "application/json"}}, 400, "JSON object"),
    ({"content": b'{"action": NaN}', "headers": {"content-type": "application/json"}}, 400, "malformed JSON"),
    ({"content": b"action=3", "headers": {"content-type": "application/x-www-form-urlencoded"}}, 415, "JSON"),
    ({"json": {"action": "3"}}, 400, "integer"),
    ({"json": {"action": True}}, 400, "integer"),
    ({"json": {"action": 1.5}}, 400, "integer"),
    ({"json": {"action": -1}}, 400, "outside"),
    ({"json": {"action": 10**9}}, 400, "outside"),
    ({"json": {"action": 30}}, 422, "not legal"),
    ({"json": {"actions": [0, 30]}}, 422, "not legal"),
    ({"json": {"actions": "0"}}, 400, "list"),
    ({"json": {"action": 0, "actions": [0]}}, 400, "one of"),
    ({"json": {}}, 400, "one of"),
    ({"json": {"action": 0, "colour": "red"}}, 400, "unknown field"),
    ({"json": {"action": 0, "expect": 5}}, 409, "not 5"),
    ({"json": {"action": 0, "auto": "yes"}}, 400, "true or false"),
]


@pytest.mark.parametrize(("request_args", "status", "words"), BAD_REQUESTS)
def test_a_bad_action_request_is_refused_and_changes_nothing(app, client, request_args, status, words) -> None:
    game = new_game(client, seed=4)
    step(client, game["id"], 2)  # the 1 in column 2: a roll is in play
    before, shown = engine_state(app, game["id"]), client.get(f"/api/games/{game['id']}").json()
    r = client.post(f"/api/games/{game['id']}/actions", **request_args)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]
    assert engine_state(app, game["id"]) == before
    assert client.get(f"/api/games/{game['id']}").json() == shown


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"agent": "nobody"}, 400, "unknown agent"),
        ({"agent": 3}, 400, "string"),
        ({"seed": -1}, 400, "seed"),
        ({"seed": "7"}, 400, "seed"),
        ({"seed": 2**64}, 400, "seed"),
        ({"actions": [0, 999]}, 400, "outside"),
        ({"actions": [40]}, 422, "not legal"),
        ({"record": {"format": "something"}}, 400, "record"),
        ({"record": {}, "seed": 1}, 400, "either"),
        ({"record": "file.json"}, 400, "record"),
        ({"player": ["x"]}, 400, "player"),
    ],
)
def test_a_bad_new_game_is_refused(app, client, body, status, words) -> None:
    held = len(app.state.store)
    r = client.post("/api/games", json=body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]
    assert len(app.state.store) == held


def test_other_refusals(client) -> None:
    game = new_game(client)
    gid = game["id"]
    assert client.get("/api/games/nope").status_code == 404
    assert client.post("/api/games/nope/actions", json={"action": 0}).status_code == 404
    assert "nothing to undo" in client.post(f"/api/games/{gid}/undo", json={}).json()["error"]
    assert client.post(f"/api/games/{gid}/undo", json={"count": 0}).status_code == 400
    assert client.get(f"/api/games/{gid}/state?at=5").status_code == 400
    assert client.get(f"/api/games/{gid}/state?at=x").status_code == 400
    assert client.post(f"/api/games/{gid}/hint", json={"agent": "nobody"}).status_code == 400
    assert client.post(f"/api/games/{gid}/hint", json={"wait": -1}).status_code == 400
    assert client.post(f"/api/games/{gid}/analysis", json={"top": 0}).status_code == 400
    assert client.get("/api/jobs/none").status_code == 404
    assert client.delete("/api/jobs/none").status_code == 404
    assert client.get("/api/nothing").status_code == 404
    assert client.put("/api/games", json={}).status_code == 405


def test_request_bodies_have_a_size_limit(client) -> None:
    gid = new_game(client)["id"]
    big = json.dumps({"actions": [0] * 40_000}).encode()
    r = client.post(f"/api/games/{gid}/actions", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "limit" in r.json()["error"]

    def chunks():  # no Content-Length: the limit counts what arrives
        for _ in range(40):
            yield b" " * 4096

    r = client.post(f"/api/games/{gid}/actions", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert client.get(f"/api/games/{gid}").json()["index"] == 0


def raw_get(app, path: bytes) -> tuple[int, bytes]:
    """A GET of a path exactly as written (an HTTP client would tidy ``..`` away)."""
    out: dict = {"body": b""}

    async def run() -> None:
        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            if message["type"] == "http.response.start":
                out["status"] = message["status"]
            elif message["type"] == "http.response.body":
                out["body"] += message.get("body", b"")

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path.decode("latin-1"),
            "raw_path": path,
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"127.0.0.1")],
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 80),
        }
        await app(scope, receive, send)

    anyio.run(run)
    return out["status"], out["body"]


@pytest.mark.parametrize(
    "path",
    [
        b"/static/../app.py",
        b"/static/../../pyproject.toml",
        b"/static/..%2fapp.py",
        b"/static/%2e%2e/app.py",
        b"/static/%2e%2e%2fapp.py",
        b"/static//etc/passwd",
        b"/static/%2fetc%2fpasswd",
        b"/static/..\\app.py",
        b"/static/....//app.py",
        b"/static/favicon.svg/../../app.py",
    ],
)
def test_no_file_outside_the_apps_own_is_served(app, path) -> None:
    status, body = raw_get(app, path)
    assert status in (400, 404), (path, status)
    assert b"def create_app" not in body and b"root:" not in body and b"[project]" not in body


def test_the_page_and_its_files_are_served(client) -> None:
    page = client.get("/?seed=3&agent=greedy")
    assert page.status_code == 200 and 'data-testid="sheet"' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/missing.js").status_code == 404


def test_undo_restores_the_state_exactly(app, client) -> None:
    rng = np.random.default_rng(5)
    state = new_game(client, seed=11)
    gid = state["id"]
    for _ in range(60):
        if state["over"]:
            break
        before, shown = engine_state(app, gid), client.get(f"/api/games/{gid}").json()
        action = int(rng.choice(options_actions(state["legal"])))
        after = step(client, gid, action, auto=True)  # as the page plays: single choices played for you
        undone = client.post(f"/api/games/{gid}/undo", json={"expect": after["index"]}).json()
        assert engine_state(app, gid) == before  # the dice generator included
        assert undone == {**shown, "last_points": 0}
        state = step(client, gid, action, auto=True)


def test_undo_takes_back_the_decisions_played_for_the_player() -> None:
    session = GameSession(seed=0)
    session.play([3], auto=True)  # the 1, then the next turn's decisions up to a choice
    start = SoloGame(seed=0).to_dict()
    session.undo()
    assert session.index == 0 and session.game.to_dict() == start


def test_a_record_round_trip_and_replay_positions(client) -> None:
    policy = make_policy("greedy")
    policy.reset(2)
    game, actions = SoloGame(seed=2), []
    while not game.is_over:
        actions.append(int(policy.act(game, game.legal_mask())))
        game.step(actions[-1])
    record = Record(actions, seed=2, player="greedy", score=game.score())
    loaded = client.post("/api/games", json={"record": record.to_dict()}).json()
    assert loaded["over"] and loaded["score"] == game.score() and loaded["player"] == "greedy"
    saved = client.get(f"/api/games/{loaded['id']}/record")
    assert Record.from_dict(saved.json()).to_dict() == record.to_dict()
    assert "attachment" in saved.headers["content-disposition"]
    replayed = SoloGame(seed=2)
    for k in range(len(actions) + 1):
        if k in loaded["turn_starts"] or k == len(actions):
            at = client.get(f"/api/games/{loaded['id']}/state?at={k}").json()
            assert at["index"] == k and at["score"] == replayed.score() and at["turn"] == replayed.turn
        if k < len(actions):
            replayed.step(actions[k])
    wrong = {**record.to_dict(), "score": game.score() + 1}
    assert "replay scores" in client.post("/api/games", json={"record": wrong}).json()["error"]


def test_a_game_played_by_its_hints_is_the_agents_game(client) -> None:
    seed = 7
    state = new_game(client, seed=seed, agent="greedy")
    gid = state["id"]
    while not state["over"]:
        job = client.post(f"/api/games/{gid}/hint", json={"wait": 10}).json()
        assert job["status"] == "done", job
        hint = job["result"]
        assert hint["index"] == state["index"] and hint["on_line"]
        state = client.post(f"/api/games/{gid}/actions", json={"actions": hint["actions"], "expect": hint["index"]})
        state = state.json()
        assert state["score"] == hint["score_after"]
    assert state["score"] == play_game(make_policy("greedy"), seed).score


def test_a_position_off_the_agents_line_gets_the_same_hint_each_time(client) -> None:
    state = new_game(client, seed=3)
    gid = state["id"]
    state = step(client, gid, 6)  # the 1 in column 6: not where the greedy writes it
    first = client.post(f"/api/games/{gid}/hint", json={"wait": 10}).json()["result"]
    other = new_game(client, seed=3, actions=[6])
    second = client.post(f"/api/games/{other['id']}/hint", json={"wait": 10}).json()["result"]
    assert not first["on_line"] and first["actions"] == second["actions"]
    assert first["drawing"]["written"] or first["drawing"]["blocks"]


def test_the_analysis_lists_valued_candidates_with_the_agents_choice(client) -> None:
    gid = new_game(client, seed=5, actions=[0])["id"]
    job = client.post(f"/api/games/{gid}/analysis", json={"wait": 10, "top": 6}).json()
    assert job["status"] == "done", job
    result = job["result"]
    rows = result["candidates"]
    assert 1 <= len(rows) <= 7 and result["columns"][:2] == ["points", "value"]
    chosen = [r for r in rows if r["chosen"]]
    assert len(chosen) == 1 and chosen[0]["actions"] == result["hint"]["actions"][: len(chosen[0]["actions"])]
    assert [r["value"] for r in rows[:6]] == sorted((r["value"] for r in rows[:6]), reverse=True)
    for row in rows:
        assert row["breakdown_after"]["total"] - row["points"] == 0  # the game's score before was 0
        assert row["drawing"]["written"]


def test_the_ntuple_agents_analysis_ranks_by_its_own_value(client) -> None:
    gid = new_game(client, seed=5, actions=[0])["id"]
    job = client.post(f"/api/games/{gid}/analysis", json={"agent": "ntuple", "top": 5, "wait": 30}).json()
    assert job["status"] == "done", job
    result = job["result"]
    assert "agent_value" in result["columns"]
    values = [r["agent_value"] for r in result["candidates"][:5]]
    assert values == sorted(values, reverse=True)
    assert result["candidates"][0].get("chosen")  # one ply: the agent plays its best-valued candidate


def test_a_look_ahead_shows_its_mean(client) -> None:
    gid = new_game(client, seed=5, actions=[0])["id"]
    done = client.post(f"/api/games/{gid}/analysis", json={"agent": "search", "top": 3, "wait": 30}).json()
    assert done["status"] == "done", done
    assert "lookahead" in done["result"]["columns"]
    assert all(isinstance(r.get("lookahead"), float) for r in done["result"]["candidates"][:3])


def test_a_running_analysis_reports_progress_and_is_cancelled_by_delete(client, monkeypatch, caplog) -> None:
    # An analysis that runs until it is told to stop: a real look-ahead can end before the DELETE.
    running = threading.Event()

    def endless(self, game, job, top=8, lookahead=True):
        step_no = 0
        while True:
            job.report(f"candidate {step_no}", 0.5)
            running.set()
            step_no += 1
            time.sleep(0.005)

    monkeypatch.setattr(AgentLine, "analyse", endless)
    gid = new_game(client, seed=6, actions=[0])["id"]
    job = client.post(f"/api/games/{gid}/analysis", json={"agent": "search", "top": 32, "wait": 0}).json()
    assert job["status"] == "running"
    assert running.wait(5)
    polled = client.get(f"/api/jobs/{job['job']}").json()
    assert polled["status"] == "running" and polled["stage"].startswith("candidate") and polled["progress"] == 0.5
    cancelled = client.delete(f"/api/jobs/{job['job']}").json()
    assert cancelled["status"] == "cancelled"
    assert client.get(f"/api/jobs/{job['job']}?wait=5").json()["status"] == "cancelled"
    assert isinstance(client.app.state.jobs.get(job["job"]).future.exception(timeout=5), Cancelled)
    gc.collect()  # asyncio logs an exception nobody read when its future is collected
    assert not [r for r in caplog.records if r.name == "asyncio"], caplog.text


def test_a_job_stops_at_its_next_step_once_cancelled() -> None:
    job = Job("analysis")
    job.report("working", 0.5)
    job.cancelled.set()
    with pytest.raises(Cancelled):
        job.report("working", 0.6)
    assert job.progress == 0.5


def test_a_cancelled_hint_stops_off_the_agents_line_and_ends_the_lines_own_turn() -> None:
    session = GameSession(seed=3, agent="greedy")
    line = AgentLine("greedy", session)
    job = Job("hint")
    job.cancelled.set()
    own = line.hint(session.game.clone(), job)  # the line's policy must finish its turn
    assert own["on_line"] and own["actions"]
    session.play([6])  # the 1 in column 6: off the greedy's line
    with pytest.raises(Cancelled):
        line.hint(session.game.clone(), job)
    assert len(line.hints) == 1  # nothing remembered of the stopped turn
    again = line.hint(session.game.clone())
    fresh = AgentLine("greedy", GameSession(seed=3, agent="greedy")).hint(session.game.clone())
    assert not again["on_line"] and again["actions"] == fresh["actions"]


def test_a_game_that_errors_does_not_take_the_server_down(app, monkeypatch) -> None:
    from starlette.testclient import TestClient

    client = TestClient(
        app, raise_server_exceptions=False, base_url="http://127.0.0.1"
    )  # as a server answers: a 500, then on
    state = new_game(client, seed=1)
    gid = state["id"]
    session = app.state.store.get(gid)
    before = session.game.to_dict()

    def broken(action):
        session.game.sheet.values[0, 0] = 5  # half a change, then a crash
        raise RuntimeError("a bug in a game")

    monkeypatch.setattr(session.game, "step", broken)
    r = client.post(f"/api/games/{gid}/actions", json={"action": 0})
    assert r.status_code == 500 and "a bug in a game" in r.json()["error"]
    assert session.game.to_dict() == before  # rebuilt from its start and actions
    assert step(client, gid, 0)["index"] == 1
    assert new_game(client, seed=2)["index"] == 0


def test_idle_games_are_dropped_and_a_tab_can_set_its_game_up_again(client) -> None:
    now = [0.0]
    store = GameStore(idle_seconds=60, max_games=3, clock=lambda: now[0])
    kept, idle = store.add(GameSession(seed=1)), store.add(GameSession(seed=2))
    now[0] = 50
    store.get(kept.id)  # a tab touches its game
    now[0] = 100
    assert store.get(kept.id) is kept
    with pytest.raises(ValueError, match="idle"):
        store.get(idle.id)
    for seed in range(4):
        store.add(GameSession(seed=seed))
    assert len(store) == 3 and store.dropped == 3  # the idle one, then past max_games the least recently used

    state = new_game(client, seed=9)
    state = step(client, state["id"], 1)
    state = step(client, state["id"], options_actions(state["legal"])[0])
    again = new_game(client, seed=9, actions=state["actions"])  # the page's copy of its game
    same = lambda d: {k: v for k, v in d.items() if k not in ("id", "points", "last_points")}  # noqa: E731
    assert same(again) == same(state)


def test_legal_options_give_each_drop_its_landed_cells() -> None:
    game = SoloGame(seed=0)
    game.step(3)
    while game.phase.value not in ("place", "block"):
        game.step(int(np.flatnonzero(game.legal_mask())[0]))
    options = legal_options(game)
    offset = game.layout.place if game.phase.value == "place" else game.layout.block
    for o in options["placements"]:
        assert o["cells"] == [list(c) for c in game.block_cells(o["action"] - offset)]


def test_the_states_sent_ahead_are_the_answers_to_those_actions(client, app) -> None:
    rng = np.random.default_rng(3)
    state, checked = new_game(client, seed=4), 0
    while not state["over"] and state["turn"] < 4:
        answer = step(client, state["id"], int(rng.choice(options_actions(state["legal"]))), auto=True, ahead=True)
        ahead = answer.pop("ahead")
        offered = options_actions(answer["legal"])
        assert (sorted(map(int, ahead)) == offered) == (len(offered) <= AHEAD_OPTIONS)
        for action, expected in ahead.items():  # each option played, then taken back
            now = engine_state(app, state["id"])
            played = step(client, state["id"], int(action), auto=True, ahead=True)
            played.pop("ahead")
            assert played == expected
            client.post(f"/api/games/{state['id']}/undo", json={})
            assert engine_state(app, state["id"]) == now
            checked += 1
        state = answer
    assert checked > 20
