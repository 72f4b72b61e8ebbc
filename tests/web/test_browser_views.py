"""The page's explanations and views in a headless Chromium: an analysis that explains the agent's
choice, keys that act on the decision in front of the player, prompts and hints in the game's
words, why a game ended, every view at a phone's size, and the small faults once found (an empty
replay, the replay's seed, an impossible seed, the GO! label, the star's shape). The ``page``
fixture fails a test that met a JavaScript error."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web app needs the `web` extra")

from agents.cli.replay import Record
from agents.registry import make_policy
from numberdrop_env.engine.solo import SoloGame

from .conftest import Page
from .test_browser import wait_index_past

PHONE = (390, 844)


def analysed_problems(result: dict[str, Any]) -> tuple[bool, int]:
    """(the chosen row lacks a number of its columns, how many rows read like another)."""
    rows, columns = result["candidates"], result["columns"]
    chosen = [r for r in rows if r["chosen"]]
    lacks = len(chosen) != 1 or any(chosen[0].get(k) is None for k in columns)
    texts = [r["summary"] for r in rows]
    return lacks, len(texts) - len(set(texts))


def play_hint(page: Page) -> dict[str, Any]:
    index = page.state()["index"]
    page.page.click("[data-testid=play-hint]")
    return wait_index_past(page, index)


@pytest.mark.parametrize(("agent", "seed"), [("greedy", 3), ("greedy", 9), ("ntuple", 5)])
def test_the_analysis_explains_the_choice_and_no_two_rows_read_alike(page: Page, agent: str, seed: int) -> None:
    p = page.open(f"?seed={seed}&agent={agent}")
    for _ in range(4):
        st = play_hint(page)
        p.click("[data-testid=analyse]")
        p.wait_for_function("(i) => window.__nd.analysis && window.__nd.analysis.index === i", arg=st["index"])
        result = p.evaluate("() => window.__nd.analysis")
        assert analysed_problems(result) == (False, 0), result
        heads = p.locator("#analysis thead th[data-col]").all_inner_texts()
        assert heads and all(re.search("[a-z]{4}", h) for h in heads), heads  # words, not bare keys
        notes = p.inner_text("[data-testid=analysis-notes]")
        assert all(result["headings"][k]["explain"] in notes for k in result["columns"])
        assert p.inner_text("[data-testid=analysis-why]").startswith("\u2605")
        shown = p.locator("#analysis tbody td.what").all_inner_texts()
        assert shown == [r["summary"] for r in result["candidates"]]  # in full: nothing cut
        if st["over"]:
            break


def test_a_tap_on_an_analysis_row_previews_it_and_a_second_tap_plays_it(browser, live) -> None:
    phone = Page(browser, live, *PHONE, touch=True)
    try:
        p = phone.open("?seed=9&agent=greedy")
        st = play_hint(phone)
        p.locator("[data-testid=analyse]").tap()
        p.wait_for_selector("[data-testid=candidate-1]")
        rows = p.evaluate("() => window.__nd.analysis.candidates")
        p.locator("[data-testid=candidate-1]").tap()
        p.wait_for_function("() => document.querySelectorAll('#overlay .hover').length > 0")
        assert phone.state()["index"] == st["index"]  # previewed, not played
        assert on_screen(p, "[data-testid=candidate-1]") and visible_share(p, "[data-testid=sheet]") > 0.9
        p.locator("[data-testid=candidate-1]").tap()
        after = wait_index_past(phone, st["index"])
        assert after["actions"][st["index"] : st["index"] + len(rows[1]["actions"])] == rows[1]["actions"]
        assert phone.errors == []
    finally:
        phone.close()


def test_enter_acts_on_the_decision_never_on_the_button_clicked_before(page: Page) -> None:
    p = page.open("?seed=5&agent=greedy")
    hints: list[str] = []
    p.on("request", lambda r: hints.append(r.url) if r.url.endswith("/hint") else None)
    p.click("[data-testid=hint]")
    p.wait_for_function("() => window.__nd.hint && window.__nd.idle()")
    asked = len(hints)
    st = page.state()
    assert st["phase"] == "start"
    p.keyboard.press("Enter")  # writes the 1, and does not ask for the hint again
    st = wait_index_past(page, st["index"])
    assert len(hints) == asked
    while st["phase"] not in ("place", "block"):
        st = page.state()
        if st["phase"] in ("slide", "star_slide"):
            p.click(f"[data-testid=tile-{st['legal']['tiles'][0]['letter']}]")
            st = wait_index_past(page, st["index"])
    p.click("[data-testid=undo]")  # back to the slide ...
    p.wait_for_function("(i) => window.__nd.state.index < i && window.__nd.idle()", arg=st["index"])
    st = page.state()
    while st["phase"] in ("slide", "star_slide"):  # ... slid again by key ...
        p.keyboard.press(st["legal"]["tiles"][0]["letter"].lower())
        st = wait_index_past(page, st["index"])
    assert st["phase"] in ("place", "block")
    p.keyboard.press("Enter")  # ... then Enter drops: it does not undo again
    assert wait_index_past(page, st["index"])["index"] > st["index"]


def test_prompts_and_hints_speak_the_games_words(page: Page) -> None:
    p = page.open("?seed=5&agent=greedy")
    assert p.inner_text("[data-testid=prompt]").startswith("Write the 1")
    seen = {}
    for _ in range(40):
        st = page.state()
        if st["over"] or len(seen) == 4:
            break
        prompt = p.inner_text("[data-testid=prompt]")
        if st["phase"] in ("slide", "place", "arrange", "combo"):
            seen[st["phase"]] = prompt
        if st["phase"] == "slide":
            p.click("[data-testid=hint]")
            p.wait_for_function("() => window.__nd.hint && window.__nd.idle()")
            text = p.inner_text("[data-testid=hint-text]")
            assert text.startswith("greedy: slide ") and not re.search(r"r\d+c\d+", text), text
            assert p.locator("#overlay .hintcell").count() > 0  # the hint drawn as a ghost
            p.click(f"[data-testid=tile-{st['legal']['tiles'][0]['letter']}]")
            wait_index_past(page, st["index"])
            continue
        if st["phase"] == "combo" and st["legal"]["confirm"] is None:
            p.keyboard.press("p")
            wait_index_past(page, st["index"])
            continue
        if st["phase"] == "arrange":
            p.keyboard.type("".join(str(v) for v in st["sorted_dice"]).replace("*", "5"))
            wait_index_past(page, st["index"])
            continue
        if st["phase"] in ("place", "block", "star_slide"):
            p.keyboard.press("Enter" if st["phase"] != "star_slide" else st["legal"]["tiles"][0]["letter"].lower())
            wait_index_past(page, st["index"])
            continue
        play_hint(page)
    assert seen.get("slide") == "Slide a tile"
    assert re.fullmatch(r"(Drop your [IOTLS]: choose where|Star: choose a shape and where to drop it)", seen["place"])
    assert seen.get("arrange") == "Place the dice"
    assert seen.get("combo", "Score a combination or pass") == "Score a combination or pass"


def greedy_record(seed: int, folder: Path) -> tuple[Path, SoloGame]:
    game, policy = SoloGame(seed=seed), make_policy("greedy")
    policy.reset(seed)
    actions = []
    while not game.is_over:
        actions.append(int(policy.act(game, game.legal_mask())))
        game.step(actions[-1])
    path = folder / f"game{seed}.json"
    path.write_text(json.dumps(Record(actions, seed=seed, score=game.score()).to_dict()))
    return path, game


def load_record(page: Page, path: Path, length: int) -> None:
    page.page.set_input_files("[data-testid=replay-file]", str(path))
    page.page.wait_for_function(
        "(n) => window.__nd.replay.length === n && window.__nd.replay.at === 0 && window.__nd.idle()", arg=length
    )


def test_an_empty_replay_asks_for_a_file_and_a_replay_shows_its_seed_and_why_it_ended(page: Page, tmp_path) -> None:
    p = page.open("?mode=replay")
    assert p.locator("[data-testid=replay-empty]").is_visible()
    assert "record file" in p.inner_text("[data-testid=prompt]")
    assert p.locator("[data-testid=replay-next]").is_disabled()
    assert p.locator("[data-testid=save-record]").is_disabled()  # nothing to save yet
    path, game = greedy_record(4, tmp_path)
    load_record(page, path, len(Record.from_dict(json.loads(path.read_text())).actions))
    assert p.locator("[data-testid=replay-empty]").is_hidden()
    assert p.input_value("[data-testid=seed]") == "4"  # the replayed game's seed
    p.click("[data-testid=replay-last]")
    p.wait_for_selector("[data-testid=game-over]")
    reason = p.inner_text("[data-testid=over-reason]")
    assert not reason.endswith(("!.", "..")), reason  # seed 4's game ends at GO!: one stop
    assert p.locator("[data-testid=save-record]").is_enabled()
    if game.sheet.penalties.any():
        assert "Game Over line" in reason
    elif (game.notches >= game.rules.last_notch).all():
        assert "GO!" in reason
    else:
        assert "could not be dropped" in reason


def test_a_seed_too_large_for_the_server_says_so_and_a_game_is_played(page: Page) -> None:
    p = page.open(f"?seed={2**64}&agent=greedy")
    assert "is not a whole number from 0 to" in p.inner_text("[data-testid=error]")
    st = page.state()
    assert st["seed"] is not None and p.input_value("[data-testid=seed]") == str(st["seed"])
    assert p.locator("#sheet .cell").count() > 0
    p.fill("[data-testid=seed]", str(2**64))
    p.click("[data-testid=new-game]")
    assert "the seed must be" in p.inner_text("[data-testid=error]") and page.state()["id"] == st["id"]


def boxes_overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


STAR_SEED = 1
"""A seed whose first turn rolls a star on the shape die."""


def test_the_go_label_clears_tile_e_and_the_stars_shape_is_highlighted(page: Page) -> None:
    p = page.open(f"?seed={STAR_SEED}&agent=greedy")
    go = p.locator("[data-testid=go-label]").bounding_box()
    tile = p.locator("[data-testid=tile-E] rect.body").bounding_box()
    p.keyboard.press("Enter")
    st = wait_index_past(page, 0)
    assert st["shape_face"] == "*"
    last = p.evaluate("() => window.__nd.state.notches")  # tile E at its last notch would be at GO!'s height
    assert last is not None and not boxes_overlap(go, {**tile, "y": go["y"], "height": go["height"]})
    while st["phase"] != "place":
        p.click(f"[data-testid=tile-{st['legal']['tiles'][0]['letter']}]")
        st = wait_index_past(page, st["index"])
    shapes = sorted({o["shape"] for o in st["legal"]["placements"]})
    assert len(shapes) > 1
    p.click(f"[data-testid=shape-{shapes[-1]}]")
    chosen = p.locator(f"[data-testid=shape-{shapes[-1]}]")
    other = p.locator(f"[data-testid=shape-{shapes[0]}]")
    assert chosen.get_attribute("aria-pressed") == "true" and other.get_attribute("aria-pressed") == "false"
    style = "(el) => getComputedStyle(el).backgroundColor"
    assert chosen.evaluate(style) != other.evaluate(style)  # it looks chosen
    assert p.evaluate("() => window.__nd.ghost().shape") == shapes[-1]


def on_screen(page: Any, selector: str, width: int = PHONE[0], height: int = PHONE[1]) -> bool:
    box = page.locator(selector).first.bounding_box()
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= width + 0.5
        and (box["y"] + box["height"] <= height + 0.5)
    )


def visible_share(page: Any, selector: str, height: int = PHONE[1]) -> float:
    """The share of an element's height inside the screen and not under the analysis panel."""
    box = page.locator(selector).bounding_box()
    panel = page.locator("[data-testid=analysis-panel]")
    bottom = height
    if panel.is_visible() and panel.evaluate("(el) => getComputedStyle(el).position") == "fixed":
        bottom = panel.bounding_box()["y"]
    seen = min(box["y"] + box["height"], bottom) - max(box["y"], 0)
    return max(0.0, seen) / box["height"]


