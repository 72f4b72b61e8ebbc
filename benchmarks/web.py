"""The web app measured on uvicorn in this process (``docs/web.md``): ``latency`` (HTTP round
trips, ten concurrent clients, click to drawn in Chromium; ``results/web_latency.json``),
``screenshots DIR`` (each view at each size), ``memory`` (resident memory per hinted game),
``fairness`` (hints behind a flood of analyses), ``analysis`` (chosen rows without numbers, rows alike).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import statistics
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

import numberdrop_web.app as web
from agents.cli.common import HelpFormatter, plain_text
from numberdrop_web.analysis import AgentLine, Job
from numberdrop_web.policies import line_of
from numberdrop_web.sessions import GameSession
from numberdrop_web.views import options_actions

CHROMIUM = Path("/usr/bin/chromium")


@contextmanager
def served() -> Iterator[Any]:
    """An httpx client of the app on uvicorn in a thread; on leaving, the server stops and its jobs end."""
    import httpx
    import uvicorn

    app = web.create_app()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(10)
        app.state.jobs.join(60)  # running jobs stop at their next step


def timed(client: Any, path: str, body: dict[str, Any]) -> tuple[float, float, dict[str, Any]]:
    """A POST's round trip and the server's own time on it (``Server-Timing``), in ms, and its answer."""
    start = time.perf_counter()
    r = client.post(path, json=body)
    return 1000 * (time.perf_counter() - start), float(r.headers["server-timing"].split("dur=")[1]), r.json()


def new_game(client: Any, seed: int, **body: Any) -> dict[str, Any]:
    return client.post("/api/games", json={"seed": seed, **body}).json()


def random_action(rng: np.random.Generator, state: dict[str, Any]) -> int:
    return int(rng.choice(options_actions(state["legal"])))


def summary(ms: list[float]) -> dict[str, float]:
    median, p95 = statistics.median(ms), float(np.percentile(ms, 95))
    return {"n": len(ms), "median_ms": round(median, 2), "p95_ms": round(p95, 2), "max_ms": round(max(ms), 2)}


def api_latencies(client: Any, games: int) -> dict[str, Any]:
    """One client: random decisions, and the greedy's hint and analysis at each turn's start."""
    kinds = ("decision", "decision_ahead", "greedy_hint", "greedy_analysis")
    trips, own = {k: [] for k in kinds}, {k: [] for k in kinds}

    def measure(kind: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
        trip, spent, answer = timed(client, path, body)
        trips[kind].append(trip)
        own[kind].append(spent)
        return answer

    client.post(f"/api/games/{new_game(client, 999, actions=[0])['id']}/analysis", json={"wait": 100})  # warm
    for seed in range(games):
        rng, state = np.random.default_rng(seed), new_game(client, seed, auto=True)
        path = f"/api/games/{state['id']}"
        kind = "decision_ahead" if seed % 2 else "decision"  # what the page asks: the next decision's states too
        while not state["over"]:
            if state["phase"] == "slide":
                job = measure("greedy_hint", f"{path}/hint", {"wait": 10})
                assert job["status"] == "done", job
                measure("greedy_analysis", f"{path}/analysis", {"wait": 10})
            body = {"action": random_action(rng, state), "expect": state["index"], "auto": True}
            state = measure(kind, f"{path}/actions", {**body, "ahead": kind == "decision_ahead"})
    return {"round_trip": {k: summary(v) for k, v in trips.items()}, "server": {k: summary(v) for k, v in own.items()}}


def concurrent_clients(client: Any, clients: int = 10, games: int = 30) -> dict[str, Any]:
    """``clients`` threads, each with its own connection, playing random games to their end."""
    import httpx

    def play(seed: int) -> list[int]:
        rng = np.random.default_rng(seed)
        with httpx.Client(base_url=client.base_url, timeout=60) as own:
            state, codes = new_game(own, seed, auto=True), [200]
            while not state["over"]:
                body = {"action": random_action(rng, state), "auto": True}
                r = own.post(f"/api/games/{state['id']}/actions", json=body)
                codes.append(r.status_code)
                state = r.json()
        return codes

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        codes = np.concatenate(list(pool.map(play, range(1000, 1000 + games))))
    rate = round(len(codes) / (time.perf_counter() - start), 1)
    counts = {"requests": len(codes), "errors": int(np.sum(codes != 200)), "5xx": int(np.sum(codes >= 500))}
    return {"clients": clients, "games": games, **counts, "requests_per_s": rate}


@contextmanager
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM))
        yield chromium
        chromium.close()


def idle(page: Any) -> None:
    page.wait_for_function("() => window.__nd && window.__nd.state && window.__nd.idle()")


def click(page: Any, testid: str, times: int = 1) -> None:
    for _ in range(times):
        page.click(f"[data-testid={testid}]")
        idle(page)


def state(page: Any) -> dict[str, Any]:
    return page.evaluate("() => window.__nd.state")


def page_latencies(url: Any, seeds: tuple[int, ...] = (21, 22, 23)) -> dict[str, Any]:
    """Click to drawn, in Chromium: hints, hinted turns and decisions of one's own."""
    by_kind: dict[str, list[float]] = {}
    with browser() as chromium:
        page = chromium.new_page(viewport={"width": 1280, "height": 800})
        for seed in seeds:
            page.goto(f"{url}?seed={seed}&agent=greedy")
            idle(page)
            while not state(page)["over"]:
                click(page, "hint")
                if own_decisions(page):
                    click(page, "hint")  # the rest of the turn, from where it stands
                st = state(page)
                if not st["over"]:  # a drop of one's own may have ended the game
                    page.click("[data-testid=play-hint]")
                    page.wait_for_function("(i) => window.__nd.state.index > i && window.__nd.idle()", arg=st["index"])
            for t in page.evaluate("() => window.__nd.timings"):
                by_kind.setdefault(t["kind"], []).append(t["ms"])
    return {kind: summary(ms) for kind, ms in sorted(by_kind.items())}


