"""Fixtures of the web app's tests: an app in process (Starlette's TestClient), a live server
on a free port (uvicorn in a thread) and a headless Chromium page driven by Playwright."""

from __future__ import annotations

import os
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web app needs the `web` extra: pip install -e '.[web]'")
pytest.importorskip("uvicorn", reason="the web app needs the `web` extra: pip install -e '.[web]'")

from numberdrop_web.app import create_app

LOCAL = "http://127.0.0.1"
"""The address the in-process client sends its requests to: one of the names the app answers to."""
CHROMIUM = Path(os.environ.get("NUMBERDROP_CHROMIUM", "/usr/bin/chromium"))
"""The system's Chromium (``apt-get install chromium``); Playwright's own download is not used."""


@pytest.fixture
def app() -> Any:
    return create_app(workers=2)


@pytest.fixture
def client(app: Any) -> Iterator[Any]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*httpx.*")  # Starlette's note on httpx's successor
        from starlette.testclient import TestClient

        with TestClient(app, base_url=LOCAL) as c:  # the Host the server answers to (not "testserver")
            yield c


class LiveServer:
    """The app served by uvicorn in a thread on a free port of 127.0.0.1."""

    def __init__(self, **options: Any) -> None:
        import uvicorn

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.app = create_app(**options)
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the web app's server did not start")
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    server = LiveServer(workers=2)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser tests need playwright (the web extra)")
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (make test's CI installs it)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield b
        b.close()


class Page:
    """A Playwright page that records every JavaScript error and console error it meets."""

    def __init__(
        self, browser: Any, live: LiveServer, width: int = 1280, height: int = 800, touch: bool = False
    ) -> None:
        self.context = browser.new_context(
            viewport={"width": width, "height": height}, has_touch=touch, accept_downloads=True
        )
        self.page = self.context.new_page()
        self.live = live
        self.errors: list[str] = []
        self.page.on("pageerror", lambda err: self.errors.append(f"page error: {err}"))
        self.page.on("console", lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None)

    def open(self, query: str) -> Any:
        self.page.goto(f"{self.live.url}/{query}")
        self.idle()
        return self.page

    def idle(self, timeout: float = 30_000) -> None:
        self.page.wait_for_function("() => window.__nd && window.__nd.state && window.__nd.idle()", timeout=timeout)

    def state(self) -> dict[str, Any]:
        return self.page.evaluate("() => window.__nd.state")

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def page(browser: Any, live: LiveServer) -> Iterator[Page]:
    p = Page(browser, live)
    yield p
    errors = list(p.errors)
    mispredicted = p.page.evaluate("() => window.__nd ? window.__nd.mispredicted : 0")
    p.close()
    assert errors == [], f"the page raised JavaScript errors: {errors}"
    assert mispredicted == 0, f"{mispredicted} click(s) drew a state the server's answer then changed"
