"""The page in a real headless Chromium (Playwright): games played to their end by clicking
hints, every kind of decision made by pointer, by touch and by keyboard, undo, replays, records, the
analysis, watch and compare, a phone's screen, and no JavaScript error anywhere (the
``page`` fixture fails a test that met one)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web app needs the `web` extra")

from agents.cli.replay import Record
from agents.evaluation.solo import play_game
from agents.registry import make_policy
from numberdrop_env.engine.solo import SoloGame
from numberdrop_web import analysis

from .conftest import Page


def wait_index_past(page: Page, index: int) -> dict[str, Any]:
    page.page.wait_for_function(
        "(i) => window.__nd.state && (window.__nd.state.index > i || window.__nd.state.over) && window.__nd.idle()",
        arg=index,
    )
    return page.state()


def click_cell(page: Page, row: int, col: int) -> None:
    at = page.page.evaluate("([r, c]) => window.__nd.cellCenter(r, c)", [row, col])
    page.page.mouse.click(at["x"], at["y"])


def engine_game(page: Page, state: dict) -> SoloGame:
    return page.live.app.state.store.get(state["id"]).game


def test_a_game_played_by_clicking_hints_scores_as_numberdrop_evaluate(page: Page) -> None:
    seed = 12
    p = page.open(f"?seed={seed}&agent=greedy")
    hinted = 0
    while p.locator("[data-testid=game-over]").count() == 0:
        index = page.state()["index"]
        p.click("[data-testid=play-hint]")
        wait_index_past(page, index)
        hinted += 1
        assert hinted < 60
    score = int(p.inner_text("[data-testid=score]"))
    assert score == play_game(make_policy("greedy"), seed).score
    assert p.locator("[data-testid=game-over]").is_visible()
    assert str(score) in p.inner_text("[data-testid=game-over]")


def play_by_pointer(page: Page, seen: set[str]) -> None:
    """One decision by pointer: a tile clicked, the ghost aimed and clicked, dice dragged into
    the cells, a star's value picked in place, a combination's cells clicked."""
    p, st = page.page, page.state()
    phase, legal, index = st["phase"], st["legal"], st["index"]
    if phase == "start":
        click_cell(page, 0, 4)
        st = wait_index_past(page, index)
        assert engine_game(page, st).sheet.values[0, 4] == 1
    elif phase in ("slide", "star_slide"):
        p.click(f"[data-testid=tile-{legal['tiles'][-1]['letter']}]")
        wait_index_past(page, index)
    elif phase in ("place", "block"):
        orient = p.evaluate("() => window.__nd.ghost().orientation")
        options = [o for o in legal["placements"] if o["orientation"] == orient]
        target = options[len(options) // 2]
        width = 1 + max(c for _, c in target["cells"]) - min(c for _, c in target["cells"])
        top_row = max(r for r, _ in target["cells"])
        at = p.evaluate("([r, c]) => window.__nd.cellCenter(r, c)", [top_row, target["column"] + (width - 1) // 2])
        p.mouse.move(at["x"], at["y"])
        assert p.evaluate("() => window.__nd.ghost().action") == target["action"]
        p.mouse.click(at["x"], at["y"])
        st = wait_index_past(page, index)
        game = engine_game(page, st)
        if phase == "place" and st["phase"] == "arrange":
            assert st["pending_cells"] == target["cells"]
        else:
            assert all(game.sheet.values[r, c] != -1 for r, c in target["cells"])
    elif phase == "arrange":
        cells, dice = legal["cells"], st["sorted_dice"]
        order = list(reversed(range(len(dice))))  # cell k gets die 3 - k
        for cell, die in enumerate(order):
            src = p.locator(f"[data-testid=die-{die}]").bounding_box()
            dst = p.evaluate("([r, c]) => window.__nd.cellCenter(r, c)", cells[cell])
            p.mouse.move(src["x"] + src["width"] / 2, src["y"] + src["height"] / 2)
            p.mouse.down()
            p.mouse.move(dst["x"], dst["y"], steps=4)
            p.mouse.up()
        st = wait_index_past(page, index)
        game = engine_game(page, st)
        for (r, c), die in zip(cells, order):
            if dice[die] != "*":
                assert game.sheet.values[r, c] == dice[die] or st["phase"] == "wild"
    elif phase == "wild":
        r, c = legal["cell"]
        p.click("[data-testid=wild-7]")
        st = wait_index_past(page, index)
        assert engine_game(page, st).sheet.values[r, c] == 7 or 7 in st["pending_values"]
    elif phase == "combo":
        if legal["confirm"] is not None:
            p.click("[data-testid=confirm]")
            assert wait_index_past(page, index)["score"] > st["score"]
            seen.add("confirm")
        elif legal["select"]:
            r, c = legal["select"][0]["cell"]
            click_cell(page, r, c)
            assert [r, c] in wait_index_past(page, index)["selection"]
        else:
            p.click("[data-testid=pass]")
            wait_index_past(page, index)
    seen.add(phase)


EVERY_KIND_SEED = 5
"""A seed whose game, played by pointer or by touch as below, meets every kind of decision within
about ten decisions (a star, a combination to confirm)."""


def test_every_kind_of_decision_by_pointer(page: Page) -> None:
    page.open(f"?seed={EVERY_KIND_SEED}&agent=greedy")
    seen: set[str] = set()
    wanted = {"start", "slide", "place", "arrange", "wild", "combo", "confirm"}
    for _ in range(150):
        if wanted <= seen or page.state()["over"]:
            break
        play_by_pointer(page, seen)
    assert wanted <= seen, seen
    st = page.state()
    replayed = SoloGame(seed=EVERY_KIND_SEED)
    for a in st["actions"]:
        replayed.step(a)
    assert replayed.to_dict() == engine_game(page, st).to_dict()


KEYBOARD_SEED = 2
"""A seed whose game by these keys meets every kind of decision (a star, a combination to score)."""


def press(page: Page, *keys: str) -> dict[str, Any]:
    index = page.state()["index"]
    for key in keys:
        page.page.keyboard.press(key)
    return wait_index_past(page, index)


def test_every_kind_of_decision_by_keyboard(page: Page) -> None:
    p = page.open(f"?seed={KEYBOARD_SEED}&agent=greedy")
    st = page.state()
    p.keyboard.press("ArrowRight")
    col = p.evaluate("() => window.__nd.ui.col")
    st = press(page, "Enter")
    assert engine_game(page, st).sheet.values[0, col] == 1
    meta = p.evaluate("() => fetch('/api/meta').then((r) => r.json())")
    seen: set[str] = set()
    for _ in range(120):
        st = page.state()
        if st["over"] or {"slide", "place", "arrange", "wild", "confirm", "pass"} <= seen:
            break
        phase, legal = st["phase"], st["legal"]
        if phase == "slide" and st["turn"] % 2 == 0:  # every other turn the hint, by its key: combinations come
            st = press(page, "g")
            continue
        if phase in ("slide", "star_slide"):
            letter = legal["tiles"][0]["letter"]
            st = press(page, letter.lower())
        elif phase in ("place", "block"):
            before = p.evaluate("() => window.__nd.ghost()")
            p.keyboard.press("r")
            turned = p.evaluate("() => window.__nd.ghost()")
            rotations, o = [], before["orientation"]
            for _ in range(4):
                o = meta["orientations"][o]["rotate"]
                rotations.append(o)
            assert turned["orientation"] in rotations
            p.keyboard.press("ArrowLeft")
            ghost = p.evaluate("() => window.__nd.ghost()")
            st = press(page, "Enter")
            if phase == "place":
                assert st["pending_cells"] == ghost["cells"]
        elif phase == "arrange":
            dice = st["sorted_dice"]
            typed = [str(v) for v in reversed(dice)]
            st = press(page, *typed)
            game = engine_game(page, st)
            if st["phase"] != "wild":
                assert [int(game.sheet.values[r, c]) for r, c in legal["cells"]] == [int(v) for v in reversed(dice)]
        elif phase == "wild":
            r, c = legal["cell"]
            st = press(page, "8")
            assert engine_game(page, st).sheet.values[r, c] == 8 or 8 in st["pending_values"]
        elif phase == "combo":
            if "pass" not in seen and not st["selection"]:
                st = press(page, "p")
                seen.add("pass")
            elif legal["confirm"] is not None:
                before = st["score"]
                st = press(page, "Enter")
                assert st["score"] > before
                seen.add("confirm")
            elif legal["select"] and "confirm" not in seen:
                p.keyboard.press("Tab")
                cursor = p.evaluate("() => window.__nd.ui.cursor")
                assert cursor in [o["cell"] for o in legal["select"]]
                st = press(page, " ")
                assert cursor in st["selection"]
            else:
                st = press(page, "p")
                seen.add("pass")
        seen.add(phase)
    assert {"slide", "place", "arrange", "wild", "confirm", "pass"} <= seen, seen


def test_undo_restores_the_state_exactly(page: Page) -> None:
    p = page.open("?seed=5&agent=greedy")
    for _ in range(3):
        index = page.state()["index"]
        p.click("[data-testid=play-hint]")
        wait_index_past(page, index)
    st = page.state()
    before = engine_game(page, st).to_dict()
    shown = p.inner_text("[data-testid=score]")
    tile = st["legal"]["tiles"][0]["letter"]
    p.click(f"[data-testid=tile-{tile}]")
    moved = wait_index_past(page, st["index"])
    assert moved["index"] > st["index"]
    p.click("[data-testid=undo]")
    page.page.wait_for_function("(i) => window.__nd.state.index === i && window.__nd.idle()", arg=st["index"])
    assert engine_game(page, page.state()).to_dict() == before
    assert p.inner_text("[data-testid=score]") == shown
    p.keyboard.press("u")  # and by keyboard, back past the turns the hints played
    page.page.wait_for_function("(i) => window.__nd.state.index < i && window.__nd.idle()", arg=st["index"])


def test_a_click_is_drawn_before_the_servers_answer_which_agrees(page: Page) -> None:
    p = page.open("?seed=5&agent=greedy")
    while not (page.state()["phase"] == "slide" and page.state().get("ahead")):
        index = page.state()["index"]
        p.click("[data-testid=play-hint]")
        wait_index_past(page, index)
    st = page.state()
    tile = st["legal"]["tiles"][0]
    held: list = []

    def hold(route: Any) -> None:  # the request waits until the test lets it go
        held.append(route)

    p.route("**/actions", hold)
    p.click(f"[data-testid=tile-{tile['letter']}]")
    page.page.wait_for_function("(i) => window.__nd.state.index > i", arg=st["index"])
    drawn = page.state()
    assert drawn == st["ahead"][str(tile["action"])] and p.inner_text("[data-testid=score]") == str(drawn["score"])
    for _ in range(500):  # the held request reaches the test soon after the page drew the click
        if held:
            break
        p.wait_for_timeout(10)
    assert len(held) == 1 and not page.page.evaluate("() => window.__nd.idle()")
    held[0].continue_()
    p.unroute("**/actions", hold)
    page.idle()
    answer = page.state()
    assert answer.pop("ahead") is not None and answer == drawn


def test_a_replay_steps_to_the_recorded_score_and_a_game_saves_as_a_record(page: Page, tmp_path) -> None:
    policy = make_policy("greedy")
    policy.reset(4)
    game, actions = SoloGame(seed=4), []
    while not game.is_over:
        actions.append(int(policy.act(game, game.legal_mask())))
        game.step(actions[-1])
    path = tmp_path / "game.json"
    Record(actions, seed=4, player="greedy", score=game.score()).save(path)
    p = page.open("?mode=replay&seed=4&agent=greedy")
    p.set_input_files("[data-testid=replay-file]", str(path))
    p.wait_for_function(
        "(n) => window.__nd.replay.length === n && window.__nd.replay.at === 0 && window.__nd.idle()", arg=len(actions)
    )
    assert p.inner_text("[data-testid=score]") == "0"
    p.click("[data-testid=replay-last]")
    p.wait_for_function("(n) => window.__nd.replay.at === n && window.__nd.idle()", arg=len(actions))
    assert int(p.inner_text("[data-testid=score]")) == game.score()
    assert p.locator("[data-testid=game-over]").count() == 1
    p.click("[data-testid=replay-prev-turn]")
    p.wait_for_function("(n) => window.__nd.replay.at < n && window.__nd.idle()", arg=len(actions))
    at = p.evaluate("() => window.__nd.replay.at")
    replayed = SoloGame(seed=4)
    for a in actions[:at]:
        replayed.step(a)
    assert int(p.inner_text("[data-testid=score]")) == replayed.score()
    p.keyboard.press("ArrowRight")
    p.wait_for_function("(k) => window.__nd.replay.at === k && window.__nd.idle()", arg=at + 1)

    p.click("[data-testid=mode-play]")  # a game of one's own, saved as a record
    page.open("?seed=8&agent=greedy")
    for _ in range(2):
        index = page.state()["index"]
        p.click("[data-testid=play-hint]")
        wait_index_past(page, index)
    with p.expect_download() as download:
        p.click("[data-testid=save-record]")
    saved = Record.from_dict(json.loads(open(download.value.path()).read()))
    assert saved.seed == 8 and saved.actions == page.state()["actions"] and saved.score == page.state()["score"]


def test_the_analysis_lists_the_candidates_and_draws_the_one_hovered(page: Page) -> None:
    p = page.open("?seed=9&agent=greedy")
    index = page.state()["index"]
    p.click("[data-testid=play-hint]")
    wait_index_past(page, index)
    p.click("[data-testid=analyse]")
    p.wait_for_selector("[data-testid=candidate-1]")
    rows = p.evaluate("() => window.__nd.analysis.candidates")
    assert sum(r["chosen"] for r in rows) == 1
    assert p.locator("#analysis tr.chosen").count() == 1
    p.hover("[data-testid=candidate-1]")
    p.wait_for_function("() => document.querySelectorAll('#overlay .hover').length > 0")
    assert "after it" in p.inner_text("[data-testid=afterstate]")
    index = page.state()["index"]
    p.click("[data-testid=candidate-1]")  # plays it
    st = wait_index_past(page, index)
    assert st["actions"][index : index + len(rows[1]["actions"])] == rows[1]["actions"]


def test_watch_an_agent_play_a_seed(page: Page) -> None:
    p = page.open("?mode=watch&seed=3&agent=greedy")
    p.select_option("[data-testid=watch-speed]", "0")
    p.click("[data-testid=watch-toggle]")
    p.wait_for_selector("[data-testid=game-over]", timeout=90_000)
    assert int(p.inner_text("[data-testid=score]")) == play_game(make_policy("greedy"), 3).score


def test_compare_your_game_with_the_agents_on_the_same_dice(page: Page) -> None:
    p = page.open("?mode=compare&seed=6&agent=greedy")
    assert p.locator("[data-testid=compare-sheet]").is_visible()
    for _ in range(2):
        st = page.state()
        tile = st["legal"]["tiles"][0]["letter"] if st["phase"] == "slide" else None
        if tile:
            p.click(f"[data-testid=tile-{tile}]")
            wait_index_past(page, st["index"])
        index = page.state()["index"]
        p.click("[data-testid=play-hint]")
        wait_index_past(page, index)
    p.wait_for_function("() => window.__nd.compare.state.turn >= window.__nd.state.turn && window.__nd.idle()")
    mine, theirs = page.state(), p.evaluate("() => window.__nd.compare.state")
    assert theirs["seed"] == mine["seed"] and theirs["turn"] == mine["turn"]
    assert theirs["dice"] == mine["dice"] and theirs["shape_face"] == mine["shape_face"]  # the same roll
    assert p.inner_text("[data-testid=compare-score]") == str(theirs["score"])


class HeldAgent:
    """An agent that waits before each decision: ``gate`` opens it (until then the job runs),
    or it sleeps ``seconds`` (it needs that long), so a test need not race a real agent's speed."""

    def __init__(self, policy: Any, gate: threading.Event | None = None, seconds: float = 0.0) -> None:
        self._policy, self._gate, self._seconds = policy, gate, seconds

    def act(self, game: SoloGame, mask: Any) -> int:
        if self._gate is not None:
            assert self._gate.wait(120), "the test never let the agent go"
        time.sleep(self._seconds)
        return self._policy.act(game, mask)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._policy, name)


