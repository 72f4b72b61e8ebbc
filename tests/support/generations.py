"""Helpers of the tests of the trainers that run in generations (Q-iteration, the re-ranker): a
tiny copy of a smoke config, and the logged generations without their times."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml


def tiny_config(smoke: Path, tmp: Path, name: str, generations: int, section: str, **settings: Any) -> Path:
    """``smoke`` writing to ``tmp/name`` for ``generations`` generations, with ``settings`` in
    ``section``, no progress bars and no closing table."""
    data = yaml.safe_load(smoke.read_text())
    data.update(output_dir=str(tmp / name), progress_bar=False)
    data[section].update(generations=generations, **settings)
    data["final_eval"]["games"] = 0
    path = tmp / f"{name}_{generations}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def evals_without_time(run: Path) -> list[dict]:
    """The run's ``evals.jsonl`` less the seconds each generation took (all else repeats exactly)."""
    lines = (run / "evals.jsonl").read_text().splitlines()
    return [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in lines]
