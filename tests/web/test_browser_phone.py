"""A new player's first games, at 390 x 844 by touch and at 1280 x 800 by mouse, in one headless
Chromium with a page of each kind shared by the tests: Watch never plays in the player's game, the
views are steps of the browser's history, the analysis never covers a control, a tap drops a piece
only on its ghost, touch targets of 44 px, and the page says what happens and why (the star's slide,
a move made stale by another tab, ties in the analysis)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web app needs the `web` extra")

from agents.registry import make_policy
from numberdrop_env.engine.actions import Phase
from numberdrop_env.engine.solo import SoloGame

from .conftest import LiveServer, Page
from .test_browser import wait_index_past

PHONE = (390, 844)
TARGET = 44
"""The CSS pixels a touch target wants, each way."""


def shared_page(browser: Any, live: LiveServer, **how: Any) -> Iterator[Page]:
    page = Page(browser, live, **how)
    yield page
    page.close()


@pytest.fixture(scope="module")
def phone_page(browser: Any, live: LiveServer) -> Iterator[Page]:
    yield from shared_page(browser, live, width=PHONE[0], height=PHONE[1], touch=True)


@pytest.fixture(scope="module")
def desk_page(browser: Any, live: LiveServer) -> Iterator[Page]:
    yield from shared_page(browser, live)


def checked(page: Page) -> Iterator[Page]:
    """The shared page for one test, which fails on a JavaScript error or a drawn state the answer changed."""
    page.errors.clear()
    page.page.evaluate("() => { if (window.__nd) window.__nd.mispredicted = 0; }")
    yield page
    assert page.errors == [], f"the page raised JavaScript errors: {page.errors}"
    assert page.page.evaluate("() => window.__nd ? window.__nd.mispredicted : 0") == 0


@pytest.fixture
def phone(phone_page: Page) -> Iterator[Page]:
    yield from checked(phone_page)


@pytest.fixture
def desk(desk_page: Page) -> Iterator[Page]:
    yield from checked(desk_page)


def greedy_until(seed: int, stop: Callable[[SoloGame], bool], limit: int = 400) -> tuple[list[int], SoloGame]:
    """The greedy's actions on ``seed`` up to the first position where ``stop`` holds, and that position."""
    game, policy, actions = SoloGame(seed=seed), make_policy("greedy"), []
    policy.reset(seed)
    while not stop(game):
        assert not game.is_over and len(actions) < limit, "no such position in the greedy's game"
        actions.append(int(policy.act(game, game.legal_mask())))
        game.step(actions[-1])
    return actions, game


def open_at(page: Page, seed: int, actions: list[int]) -> dict[str, Any]:
    """The page showing the player's game on ``seed`` after ``actions`` (this tab's copy of its game)."""
    p = page.open(f"?seed={seed}&agent=greedy")
    body = {"seed": seed, "agent": "greedy", "actions": actions}
    game = p.evaluate(
        """(body) => fetch("/api/games", { method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify(body) }).then((r) => r.json())""",
        body,
    )
    copy = {"id": game["id"], "seed": seed, "agent": "greedy", "actions": game["actions"], "player": "human"}
    p.evaluate("(own) => sessionStorage.setItem('numberdrop-web', JSON.stringify({ mode: 'play', own, ...own }))", copy)
    page.open(f"?seed={seed}&agent=greedy")
    assert page.state()["id"] == game["id"]
    return page.state()


def engine_actions(page: Page, game_id: str) -> list[int]:
    return list(page.live.app.state.store.get(game_id).actions)


def play_hints(page: Page, turns: int) -> dict[str, Any]:
    for _ in range(turns):
        turn = page.state()["turn"]
        while page.state()["turn"] == turn and not page.state()["over"]:
            index = page.state()["index"]
            page.page.locator("[data-testid=play-hint]").click()
            wait_index_past(page, index)
    return page.state()


