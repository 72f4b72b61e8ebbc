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
    p.evaluate("(own) => sessionStorage.setItem('numberdrop-web', JSON.stringify({ mode: 'play', own }))", copy)
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
    """The elements of ``selector`` that something else covers, each scrolled to the top and to the
    bottom of the screen in turn (where a finger meets it), by their test id."""
    return page.page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)].filter((el) => el.getClientRects().length)
        .flatMap((el) => ["start", "end"].map((block) => {
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
    mine = play_hints(page, 4)
    assert mine["turn"] == 4
    p.locator("[data-testid=mode-watch]").click()
    page.idle()
    assert page.state()["id"] != mine["id"] and page.state()["turn"] <= 1  # the agent's own game of the seed
    p.select_option("[data-testid=watch-speed]", "250")
    p.locator("[data-testid=watch-toggle]").click()
    p.wait_for_function("() => window.__nd.state.turn >= 6")
    p.locator("[data-testid=mode-play]").click()  # in the middle of a watched turn
    page.idle()
    p.wait_for_function("() => !window.__nd.watch.running && window.__nd.idle()")
    assert engine_actions(page, mine["id"]) == mine["actions"]  # the player's game as it was left
    st = page.state()
    assert st["id"] == mine["id"] and st["actions"] == mine["actions"] and st["turn"] == 4


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