def own_decisions(page: Any) -> bool:
    """Plays a turn up to its combinations with the page's own controls (click, Enter, typed dice);
    whether any decision was made."""
    st, made = state(page), False
    turn = st["turn"]
    while st["phase"] in ("slide", "place", "arrange") and st["turn"] == turn and not st["over"]:
        if st["phase"] == "slide":
            page.click(f"[data-testid=tile-{st['legal']['tiles'][0]['letter']}]")
        elif st["phase"] == "place":
            page.keyboard.press("Enter")
        else:
            for v in st["sorted_dice"]:
                page.keyboard.press(str(v))
        idle(page)
        now = state(page)
        if now["index"] == st["index"]:  # a key that played nothing (no drop where the ghost is)
            break
        st, made = now, True
    return made and not st["over"]


def screenshots(args: argparse.Namespace) -> list[str]:
    """Each view at each size: play with a hint, the analysis hovered, compare, watch, game over, replay."""
    args.folder.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    with served() as client, browser() as chromium:
        for width, height in args.sizes:
            page = chromium.new_page(viewport={"width": width, "height": height})

            def shot(name: str, page: Any = page, width: int = width) -> None:
                if width < 500:  # a phone's view as it opens: the sheet at the top
                    page.evaluate("() => window.scrollTo(0, 0)")
                written.append(str(args.folder / f"{name}_{width}.png"))
                page.screenshot(path=written[-1])

            def goto(mode: str, page: Any = page) -> None:
                page.goto(f"{client.base_url}?{mode}seed=7&agent=greedy")
                idle(page)

            goto("")
            click(page, "play-hint", 5)
            click(page, f"tile-{state(page)['legal']['tiles'][0]['letter']}")
            while state(page)["phase"] not in ("place", "block"):
                click(page, "play-hint")
            at = page.evaluate("() => window.__nd.cellCenter(12, 3)")
            page.mouse.move(at["x"], at["y"])
            shot("play")
            page.click("[data-testid=analyse]")
            page.hover("[data-testid=candidate-1]")  # waits for it
            shot("analysis")
            goto("mode=compare&")
            click(page, "play-hint", 6)
            shot("compare")
            if page.locator("[data-testid=tab-agent]").is_visible():  # a phone: the agent's sheet on its tab
                page.click("[data-testid=tab-agent]")
                shot("compare_agent")
            goto("mode=watch&")
            page.select_option("[data-testid=watch-speed]", "0")
            page.click("[data-testid=watch-toggle]")
            page.wait_for_function("() => window.__nd.state.turn >= 8")
            click(page, "watch-toggle")
            shot("watch")
            page.click("[data-testid=watch-toggle]")
            page.wait_for_selector("[data-testid=game-over]", timeout=120_000)
            shot("game_over")
            click(page, "mode-replay")
            page.click("[data-testid=replay-first]")
            click(page, "replay-next-turn", 6)
            shot("replay")
            page.close()
    return written


def latency(args: argparse.Namespace) -> dict[str, Any]:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "load_average_1min": load}}
    with served() as client:
        print("HTTP latencies of one client, then ten concurrent clients ...", flush=True)
        results["http"] = api_latencies(client, args.games)
        results["concurrent"] = concurrent_clients(client)
        if CHROMIUM.exists():
            print("click to drawn, in Chromium ...", flush=True)
            results["page"] = page_latencies(client.base_url)
        else:
            print(f"no Chromium at {CHROMIUM}: the page's latencies are left out", flush=True)
    return results


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        return int(next(x for x in f if x.startswith("VmRSS:")).split()[1]) / 1024


