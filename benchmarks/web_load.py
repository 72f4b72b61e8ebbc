"""The web app under load: memory per hinted game, and a cheap hint behind a flood of analyses.

``python -m benchmarks.web_load memory [--games 300] [--agent ntuple] [--per-game]``: the
server's resident memory before and after ``--games`` games with one hint each (in process,
through Starlette's TestClient); ``--per-game`` builds the agent for each game, as the app did
before its agents were shared, for comparison.

``python -m benchmarks.web_load fairness [--flood 80]``: one client queues ``--flood`` ``best``
analyses (one per game, and then all on one game); the time another game's ``greedy`` hint,
and its ``best`` hint, take to come back (uvicorn on a free port, httpx).
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from typing import Any

from agents.cli.common import HelpFormatter, plain_text


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        line = next(x for x in f if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def memory(games: int, agent: str, per_game: bool) -> dict[str, Any]:
    import warnings

    warnings.filterwarnings("ignore", message=".*httpx.*")
    from starlette.testclient import TestClient

    import numberdrop_web.app as web
    from numberdrop_web.analysis import line_of as per_game_line

    if per_game:
        web.line_of = per_game_line  # type: ignore[assignment]
    with TestClient(web.create_app(), base_url="http://127.0.0.1") as client:

        def hinted(seed: int) -> None:
            gid = client.post("/api/games", json={"seed": seed}).json()["id"]
            job = client.post(f"/api/games/{gid}/hint", json={"agent": agent, "wait": 30}).json()
            assert job["status"] == "done", job

        for seed in range(8):  # warm: the compiled planner, and the agent in each worker thread
            hinted(10_000 + seed)
        gc.collect()
        before, start = rss_mb(), time.perf_counter()
        for seed in range(games):
            hinted(seed)
        gc.collect()
        after = rss_mb()
    return {
        "games": games,
        "agent": agent,
        "agents": "built per game" if per_game else "shared",
        "rss_before_mb": round(before, 1),
        "rss_after_mb": round(after, 1),
        "growth_mb": round(after - before, 1),
        "per_game_kb": round(1024 * (after - before) / games, 1),
        "seconds": round(time.perf_counter() - start, 1),
    }


def fairness(flood: int) -> dict[str, Any]:
    import httpx

    from .web_latency import Server

    server = Server()
    out: dict[str, Any] = {"flood": flood}
    try:
        with httpx.Client(base_url=server.url, timeout=120) as client:

            def game() -> str:
                return client.post("/api/games", json={"seed": 0, "actions": [0]}).json()["id"]

            def timed(gid: str, agent: str) -> float | str:
                start = time.perf_counter()
                job = client.post(f"/api/games/{gid}/hint", json={"agent": agent, "wait": 30}).json()
                seconds = round(time.perf_counter() - start, 3)
                return seconds if job.get("status") == "done" else f"{job.get('status', job)} after {seconds} s"

            def analyses(gids: list[str]) -> None:
                for gid in gids:
                    client.post(f"/api/games/{gid}/analysis", json={"agent": "best", "wait": 0})

            for _ in range(4):  # warm: the compiled planner, torch, and both agents
                timed(game(), "best")
            out["idle_greedy_hint_s"] = timed(game(), "greedy")
            analyses([game()] * flood)  # one game's flood: one job of it runs, the rest replaced
            out["greedy_hint_behind_flood_of_one_game_s"] = timed(game(), "greedy")
            out["best_hint_behind_flood_of_one_game_s"] = timed(game(), "best")
            analyses([game() for _ in range(flood)])  # a flood over as many games
            out["greedy_hint_behind_flood_of_many_games_s"] = timed(game(), "greedy")
    finally:
        server.stop()
        server.server.config.app.state.jobs.join(60)  # the flood's running jobs stop at their next step
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.web_load", description=plain_text(__doc__), formatter_class=HelpFormatter
    )
    sub = parser.add_subparsers(dest="what", required=True)
    mem = sub.add_parser("memory", help="resident memory per hinted game")
    mem.add_argument("--games", type=int, default=300)
    mem.add_argument("--agent", default="ntuple")
    mem.add_argument("--per-game", action="store_true", help="build the agent for each game (the app before)")
    fair = sub.add_parser("fairness", help="a cheap hint behind a flood of analyses")
    fair.add_argument("--flood", type=int, default=80)
    args = parser.parse_args(argv)
    result = memory(args.games, args.agent, args.per_game) if args.what == "memory" else fairness(args.flood)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