def uncovered(page: Page, selector: str) -> list[str]:
    """The elements of ``selector`` that something else covers, each scrolled to the middle and to
    the bottom of the screen in turn (where a finger meets it), by their test id."""
    return page.page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)].filter((el) => el.getClientRects().length)
        .flatMap((el) => ["center", "end"].map((block) => {
          el.scrollIntoView({ block });
          const r = el.getBoundingClientRect(), hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
          return hit && (el === hit || el.contains(hit)) ? null : `${el.dataset.testid || el.id} (${block})`;
        })).filter(Boolean)""",
        selector,
    )


# ---------------------------------------------------------------------------- watch and history
@pytest.mark.parametrize("size", ["phone", "desk"])
def test_watch_plays_its_own_game_never_the_players(size: str, request: pytest.FixtureRequest) -> None:
    page: Page = request.getfixturevalue(size)
    p = page.open("?seed=4242&agent=greedy")
    mine = play_hints(page, 2)
    assert mine["turn"] == 2
    p.locator("[data-testid=mode-watch]").click()
    page.idle()
    assert page.state()["id"] != mine["id"] and page.state()["turn"] <= 1  # the agent's own game of the seed
    assert p.inner_text("#sheet-title") == "greedy's game"
    p.select_option("[data-testid=watch-speed]", "250")
    p.locator("[data-testid=watch-toggle]").click()
    p.wait_for_function("() => window.__nd.state.turn >= 2")
    p.locator("[data-testid=mode-play]").click()  # in the middle of a watched turn
    page.idle()
    p.wait_for_function("() => !window.__nd.watch.running && window.__nd.idle()")
    assert engine_actions(page, mine["id"]) == mine["actions"]  # the player's game as it was left
    st = page.state()
    assert st["id"] == mine["id"] and st["actions"] == mine["actions"] and st["turn"] == 2


def test_the_views_are_steps_of_the_browsers_history(desk: Page) -> None:
    p = desk.open("?seed=4243&agent=greedy")
    mine = play_hints(desk, 1)
    p.click("[data-testid=mode-replay]")
    desk.idle()
    assert "mode=replay" in p.url
    p.go_back()  # back to the game, not out of the app
    p.wait_for_function("() => window.__nd.mode === 'play' && window.__nd.idle()")
    assert "mode=" not in p.url and desk.state()["id"] == mine["id"]
    p.go_forward()  # the replay of that game again
    p.wait_for_function("() => window.__nd.mode === 'replay' && window.__nd.idle()")
    assert p.locator("[data-testid=replay-empty]").is_hidden()
    assert p.evaluate("() => window.__nd.replay.length") == mine["index"]
    p.click("[data-testid=mode-play]")
    desk.idle()
    assert desk.state()["id"] == mine["id"] and desk.state()["actions"] == mine["actions"]  # no new game


# ---------------------------------------------------------------------------- the analysis on a phone
def hit_here(page: Page, selector: str) -> bool:
    """Whether a tap at the middle of ``selector``, where it is now, reaches it."""
    return page.page.evaluate(
        """(selector) => { const el = document.querySelector(selector), r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return Boolean(hit) && (el === hit || el.contains(hit)); }""",
        selector,
    )


def tap_middle(page: Page, selector: str) -> None:
    """A finger's tap where the element is, after scrolling it just into sight (as a person does)."""
    box = page.page.evaluate(
        """(selector) => { const el = document.querySelector(selector); el.scrollIntoView({ block: "nearest" });
        const r = el.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; }""",
        selector,
    )
    page.page.touchscreen.tap(box["x"], box["y"])


def test_on_a_phone_the_analysis_covers_no_control_and_taps_reach_the_tiles(phone: Page) -> None:
    p = phone.open("?seed=4244&agent=greedy")
    st = play_hints(phone, 1)
    assert st["phase"] == "slide"
    p.locator("[data-testid=analyse]").tap()
    p.wait_for_selector("[data-testid=candidate-1]")
    controls = "#solo-board [data-tile].legal, #controls button, #bar button, #analysis-close"
    assert uncovered(phone, controls) == []
    p.evaluate("() => { const el = document.getElementById('analysis-wrap'); el.scrollTop = el.scrollHeight; }")
    assert hit_here(phone, "#analysis-close")  # its rows scrolled: Close still in sight, on top
    tile = st["legal"]["tiles"][-1]
    tap_middle(phone, f"[data-testid=tile-{tile['letter']}]")
    p.wait_for_function("(i) => window.__nd.state.index > i && window.__nd.idle()", arg=st["index"], timeout=5000)
    after = phone.state()
    assert after["actions"][st["index"]] == tile["action"]  # the tile slid, no row was played
    p.keyboard.press("Escape")  # and the analysis closes by key too (the turn moved on: it is closed)
    p.locator("[data-testid=analyse]").tap()
    p.wait_for_selector("[data-testid=candidate-0]")
    p.keyboard.press("Escape")
    assert p.locator("[data-testid=analysis-panel]").is_hidden()


