"""Latencies of the web app (``numberdrop-web``), concurrent clients, and the docs' screenshots.

``python -m benchmarks.web_latency [--games N] [--screenshots docs/web] [--out results/web_latency.json]``;
``--only-screenshots`` takes the pictures alone (``--sizes 390x844`` at a phone's size only).
The app is served by uvicorn on a free port of 127.0.0.1, in this process. Measured:

- over HTTP (httpx, one client): a decision (``POST .../actions``; ``decision_ahead`` with the
  states of the next decision's options sent ahead, as the page asks), the greedy agent's hint
  (``POST .../hint``) and its analysis, milliseconds per request, median and 95th percentile;
- in the page (a headless Chromium through Playwright, the system's ``/usr/bin/chromium``):
  from a click to the drawn result, as the page itself records it (``window.__nd.timings``):
  a hint drawn as a ghost, decisions played and drawn (a slide by click, a drop and an
  arrangement by key), a hinted turn played;
- ten clients playing random games over HTTP at once: requests, errors, requests a second;

and, with ``--screenshots``, a picture of each view at 1280x800 and at 390x844 (a phone).
The targets of the issue: a click to a drawn greedy hint under 50 ms, a decision under 20 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from agents.cli.common import HelpFormatter, plain_text
from numberdrop_web.app import create_app
from numberdrop_web.views import options_actions

CHROMIUM = Path("/usr/bin/chromium")
SIZES = ((1280, 800), (390, 844))


class Server:
    """The app on uvicorn in a thread, on a free port."""

    def __init__(self) -> None:
        import uvicorn

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def summary(ms: list[float]) -> dict[str, float]:
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 2),
        "p95_ms": round(float(np.percentile(ms, 95)), 2),
        "max_ms": round(max(ms), 2),
    }


def server_ms(response: Any) -> float:
    """The server's own time on a request (its ``Server-Timing`` header)."""
    return float(response.headers["server-timing"].split("dur=")[1])


def api_latencies(url: str, games: int) -> dict[str, Any]:
    """One client: random decisions, then the greedy's hint and analysis at each turn's start
    (round trips, and the server's own time on each)."""
    import httpx

    trips: dict[str, list[float]] = {"decision": [], "decision_ahead": [], "greedy_hint": [], "greedy_analysis": []}
    served: dict[str, list[float]] = {kind: [] for kind in trips}
    with httpx.Client(base_url=url, timeout=120) as client:
        warm = client.post("/api/games", json={"seed": 999, "actions": [0]}).json()  # loads the compiled planner
        client.post(f"/api/games/{warm['id']}/analysis", json={"wait": 100})
        for seed in range(games):
            rng = np.random.default_rng(seed)
            state = client.post("/api/games", json={"seed": seed, "auto": True}).json()
            gid = state["id"]
            kind = "decision_ahead" if seed % 2 else "decision"  # what the page asks: the next decision's states too
            while not state["over"]:
                if state["phase"] == "slide":
                    t = time.perf_counter()
                    r = client.post(f"/api/games/{gid}/hint", json={"wait": 10})
                    trips["greedy_hint"].append(1000 * (time.perf_counter() - t))
                    served["greedy_hint"].append(server_ms(r))
                    job = r.json()
                    assert job["status"] == "done", job
                    t = time.perf_counter()
                    r = client.post(f"/api/games/{gid}/analysis", json={"wait": 10})
                    trips["greedy_analysis"].append(1000 * (time.perf_counter() - t))
                    served["greedy_analysis"].append(server_ms(r))
                action = int(rng.choice(options_actions(state["legal"])))
                t = time.perf_counter()
                body = {"action": action, "expect": state["index"], "auto": True, "ahead": kind == "decision_ahead"}
                r = client.post(f"/api/games/{gid}/actions", json=body)
                trips[kind].append(1000 * (time.perf_counter() - t))
                served[kind].append(server_ms(r))
                state = r.json()
    return {
        "round_trip": {k: summary(v) for k, v in trips.items()},
        "server": {k: summary(v) for k, v in served.items()},
    }


