"""A soak of the API: 200 random games played over HTTP by concurrent clients, with refused
requests and undos mixed in; no answer is a 5xx and every final score is the engine's for
the same seed and actions.

The clients are coroutines of one event loop sending HTTP requests through httpx's ASGI
transport to the app (the requests of 16 games interleave in the server's loop); it costs
about a quarter of the CPU of as many threads through Starlette's TestClient.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web app needs the `web` extra")
httpx = pytest.importorskip("httpx", reason="the web app's tests need httpx (the web extra)")

from numberdrop_env.engine.solo import SoloGame
from numberdrop_web.app import create_app
from numberdrop_web.views import options_actions

GAMES = 200
CLIENTS = 16


async def play_random_game(client, seed: int, statuses: Counter) -> tuple[int, list[int], int]:
    """A random player: a legal option each time, now and then an illegal one or an undo."""
    rng = np.random.default_rng(seed)

    async def send(method: str, path: str, body: dict | None = None) -> dict:
        r = await client.request(method, path, json=body)
        statuses[r.status_code] += 1
        assert r.status_code < 500, r.text
        return r.json()

    state = await send("POST", "/api/games", {"seed": seed, "auto": True})
    gid = state["id"]
    while not state["over"]:
        roll = rng.random()
        if roll < 0.03:
            await send("POST", f"/api/games/{gid}/actions", {"action": int(rng.integers(-5, 500))})
            state = await send("GET", f"/api/games/{gid}")
        elif roll < 0.05 and state["index"] > 0:
            state = await send("POST", f"/api/games/{gid}/undo", {"expect": state["index"]})
        else:
            if state["phase"] == "combo" and rng.random() < 0.5:  # pass often: more turns, fewer selections
                action = state["legal"]["pass"]
            else:
                action = int(rng.choice(options_actions(state["legal"])))
            body = {"action": action, "expect": state["index"], "auto": True}
            state = await send("POST", f"/api/games/{gid}/actions", body)
    return seed, state["actions"], state["score"]


async def soak(statuses: Counter) -> list[tuple[int, list[int], int]]:
    app = create_app(workers=2)
    gate = asyncio.Semaphore(CLIENTS)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:

        async def one(seed: int) -> tuple[int, list[int], int]:
            async with gate:
                return await play_random_game(client, seed, statuses)

        return await asyncio.gather(*(one(seed) for seed in range(GAMES)))


def test_200_random_games_by_concurrent_clients_without_a_server_error() -> None:
    statuses: Counter = Counter()
    games = asyncio.run(soak(statuses))
    assert len(games) == GAMES
    assert not any(code >= 500 for code in statuses), statuses
    assert statuses[400] + statuses[422] > 0 and statuses[200] > GAMES  # refusals were tried, and play went on
    for seed, actions, score in games:
        game = SoloGame(seed=seed)
        for action in actions:
            game.step(action)
        assert game.is_over and game.score() == score