def memory(args: argparse.Namespace) -> dict[str, Any]:
    if args.per_game:
        web.line_of = functools.partial(line_of, kind=AgentLine)  # type: ignore[assignment]
    with served() as client:

        def hinted(seed: int) -> None:
            job = client.post(f"/api/games/{new_game(client, seed)['id']}/hint", json={"agent": args.agent, "wait": 30})
            assert job.json()["status"] == "done", job.json()

        for seed in range(8):  # warm: the compiled planner, and the agent in each worker thread
            hinted(10_000 + seed)
        gc.collect()
        before, start = rss_mb(), time.perf_counter()
        for seed in range(args.games):
            hinted(seed)
        gc.collect()
        after, seconds = rss_mb(), time.perf_counter() - start
    keys = ("rss_before_mb", "rss_after_mb", "growth_mb", "per_game_kb", "seconds")
    values = (before, after, after - before, 1024 * (after - before) / args.games, seconds)
    agents = "built per game" if args.per_game else "shared"
    return {"games": args.games, "agent": args.agent, "agents": agents} | dict(zip(keys, np.round(values, 1).tolist()))


def fairness(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"flood": args.flood}
    with served() as client:

        def game() -> str:
            return new_game(client, 0, actions=[0])["id"]

        def hint(agent: str) -> float | str:
            trip, _, job = timed(client, f"/api/games/{game()}/hint", {"agent": agent, "wait": 30})
            seconds = round(trip / 1000, 3)
            return seconds if job.get("status") == "done" else f"{job.get('status', job)} after {seconds} s"

        for _ in range(4):  # warm: the compiled planner, torch, and both agents
            hint("best")
        out["idle_greedy_hint_s"] = hint("greedy")
        for gid in [game()] * args.flood:  # one game's flood: one job of it runs, the rest replaced
            client.post(f"/api/games/{gid}/analysis", json={"agent": "best", "wait": 0})
        out["greedy_hint_behind_flood_of_one_game_s"] = hint("greedy")
        out["best_hint_behind_flood_of_one_game_s"] = hint("best")
        for _ in range(args.flood):  # a flood over as many games
            client.post(f"/api/games/{game()}/analysis", json={"agent": "best", "wait": 0})
        out["greedy_hint_behind_flood_of_many_games_s"] = hint("greedy")
    return out


def analysis(args: argparse.Namespace) -> dict[str, Any]:
    """Each agent's game on each seed through the app's ``SharedLine`` (``numberdrop-evaluate``'s game)."""
    report: dict[str, dict[str, Any]] = {}
    for agent in args.agents.split(","):
        t = report[agent] = {"turns": 0, "lacking": 0, "alike": 0, "seconds": 0.0}
        for seed in map(int, args.seeds.split(",")):
            session = GameSession(seed=seed, agent=agent)
            line, turns, start = line_of(session, agent), 0, time.perf_counter()
            while not session.game.is_over and turns < args.turns:
                result = line.analyse(session.game.clone(), Job("analysis"))
                if session.game.turn > 0:
                    rows, texts = result["candidates"], [r["summary"] for r in result["candidates"]]
                    chosen, turns = [r for r in rows if r["chosen"]], turns + 1
                    t["lacking"] += len(chosen) != 1 or any(chosen[0].get(k) is None for k in result["columns"])
                    t["alike"] += len(set(texts)) < len(texts)
                session.play(result["hint"]["actions"], auto=True)
            t["turns"] += turns
            t["seconds"] += round(time.perf_counter() - start, 1)
        print(
            f"{agent}: {t['turns']} turns analysed, chosen move without its numbers in {t['lacking']},"
            f" two rows alike in {t['alike']} ({t['seconds']:.0f} s)",
            flush=True,
        )
    return report


def viewport_sizes(text: str) -> tuple[tuple[int, int], ...]:
    return tuple((int(w), int(h)) for w, h in (part.split("x") for part in text.split(",")))


COMMANDS = (latency, screenshots, memory, fairness, analysis)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser("python -m benchmarks.web", description=plain_text(__doc__))
    parser.formatter_class = HelpFormatter  # the docstring's lines kept
    sub = parser.add_subparsers(dest="command", required=True)
    p = {run.__name__: sub.add_parser(run.__name__, formatter_class=HelpFormatter) for run in COMMANDS}
    for run in COMMANDS:
        out = Path("results/web_latency.json") if run is latency else None
        p[run.__name__].add_argument("--out", type=Path, default=out, help="write the results here too, as JSON")
        p[run.__name__].set_defaults(run=run)
    p["latency"].add_argument("--games", type=int, default=6, help="random games for the HTTP latencies")
    p["screenshots"].add_argument("folder", type=Path, metavar="DIR")
    p["screenshots"].add_argument("--sizes", type=viewport_sizes, default="1280x800,390x844", help="WIDTHxHEIGHT,...")
    p["memory"].add_argument("--games", type=int, default=300)
    p["memory"].add_argument("--agent", default="ntuple")
    p["memory"].add_argument("--per-game", action="store_true", help="build the agent for each game")
    p["fairness"].add_argument("--flood", type=int, default=80, help="best analyses queued")
    p["analysis"].add_argument("--agents", default="best,greedy", help="agents, comma-separated")
    p["analysis"].add_argument("--seeds", default="0,1,2", help="seeds, comma-separated")
    p["analysis"].add_argument("--turns", type=int, default=33, help="turns analysed per game at most")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result = args.run(args)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