def test_on_a_phone_watch_with_its_analysis_can_be_paused(phone: Page) -> None:
    p = phone.open("?mode=watch&seed=4245&agent=greedy")
    assert p.locator("[data-testid=watch-analyse]").is_checked()
    p.select_option("[data-testid=watch-speed]", "250")
    p.locator("[data-testid=watch-toggle]").tap()
    p.wait_for_function("() => window.__nd.state.turn >= 2 && document.querySelector('#analysis-wrap.open')")
    assert uncovered(phone, "#watch-bar button, #watch-bar select, #watch-bar input") == []
    tap_middle(phone, "[data-testid=watch-toggle]")
    p.wait_for_function("() => !window.__nd.watch.running && window.__nd.idle()")
    assert p.inner_text("[data-testid=watch-toggle]") == "Play"
    if p.locator("#analysis-wrap.open").count():  # closed in Watch, it stays closed for the turns to come
        tap_middle(phone, "[data-testid=analysis-close]")
        assert not p.locator("[data-testid=watch-analyse]").is_checked()


# ---------------------------------------------------------------------------- a tap drops only on the ghost
def tap_cell(page: Page, row: int, col: int) -> None:
    page.page.evaluate("() => window.scrollTo(0, 0)")
    at = page.page.evaluate("([r, c]) => window.__nd.cellCenter(r, c)", [row, col])
    page.page.touchscreen.tap(at["x"], at["y"])


def test_a_tap_far_from_the_piece_moves_it_and_only_a_tap_on_its_ghost_drops_it(phone: Page) -> None:
    p = phone.open("?seed=4246&agent=greedy")
    col = p.evaluate("() => window.__nd.ui.col")
    tap_cell(phone, 12, col)  # the 1's column, far above its cell
    phone.idle()
    assert phone.state()["index"] == 0 and "Tap the ghost" in p.inner_text("[data-testid=notice]")
    tap_cell(phone, 0, col)
    wait_index_past(phone, 0)
    assert phone.state()["sheet"]["values"][0][col] == 1

    actions, game = greedy_until(3, lambda g: g.phase is Phase.PLACE)  # an I to drop
    assert game.shape_face == "I"
    st = open_at(phone, 3, actions)
    for _ in range(2):  # the I lying down: four columns wide
        if len({c for _, c in p.evaluate("() => window.__nd.ghost().cells")}) == 4:
            break
        p.locator("[data-testid=rotate]").tap()
    tap_cell(phone, 12, 0)  # aims it at column 0
    phone.idle()
    ghost = p.evaluate("() => window.__nd.ghost()")
    assert sorted({c for _, c in ghost["cells"]}) == [0, 1, 2, 3] and phone.state()["index"] == st["index"]
    tap_cell(phone, 12, 1)  # over the ghost's columns, far above it: nothing drops
    phone.idle()
    assert phone.state()["index"] == st["index"] and p.evaluate("() => window.__nd.ghost().action") == ghost["action"]
    tap_cell(phone, *ghost["cells"][1])  # on the ghost
    assert wait_index_past(phone, st["index"])["pending_cells"] == ghost["cells"]


# ---------------------------------------------------------------------------- touch targets and words
def boxes(page: Page, selector: str) -> list[dict[str, float]]:
    return page.page.evaluate(
        "(s) => [...document.querySelectorAll(s)].map((el) => { const r = el.getBoundingClientRect();"
        " return { id: el.dataset.testid, x: r.x, y: r.y, width: r.width, height: r.height }; })",
        selector,
    )


def test_on_a_phone_the_tiles_and_the_drops_buttons_are_touch_targets_of_44_px(phone: Page) -> None:
    p = phone.open("?seed=1&agent=greedy")  # its first turn rolls a star on the shape die
    assert all(b["width"] >= TARGET and b["height"] >= TARGET for b in boxes(phone, "#controls button"))
    p.keyboard.press("Enter")
    st = wait_index_past(phone, 0)
    tiles = boxes(phone, "#solo-board [data-tile]")
    assert len(tiles) == 5 and all(b["width"] >= TARGET and b["height"] >= TARGET for b in tiles), tiles
    while st["phase"] != "place":
        p.locator(f"[data-testid=tile-{st['legal']['tiles'][0]['letter']}]").tap()
        st = wait_index_past(phone, st["index"])
    controls = {b["id"]: b for b in boxes(phone, "#controls button")}
    assert {"shape-I", "rotate", "rotate-back", "flip", "left", "drop", "right"} <= set(controls)
    assert all(b["width"] >= TARGET and b["height"] >= TARGET for b in controls.values()), controls
    assert controls["left"]["y"] == controls["drop"]["y"] == controls["right"]["y"]  # "→" beside "←"
    assert controls["rotate"]["y"] == controls["flip"]["y"]
    p.locator(f"[data-testid=shape-{st['shape_face'] if st['shape_face'] != '*' else 'O'}]").tap()
    p.locator("[data-testid=drop]").tap()
    wait_index_past(phone, st["index"])
    words = p.inner_text("[data-testid=arrange-how]")
    assert "tap" in words and "type" not in words  # a phone has no keys to type on