def hold(monkeypatch: pytest.MonkeyPatch, agent: str, **how: Any) -> None:
    """The live server's new lines of ``agent`` get a ``HeldAgent`` (the server runs in this process)."""
    real = analysis.make_policy
    monkeypatch.setattr(
        analysis,
        "make_policy",
        lambda name, *a, **k: HeldAgent(real(name, *a, **k), **how) if name == agent else real(name, *a, **k),
    )


SLOW_SEED = 2
"""The game's first decision (before the first drop), where the page once showed no progress."""


def test_a_slow_agent_shows_progress_and_can_be_cancelled(page: Page, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch", reason="the look-ahead agent best needs the train extra")
    make_policy("best")  # torch imported and the model read once in this process (the server's): no stall mid-job
    gate = threading.Event()
    hold(monkeypatch, "best", gate=gate)
    p = page.open(f"?seed={SLOW_SEED}&agent=best")
    before = engine_game(page, page.state()).to_dict()
    p.click("[data-testid=analyse]")
    p.wait_for_selector("[data-testid=progress]:visible", timeout=60_000)  # loading torch and the model first
    p.wait_for_function(  # the progress says "loading best" while the worker reads its model
        "() => document.getElementById('progress-text').textContent.includes('best chooses its turn')"
    )
    with p.expect_response(lambda r: r.request.method == "DELETE" and "/api/jobs/" in r.url) as answer:
        p.click("[data-testid=cancel]")
    assert answer.value.json()["status"] == "cancelled"  # the server stops it at its next step
    p.wait_for_selector("[data-testid=progress]", state="hidden")
    assert p.inner_text("[data-testid=hint-text]") == "cancelled"
    gate.set()  # the agent finishes its decision; the job ends there, cancelled
    job = page.live.app.state.jobs.get(answer.value.json()["job"])
    job.future.exception(timeout=60)
    assert job.to_json()["status"] == "cancelled"
    st = page.state()
    assert st["index"] == 0 and p.evaluate("() => window.__nd.analysis") is None
    assert engine_game(page, st).to_dict() == before  # the game as it was
    p.click("[data-testid=analyse]")  # and the agent's line too: asked again, it answers its own turn
    p.wait_for_function("() => window.__nd.hint && window.__nd.idle()", timeout=60_000)
    assert p.evaluate("() => window.__nd.hint.on_line") and page.state()["index"] == 0
    assert p.inner_text("[data-testid=hint-text]").startswith("best: write the 1")


def test_an_agent_that_needs_a_second_shows_progress_then_its_answer(
    page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    hold(monkeypatch, "greedy", seconds=1.0)
    p = page.open(f"?seed={SLOW_SEED}&agent=greedy")
    p.evaluate(
        """() => { window.__shown = 0; const box = document.getElementById("progress");
        new MutationObserver(() => { if (!box.hidden) window.__shown += 1; }).observe(box, { attributes: true }); }"""
    )
    p.click("[data-testid=hint]")
    p.wait_for_function("() => window.__nd.hint && window.__nd.idle()", timeout=60_000)
    assert p.evaluate("() => window.__shown") > 0  # shown while the agent chose
    assert p.locator("[data-testid=progress]").is_hidden()
    assert p.inner_text("[data-testid=hint-text]").startswith("greedy: write the 1")


def tap_cell(page: Page, row: int, col: int) -> None:
    page.page.evaluate("() => document.getElementById('sheet').scrollIntoView({ block: 'nearest' })")
    at = page.page.evaluate("([r, c]) => window.__nd.cellCenter(r, c)", [row, col])
    page.page.touchscreen.tap(at["x"], at["y"])


def finger_slide(page: Page, cdp: Any, start: dict, end: dict, steps: int = 6) -> None:
    """A finger put down at ``start``, slid to ``end`` and lifted (Chromium's touch events)."""
    touch = "Input.dispatchTouchEvent"
    cdp.send(touch, {"type": "touchStart", "touchPoints": [{"x": start["x"], "y": start["y"]}]})
    for k in range(1, steps + 1):
        x = start["x"] + (end["x"] - start["x"]) * k / steps
        y = start["y"] + (end["y"] - start["y"]) * k / steps
        cdp.send(touch, {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send(touch, {"type": "touchEnd", "touchPoints": []})


def aim_point(page: Page, option: dict) -> dict:
    """Where a pointer aims a drop at ``option``: the middle column of its top row."""
    cols = [c for _, c in option["cells"]]
    top_row = max(r for r, _ in option["cells"])
    return page.page.evaluate(
        "([r, c]) => window.__nd.cellCenter(r, c)", [top_row, option["column"] + (max(cols) - min(cols)) // 2]
    )


def play_by_touch(page: Page, cdp: Any, seen: set[str]) -> None:
    """One decision by touch: a tile tapped, a drop aimed by a finger's slide then tapped, a die
    tapped then its cell, a star's value and a combination's cells tapped."""
    p, st = page.page, page.state()
    phase, legal, index = st["phase"], st["legal"], st["index"]
    if phase in ("slide", "star_slide"):
        p.locator(f"[data-testid=tile-{legal['tiles'][-1]['letter']}]").tap()
        wait_index_past(page, index)
    elif phase in ("place", "block"):
        ghost = p.evaluate("() => window.__nd.ghost()")
        options = [o for o in legal["placements"] if o["orientation"] == ghost["orientation"]]
        target = options[len(options) // 2]  # the pointer test's drop: the same game
        starts = [o for o in options if o["action"] not in (ghost["action"], target["action"])]
        if starts:  # put down off the ghost (a touch there would drop), slid to the target
            p.evaluate("() => document.getElementById('sheet').scrollIntoView({ block: 'nearest' })")
            finger_slide(page, cdp, aim_point(page, starts[0]), aim_point(page, target))
            assert p.evaluate("() => window.__nd.ghost().action") == target["action"]  # it followed
            assert page.state()["index"] == index  # and nothing dropped
        else:  # a single other drop: a tap aims it
            at = aim_point(page, target)
            p.touchscreen.tap(at["x"], at["y"])
            assert page.state()["index"] == index
        at = aim_point(page, target)
        p.touchscreen.tap(at["x"], at["y"])
        st = wait_index_past(page, index)
        if phase == "place" and st["phase"] == "arrange":
            assert st["pending_cells"] == target["cells"]
        else:
            assert all(engine_game(page, st).sheet.values[r, c] != -1 for r, c in target["cells"])
    elif phase == "arrange":
        cells, dice = legal["cells"], st["sorted_dice"]
        order = list(reversed(range(len(dice))))
        for cell, die in enumerate(order):
            p.locator(f"[data-testid=die-{die}]").tap()
            tap_cell(page, *cells[cell])
        st = wait_index_past(page, index)
        game = engine_game(page, st)
        for (r, c), die in zip(cells, order):
            if dice[die] != "*":
                assert game.sheet.values[r, c] == dice[die] or st["phase"] == "wild"
    elif phase == "wild":
        r, c = legal["cell"]
        p.locator("[data-testid=wild-7]").tap()
        st = wait_index_past(page, index)
        assert engine_game(page, st).sheet.values[r, c] == 7 or 7 in st["pending_values"]
    elif phase == "combo":
        if legal["confirm"] is not None:
            p.locator("[data-testid=confirm]").tap()
            assert wait_index_past(page, index)["score"] > st["score"]
            seen.add("confirm")
        elif legal["select"]:
            r, c = legal["select"][0]["cell"]
            tap_cell(page, r, c)
            assert [r, c] in wait_index_past(page, index)["selection"]
        else:
            p.locator("[data-testid=pass]").tap()
            wait_index_past(page, index)
    seen.add(phase)


def test_a_touch_screen_makes_every_kind_of_decision(browser, live) -> None:
    phone = Page(browser, live, 390, 844, touch=True)
    try:
        p = phone.open(f"?seed={EVERY_KIND_SEED}&agent=greedy")
        cdp = phone.context.new_cdp_session(p)
        index = phone.state()["index"]
        assert p.evaluate("() => window.__nd.ui.col") != 4
        tap_cell(phone, 0, 4)  # a tap off the ghost aims it there
        p.wait_for_function("() => window.__nd.ui.col === 4")
        assert phone.state()["index"] == index
        tap_cell(phone, 0, 4)  # a tap on it writes the 1
        st = wait_index_past(phone, index)
        assert engine_game(phone, st).sheet.values[0, 4] == 1
        seen: set[str] = set()
        wanted = {"slide", "place", "arrange", "wild", "combo", "confirm"}
        for _ in range(150):
            if wanted <= seen or phone.state()["over"]:
                break
            play_by_touch(phone, cdp, seen)
        assert wanted <= seen, seen
        st = phone.state()
        replayed = SoloGame(seed=EVERY_KIND_SEED)
        for a in st["actions"]:
            replayed.step(a)
        assert replayed.to_dict() == engine_game(phone, st).to_dict()
        assert phone.errors == []
    finally:
        phone.close()


def on_screen(page: Any, selector: str, width: int, height: int) -> bool:
    box = page.locator(selector).bounding_box()
    return box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= width and box["y"] + box["height"] <= height


def test_a_phone_screen_shows_the_whole_sheet_and_plays(browser, live) -> None:
    phone = Page(browser, live, 390, 844)
    try:
        p = phone.open("?seed=1&agent=greedy")
        assert p.evaluate("() => document.documentElement.scrollWidth") <= 390
        box = p.locator("[data-testid=sheet]").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert on_screen(p, "header h1", 390, 844)
        for _ in range(3):  # the play view fits the screen: the title, the sheet and the buttons
            index = phone.state()["index"]
            p.click("[data-testid=play-hint]")
            wait_index_past(phone, index)
        assert p.evaluate("() => window.scrollY") == 0
        for selector in ("header h1", "[data-testid=sheet]", "#controls", "[data-testid=play-hint]"):
            assert on_screen(p, selector, 390, 844), selector
        p.click("[data-testid=analyse]")
        p.wait_for_selector("[data-testid=candidate-1]")
        p.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        p.wait_for_function("() => window.scrollY > 0")
        assert on_screen(p, "header h1", 390, 844)  # the title stays on screen as the page scrolls
        assert phone.errors == []
    finally:
        phone.close()
