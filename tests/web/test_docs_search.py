"""The documentation site's search, typed into the built site in a real browser: the words users
type find the pages that explain them (``mkdocs.yml``'s search separator splits ``ppo.lookahead``
and ``top_k``-style names into words)."""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site ``make test`` built just before the tests (``site/``) when it is newer than every
    page and ``mkdocs.yml``, else a new build."""
    index = ROOT / "site" / "search" / "search_index.json"
    sources = [ROOT / "mkdocs.yml", *(ROOT / "docs").rglob("*")]
    if index.exists() and index.stat().st_mtime >= max(f.stat().st_mtime for f in sources):
        return index.parents[1]
    pytest.importorskip("mkdocs", reason="building the site needs the `docs` extra: pip install -e '.[docs]'")
    folder = tmp_path_factory.mktemp("site")
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(folder)]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(build, cwd=ROOT, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(built_site(tmp_path_factory)))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
        pass


def search(browser, url: str, query: str) -> list[str]:
    """The titles of the search's results for ``query``, typed as a person would."""
    page = browser.new_page()
    try:
        page.goto(url)
        page.click(".md-search__input")
        page.keyboard.type(query)
        page.wait_for_selector(".md-search-result__item", timeout=15_000)
        return [t.strip() for t in page.locator(".md-search-result__item h1").all_inner_texts()]
    finally:
        page.close()


@pytest.mark.parametrize(
    "query, first",
    [
        # the agents page explains the look-ahead's settings, its method page how it works
        ("lookahead", ("Agents and the benchmark", "The look-ahead")),
        ("expectimax", ("Agents and the benchmark",)),
        ("clairvoyant", ("The clairvoyant bound",)),
    ],
)
def test_a_search_finds_the_page_that_explains_the_word(browser, site, query, first):
    titles = search(browser, site, query)
    assert titles and titles[0].startswith(first), titles