def test_the_score_button_names_the_box_it_ticks(phone: Page) -> None:
    actions, game = greedy_until(5, lambda g: g.phase is Phase.COMBO and g.legal_mask()[g.layout.confirm])
    open_at(phone, 5, actions)
    values = {int(game.sheet.values[r, c]) for r, c in game.selection}
    kind, box = ("identical", "same") if len(values) == 1 else ("consecutive", "run")
    size = len(game.selection)
    assert phone.page.inner_text("[data-testid=confirm]") == f"Score {size} {kind} (the {box} box {size})"


def cell_box(page: Page, row: int, col: int) -> dict[str, float]:
    a = page.page.evaluate("([r, c]) => window.__nd.cellCenter(r, c)", [row, col])
    b = page.page.evaluate("([r, c]) => window.__nd.cellCenter(r, c + 1)", [row, col])
    half = (b["x"] - a["x"]) / 2
    return {"x": a["x"] - half, "y": a["y"] - half, "width": 2 * half, "height": 2 * half}


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"] + 0.5
        or b["x"] + b["width"] <= a["x"] + 0.5
        or a["y"] + a["height"] <= b["y"] + 0.5
        or b["y"] + b["height"] <= a["y"] + 0.5
    )


@pytest.mark.parametrize("size", ["phone", "desk"])
def test_the_star_value_picker_covers_no_cell(size: str, request: pytest.FixtureRequest) -> None:
    page: Page = request.getfixturevalue(size)
    actions, game = greedy_until(5, lambda g: g.phase is Phase.WILD)
    open_at(page, 5, actions)
    page.page.evaluate("() => window.scrollTo(0, 0)")
    picker = page.page.locator("[data-testid=wild-picker]").bounding_box()
    assert picker is not None
    cells = [cell_box(page, r, c) for r in range(game.rules.rows) for c in range(game.rules.cols)]
    assert not any(overlap(picker, cell) for cell in cells)
    page.page.locator("[data-testid=wild-3]").click()
    wait_index_past(page, len(actions))


def test_the_stars_own_slide_is_said(desk: Page) -> None:
    actions, game = greedy_until(3, lambda g: g.phase is Phase.PLACE)
    open_at(desk, 3, actions)
    letter = game.rules.letters[game.tiles.index(game.shape_face)]
    assert f"tile {letter} ({game.shape_face}) one notch" in desk.page.inner_text("[data-testid=notice]")


# ---------------------------------------------------------------------------- the desktop
def test_escape_closes_the_analysis_and_compare_draws_its_sheets_without_empty_panels(desk: Page) -> None:
    p = desk.open("?seed=4247&agent=greedy")
    p.click("[data-testid=analyse]")
    p.wait_for_selector("[data-testid=candidate-0]")
    p.keyboard.press("Escape")
    assert p.locator("[data-testid=analysis-panel]").is_hidden()
    p.click("[data-testid=mode-compare]")
    p.wait_for_function("() => window.__nd.compare.state && window.__nd.idle()")
    ratio = 534 / 600  # the sheet's drawing, width to height
    for selector in ("#sheet", "#compare-sheet", "#sheet-wrap", "#compare-wrap"):
        box = p.locator(selector).bounding_box()
        assert box["width"] / box["height"] > 0.9 * ratio, (selector, box)  # not a tall box round a small sheet
    assert p.locator("#sheet").bounding_box()["width"] > 400


def test_a_move_made_stale_by_another_tab_says_so(desk: Page) -> None:
    p = desk.open("?seed=4248&agent=greedy")
    st = play_hints(desk, 1)
    copy = p.evaluate("() => sessionStorage.getItem('numberdrop-web')")
    twin = Page(desk.page.context.browser, desk.live)  # the tab duplicated: its copy of the game
    try:
        twin.open("?seed=4248&agent=greedy")
        twin.page.evaluate("(copy) => sessionStorage.setItem('numberdrop-web', copy)", copy)
        twin.open("?seed=4248&agent=greedy")
        assert twin.state()["id"] == st["id"]
        tile = st["legal"]["tiles"][0]
        p.click(f"[data-testid=tile-{tile['letter']}]")  # played in the first tab
        wait_index_past(desk, st["index"])
        twin.page.click(f"[data-testid=tile-{st['legal']['tiles'][-1]['letter']}]")  # stale in the twin
        twin.page.wait_for_function("() => document.querySelector('[data-testid=error]').textContent !== ''")
        twin.idle()
        assert "another tab" in twin.page.inner_text("[data-testid=error]")
        assert twin.state()["actions"] == desk.state()["actions"]  # it shows the game as it stands
        assert [e for e in twin.errors if "409" not in e] == []  # the browser logs the refused request
    finally:
        twin.close()
