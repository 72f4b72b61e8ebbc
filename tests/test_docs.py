"""The README and the documentation pages (docs/*.md) say what works.

- Every ```python block runs: the blocks of one page run in order in one namespace, in a
  fresh working directory. A block that takes long or needs a package outside `make test`
  is marked on the line before its fence with ``<!-- doc-test: skip (the reason) -->``, an
  HTML comment that neither GitHub nor the site shows.
- Every command and name in the code of a page names what exists: the modules of
  ``python -m``, the project's modules and objects named by their dotted path, its source
  files and folders, the files under configs/, results/, docs/ and agents/models/, and the
  make targets. When a module moves, the pages that name it fail here.
- The README's links into docs/ lead to files that exist (``mkdocs build --strict``, run by
  ``make test``, checks the links between the pages of the site).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

FENCE = re.compile(r"^```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^```[ \t]*$", re.S | re.M)
SKIP = re.compile(r"<!--\s*doc-test:\s*skip\b[^>]*-->\s*$")
INLINE = re.compile(r"`([^`]+)`")


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def python_blocks(page: Path) -> list[tuple[int, str, bool]]:
    """(line of the fence, code, skipped) of each ```python block of a page."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        if match.group("lang") != "python":
            continue
        line = text.count("\n", 0, match.start()) + 1
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        found.append((line, match.group("body"), bool(SKIP.search(before))))
    return found


def code_text(page: Path) -> str:
    """Everything a page shows as code: its fenced blocks and its inline code spans."""
    text = page.read_text(encoding="utf-8")
    blocks = [m.group("body") for m in FENCE.finditer(text)]
    prose = FENCE.sub("", text)
    return "\n".join(blocks + INLINE.findall(prose))


RUNNABLE = [page for page in PAGES if any(not skipped for _, _, skipped in python_blocks(page))]


def test_the_pages_are_found():
    names = {_name(page) for page in PAGES}
    assert {"README.md", "docs/index.md", "docs/envs/numberdrop-turn.md"} <= names
    assert _name(ROOT / "README.md") in {_name(page) for page in RUNNABLE}


@pytest.mark.parametrize("page", RUNNABLE, ids=_name)
def test_python_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__main__"}
    for line, code, skipped in python_blocks(page):
        if skipped:
            continue
        try:
            exec(compile(code, f"{_name(page)}, block at line {line}", "exec"), namespace)
        finally:
            for value in list(namespace.values()):  # vector envs hold worker processes
                close = getattr(value, "close", None)
                if callable(close) and type(value).__module__.startswith(("gymnasium", "numberdrop_env")):
                    try:
                        close()
                    except Exception:
                        pass


PACKAGES = r"(?:numberdrop_env|luckynumbers_env|gamekit|agents|benchmarks|train|tests)"
DOTTED = re.compile(r"(?<![\w./-])(" + PACKAGES + r"(?:\.[A-Za-z_]\w*)+)")
SOURCE = re.compile(r"(?<![\w./-])(" + PACKAGES + r"/[\w/.-]*?(?:\.py|/))(?![\w.-])")
FILE_SUFFIXES = {"md", "json", "jsonl", "zip", "py", "yaml", "txt", "png", "gif"}


def resolves(name: str) -> bool:
    """Whether a dotted name is a module, or an attribute of one (a class, a constant)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            spec = importlib.util.find_spec(".".join(parts[:i]))
        except (ImportError, ValueError, AttributeError):
            spec = None
        if spec is None:
            continue
        obj = importlib.import_module(".".join(parts[:i]))
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


MODULE = re.compile(r"python -m ([A-Za-z_][\w.]*)")
DATA = r"(?:configs|results|docs|agents/models)/[\w./-]*\w\.(?:yaml|jsonl|json|txt|png|gif|zip)"
PATH = re.compile(r"(?<![\w/.~-])(" + DATA + r")(?![\w/])")
MAKE = re.compile(r"(?<![\w-])make ([a-z]+)\b")


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_commands_name_what_exists(page):
    code = code_text(page)
    missing = []
    for module in sorted(set(MODULE.findall(code))):
        if module == "pytest":
            continue
        try:
            spec = importlib.util.find_spec(module)
        except ModuleNotFoundError:
            spec = None
        if spec is None:
            missing.append(f"python -m {module}")
    for path in sorted(set(PATH.findall(code))):
        if not (ROOT / path).exists():
            missing.append(path)
    for name in sorted(set(DOTTED.findall(code))):
        if name.rsplit(".", 1)[-1] not in FILE_SUFFIXES and not resolves(name):
            missing.append(name)
    for path in sorted(set(SOURCE.findall(code))):
        if not (ROOT / path).exists():
            missing.append(path)
    targets = set(re.findall(r"^([a-z]+):", (ROOT / "Makefile").read_text(), re.M))
    for target in sorted(set(MAKE.findall(code))):
        if target not in targets:
            missing.append(f"make {target}")
    assert not missing, f"{_name(page)} names what does not exist: {missing}"


def test_readme_links_into_the_docs_exist():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[^)#\s]+)(?:#[^)]*)?\)", text)
    assert links
    missing = sorted({link for link in links if not (ROOT / link).exists()})
    assert not missing, f"README.md links to missing files: {missing}"


def test_readme_is_a_landing_page():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 120


@pytest.mark.parametrize("page", sorted((ROOT / "docs" / "envs").glob("*.md")), ids=_name)
def test_version_histories_are_in_date_order(page):
    dates = re.findall(r"^\| (\d{4}-\d\d-\d\d) \|", page.read_text(encoding="utf-8"), re.M)
    assert dates == sorted(dates), f"{_name(page)}: the version history is out of date order"


def test_results_tables_agree_with_their_files():
    from benchmarks import results_tables

    assert results_tables.stale_pages() == [], "run: python -m benchmarks.results_tables"
    for page in results_tables.PAGES:
        assert "<!-- results-table:" in (ROOT / page).read_text(encoding="utf-8"), page


def test_a_stale_results_table_is_found(tmp_path):
    from benchmarks import results_tables

    for page in results_tables.PAGES:
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / page).write_text((ROOT / page).read_text(encoding="utf-8"), encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8").replace("56.3 ± 0.4", "57.3 ± 0.4"), encoding="utf-8")
    assert results_tables.stale_pages(tmp_path) == ["README.md"]


def test_no_docstring_shows_a_sphinx_role():
    """The API pages render docstrings as Markdown, where ``:class:`X``` prints as text."""
    role = re.compile(r":(?:py:)?(?:mod|class|meth|func|data|attr|obj|exc|const):`")
    packages = ["gamekit", "numberdrop_env", "luckynumbers_env", "agents", "benchmarks"]
    found = [
        f"{path.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}"
        for package in packages
        for path in sorted((ROOT / package).rglob("*.py"))
        for text in [path.read_text(encoding="utf-8")]
        for m in role.finditer(text)
    ]
    assert not found, f"Sphinx roles in docstrings: {found[:10]}"