def concurrent_clients(url: str, clients: int = 10, games: int = 30) -> dict[str, Any]:
    """``clients`` threads, each with its own connection, playing random games to their end."""
    import httpx

    counts = {"requests": 0, "errors": 0, "5xx": 0}
    lock = threading.Lock()

    def play(seed: int) -> None:
        rng = np.random.default_rng(seed)
        with httpx.Client(base_url=url, timeout=60) as client:
            state = client.post("/api/games", json={"seed": seed, "auto": True}).json()
            n, bad, server = 1, 0, 0
            while not state["over"]:
                r = client.post(
                    f"/api/games/{state['id']}/actions",
                    json={"action": int(rng.choice(options_actions(state["legal"]))), "auto": True},
                )
                n, bad, server = n + 1, bad + (r.status_code != 200), server + (r.status_code >= 500)
                state = r.json()
            with lock:
                counts["requests"] += n
                counts["errors"] += bad
                counts["5xx"] += server

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(play, range(1000, 1000 + games)))
    seconds = time.perf_counter() - start
    return {"clients": clients, "games": games, **counts, "requests_per_s": round(counts["requests"] / seconds, 1)}


def page_latencies(url: str, seeds: tuple[int, ...] = (21, 22, 23)) -> dict[str, Any]:
    """Click to drawn, in a headless Chromium: hints, hinted turns and decisions of one's own."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM))
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        timings: list[dict[str, Any]] = []
        for seed in seeds:
            page.goto(f"{url}/?seed={seed}&agent=greedy")
            _wait_idle(page)
            while not page.evaluate("() => window.__nd.state.over"):
                page.click("[data-testid=hint]")
                _wait_idle(page)
                if _own_decisions(page):
                    page.click("[data-testid=hint]")  # the rest of the turn, from where it stands
                    _wait_idle(page)
                index = page.evaluate("() => window.__nd.state.index")
                page.click("[data-testid=play-hint]")
                page.wait_for_function("(i) => window.__nd.state.index > i && window.__nd.idle()", arg=index)
            timings += page.evaluate("() => window.__nd.timings")
        browser.close()
    by_kind: dict[str, list[float]] = {}
    for t in timings:
        by_kind.setdefault(t["kind"], []).append(t["ms"])
    return {kind: summary(ms) for kind, ms in sorted(by_kind.items())}


def _wait_idle(page: Any) -> None:
    page.wait_for_function("() => window.__nd && window.__nd.state && window.__nd.idle()")


def _own_decisions(page: Any) -> bool:
    """A turn started with a slide is played by the page's own controls up to its combinations:
    slides by click (the first tile offered), drops by key (where the ghost is), arrangements
    by typing the dice. Whether any decision was made."""
    st = page.evaluate("() => window.__nd.state")
    turn, made = st["turn"], False
    while st["phase"] in ("slide", "place", "arrange") and st["turn"] == turn and not st["over"]:
        if st["phase"] == "slide":
            page.click(f"[data-testid=tile-{st['legal']['tiles'][0]['letter']}]")
        elif st["phase"] == "place":
            page.keyboard.press("Enter")
        else:
            for v in st["sorted_dice"]:
                page.keyboard.press(str(v))
        _wait_idle(page)
        now = page.evaluate("() => window.__nd.state")
        if now["index"] == st["index"]:  # a key that played nothing (no drop where the ghost is)
            break
        st, made = now, True
    return made and not st["over"]


def screenshots(url: str, folder: Path, sizes: tuple[tuple[int, int], ...] = SIZES) -> list[str]:
    """Each view at each size: play with a hint, the analysis hovered, watch, replay, compare, game over."""
    from playwright.sync_api import sync_playwright

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM))
        for width, height in sizes:
            page = browser.new_page(viewport={"width": width, "height": height})

            def shot(name: str, page: Any = page, width: int = width) -> None:
                path = folder / f"{name}_{width}.png"
                if width < 500:  # a phone's view as it opens: the sheet at the top
                    page.evaluate("() => window.scrollTo(0, 0)")
                page.screenshot(path=str(path))
                written.append(str(path))

            page.goto(f"{url}/?seed=7&agent=greedy")
            _wait_idle(page)
            for _ in range(5):
                page.click("[data-testid=play-hint]")
                _wait_idle(page)
            letter = page.evaluate("() => window.__nd.state.legal.tiles[0].letter")
            page.click(f"[data-testid=tile-{letter}]")
            _wait_idle(page)
            while page.evaluate("() => window.__nd.state.phase") not in ("place", "block"):
                page.click("[data-testid=play-hint]")
                _wait_idle(page)
            at = page.evaluate("() => window.__nd.cellCenter(12, 3)")
            page.mouse.move(at["x"], at["y"])
            shot("play")
            page.click("[data-testid=analyse]")
            page.wait_for_selector("[data-testid=candidate-1]")
            page.hover("[data-testid=candidate-1]")
            shot("analysis")
            page.goto(f"{url}/?mode=compare&seed=7&agent=greedy")
            _wait_idle(page)
            for _ in range(6):
                page.click("[data-testid=play-hint]")
                _wait_idle(page)
            shot("compare")
            if page.locator("[data-testid=tab-agent]").is_visible():  # a phone: the agent's sheet on its tab
                page.click("[data-testid=tab-agent]")
                shot("compare_agent")
            page.goto(f"{url}/?mode=watch&seed=7&agent=greedy")
            _wait_idle(page)
            page.select_option("[data-testid=watch-speed]", "0")
            page.click("[data-testid=watch-toggle]")
            page.wait_for_function("() => window.__nd.state.turn >= 8")
            page.click("[data-testid=watch-toggle]")
            _wait_idle(page)
            shot("watch")
            page.click("[data-testid=watch-toggle]")
            page.wait_for_selector("[data-testid=game-over]", timeout=120_000)
            shot("game_over")
            page.click("[data-testid=mode-replay]")
            _wait_idle(page)
            page.click("[data-testid=replay-first]")
            for _ in range(6):
                page.click("[data-testid=replay-next-turn]")
                _wait_idle(page)
            shot("replay")
            page.close()
        browser.close()
    return written


def viewport_sizes(text: str) -> tuple[tuple[int, int], ...]:
    """``1280x800,390x844`` as ``((1280, 800), (390, 844))``."""
    sizes = []
    for part in text.split(","):
        width, sep, height = part.strip().partition("x")
        if not sep or not width.isdigit() or not height.isdigit() or int(width) < 1 or int(height) < 1:
            raise argparse.ArgumentTypeError(f"a size is WIDTHxHEIGHT in pixels (390x844), got {part.strip()!r}")
        sizes.append((int(width), int(height)))
    return tuple(sizes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.web_latency", description=plain_text(__doc__), formatter_class=HelpFormatter
    )
    parser.add_argument("--games", type=int, default=6, help="random games for the HTTP latencies")
    parser.add_argument("--out", type=Path, default=Path("results/web_latency.json"), help="where to write the results")
    parser.add_argument("--screenshots", type=Path, metavar="DIR", help="write each view's picture here")
    parser.add_argument(
        "--sizes",
        type=viewport_sizes,
        default=SIZES,
        help="the pictures' viewports, WIDTHxHEIGHT,... (1280x800,390x844)",
    )
    parser.add_argument(
        "--only-screenshots", action="store_true", help="take the pictures and measure nothing (no results file)"
    )
    args = parser.parse_args(argv)
    if args.only_screenshots:
        if args.screenshots is None:
            parser.error("--only-screenshots needs --screenshots DIR")
        if not CHROMIUM.exists():
            parser.error(f"no Chromium at {CHROMIUM}: apt-get install chromium")
        server = Server()
        try:
            print(f"screenshots into {args.screenshots} ...", flush=True)
            for path in screenshots(server.url, args.screenshots, args.sizes):
                print(path, flush=True)
        finally:
            server.stop()
        return 0
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    server = Server()
    try:
        print("HTTP latencies of one client ...", flush=True)
        results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "load_average_1min": load}}
        results["http"] = api_latencies(server.url, args.games)
        print("ten concurrent clients ...", flush=True)
        results["concurrent"] = concurrent_clients(server.url)
        if CHROMIUM.exists():
            print("click to drawn, in Chromium ...", flush=True)
            results["page"] = page_latencies(server.url)
            if args.screenshots:
                print(f"screenshots into {args.screenshots} ...", flush=True)
                results["screenshots"] = screenshots(server.url, args.screenshots, args.sizes)
        else:
            print(f"no Chromium at {CHROMIUM}: the page's latencies and the screenshots are left out", flush=True)
    finally:
        server.stop()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
