"""``make train`` has one answer: the config its recipe runs is the one the README and the
training page name."""

from __future__ import annotations

import re
from pathlib import Path

from agents.training.config import find_config

ROOT = Path(__file__).resolve().parents[3]


def make_train_config() -> str:
    """The ``--config`` of the Makefile's ``train:`` recipe."""
    recipe = re.search(r"^train:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert recipe, "the Makefile has no train: target"
    found = re.search(r"--config\s+(\S+)", recipe.group(1))
    assert found, "make train names no --config"
    return found.group(1)


def test_readme_and_training_page_name_what_make_train_runs():
    config = make_train_config()
    assert find_config(config).resolve() == (ROOT / "configs" / f"{config}.yaml").resolve()
    for page in ("README.md", "docs/training.md"):
        text = (ROOT / page).read_text()
        assert config in text, f"{page} does not name {config}, what make train runs"