def test_every_view_is_usable_on_a_phone_with_the_sheet_in_sight(browser, live, tmp_path) -> None:
    phone = Page(browser, live, *PHONE)
    try:
        p = phone.open("?seed=9&agent=greedy")
        play_hint(phone)
        p.click("[data-testid=analyse]")  # the analysis: a panel under the sheet
        p.wait_for_selector("[data-testid=candidate-1]")
        p.evaluate("() => window.scrollTo(0, 0)")
        assert on_screen(p, "[data-testid=candidate-0]") and on_screen(p, "[data-testid=analysis-close]")
        assert visible_share(p, "[data-testid=sheet]") > 0.9
        p.hover("[data-testid=candidate-1]")
        p.wait_for_function("() => document.querySelectorAll('#overlay .hover').length > 0")
        p.click("[data-testid=analysis-close]")
        assert p.locator("[data-testid=analysis-panel]").is_hidden()

        p.click("[data-testid=mode-compare]")  # compare: one sheet at a time, by its tab
        phone.idle()
        p.wait_for_function("() => window.__nd.compare.state && window.__nd.idle()")
        assert on_screen(p, "[data-testid=tab-agent]") and visible_share(p, "[data-testid=sheet]") > 0.9
        assert p.locator("[data-testid=compare-sheet]").is_hidden()
        p.click("[data-testid=tab-agent]")
        assert visible_share(p, "[data-testid=compare-sheet]") > 0.9 and p.locator("[data-testid=sheet]").is_hidden()
        p.click("[data-testid=tab-mine]")
        assert on_screen(p, "[data-testid=play-hint]") and visible_share(p, "[data-testid=sheet]") > 0.9

        p.click("[data-testid=mode-replay]")  # replay: its controls right under the sheet
        path, _ = greedy_record(4, tmp_path)
        load_record(phone, path, len(json.loads(path.read_text())["actions"]))
        p.evaluate("() => window.scrollTo(0, 0)")
        for step in ("replay-prev", "replay-next", "replay-next-turn", "replay-last"):
            assert on_screen(p, f"[data-testid={step}]"), step
        assert visible_share(p, "[data-testid=sheet]") > 0.9
        p.click("[data-testid=replay-last]")  # the game-over table beside the finished sheet
        p.wait_for_selector("[data-testid=game-over]")
        assert on_screen(p, "[data-testid=game-over]") and on_screen(p, "[data-testid=high-score-you]")
        assert visible_share(p, "[data-testid=sheet]") > 0.9
        assert p.evaluate("() => document.documentElement.scrollWidth") <= PHONE[0]
        assert phone.errors == []
    finally:
        phone.close()
