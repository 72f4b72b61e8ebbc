"""Every file in results/ is named by something a reader or a command reaches.

A measured result stays only while a page (README.md, docs/), a test, a config, the Makefile or
the project's Python names it; one that nothing names is an orphan, and this test names it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agents", "benchmarks", "gamekit", "luckynumbers_env", "numberdrop_env", "numberdrop_web")


def citing_files(root: Path) -> list[Path]:
    """The files whose text may name a result: pages, tests, configs, the Makefile, the Python."""
    found = [root / "README.md", root / "Makefile", *root.glob("*.py")]
    found += (root / "docs").rglob("*.md")
    found += [p for p in (root / "configs").rglob("*") if p.is_file()]
    found += [p for p in (root / "tests").rglob("*") if p.is_file() and p.suffix in {".py", ".md", ".json", ".yaml"}]
    for package in PACKAGES:
        found += (root / package).rglob("*.py")
    this = Path(__file__).resolve()
    return [p for p in found if p.is_file() and p.resolve() != this]


def orphans(root: Path = ROOT) -> list[str]:
    """The files of ``root/results`` that no citing file names."""
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in citing_files(root))
    names = sorted(p.name for p in (root / "results").iterdir() if p.is_file())
    return [n for n in names if not re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", text)]


def test_every_result_is_named_by_a_page_a_test_a_config_or_a_command():
    assert orphans() == [], "named by no page, test, config or command: delete them or cite them"


def test_an_orphan_is_found(tmp_path):
    (tmp_path / "results").mkdir()
    for name in ("cited.json", "cited_too.jsonl", "orphan.json", "orphan_1000.json"):
        (tmp_path / "results" / name).write_text("{}")
    (tmp_path / "README.md").write_text("see `results/cited.json`\n")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "x.py").write_text('FILE = "cited_too.jsonl"  # not orphan_1000.jsonx\n')
    assert orphans(tmp_path) == ["orphan.json", "orphan_1000.json"]
