"""What the trainers that run in gated generations or rounds share (afterstate Q-iteration in
``agents.training.q_iteration``, the n-tuple value in ``agents.training.ntuple``): the state
file ``--resume`` continues from, the first gate entry, the paired gate (the one rule that keeps
the best model) and their saved arrays.

A generation only adds files until the state, written last, takes them in; a resumed run
must keep the settings that decide its data and weights, so it ends as one never stopped.
"""

from __future__ import annotations

import sys
import zipfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

from ..evaluation.stats import ci95
from .checkpoints import read_json, read_jsonl, write_json, write_jsonl


def find_state(path: str | Path, state_file: str, what: str) -> Path:
    """The run directory ``--resume`` names (the directory, or its ``state_file``)."""
    path = Path(path)
    run_dir = path.parent if path.name == state_file else path
    if not (run_dir / state_file).is_file():
        raise FileNotFoundError(f"{str(run_dir)!r} holds no {state_file}: not {what} that finished a generation")
    return run_dir


def resume_state(
    run_dir: Path,
    state_file: str,
    settings: dict[str, Any],
    section: str,
    free: tuple[str, ...] = ("generations", "workers"),
    key: str = "generation",
) -> dict[str, Any]:
    """The state of a stopped run (``ValueError`` naming the settings it was trained with otherwise);
    ``evals.jsonl`` loses the lines past the state's ``key`` (a generation the stop cut short)."""
    state = read_json(run_dir / state_file)
    before = state.get("settings", {})
    changed = sorted(k for k in {*settings, *before} if before.get(k) != settings.get(k))
    if changed:
        may = " and ".join(f"{section}.{k}" for k in free)
        raise ValueError(
            f"{run_dir} was trained with other settings of {', '.join(changed)}: "
            f"a resumed run must keep them (only {may} may change)"
        )
    entries = read_jsonl(run_dir / "evals.jsonl")
    write_jsonl(run_dir / "evals.jsonl", [e for e in entries if e[key] <= state[key]])
    print(f"resuming {run_dir} after {key} {state[key]}", file=sys.stderr)
    return state


def first_state(run_dir: Path, state_file: str, scores: np.ndarray, settings: dict[str, Any]) -> dict[str, Any]:
    """A new run's state: generation 0, whose gate ``scores`` are the best so far."""
    entry = {"step": 0, "generation": 0, "score_mean": float(scores.mean()), "score_ci95": ci95(scores), "kept": True}
    write_jsonl(run_dir / "evals.jsonl", [entry])
    state = {"generation": 0, "turns": 0, "best_generation": 0, "best_scores": scores.tolist(), "settings": settings}
    write_json(run_dir / state_file, state)
    return state


def gate_entry(generation: int, turns: int, scores: np.ndarray, gate: dict[str, Any]) -> dict[str, Any]:
    """The start of a generation's ``evals.jsonl`` line: its gate's scores and paired difference."""
    return {
        "step": turns,
        "generation": generation,
        "score_mean": float(scores.mean()),
        "score_ci95": ci95(scores),
        **gate,
    }


def next_state(
    run_dir: Path, state_file: str, state: dict[str, Any], scores: np.ndarray, gate: dict[str, Any], turns: int
) -> dict[str, Any]:
    """The state after a generation, written last (the best moves on when the gate kept it)."""
    gen = state["generation"] + 1
    best = (gen, scores.tolist()) if gate["kept"] else (state["best_generation"], state["best_scores"])
    new = {**state, "generation": gen, "turns": turns, "best_generation": best[0], "best_scores": best[1]}
    write_json(run_dir / state_file, new)
    return new


def paired_gate(new: np.ndarray, best: np.ndarray, keep: str = "better") -> dict[str, Any]:
    """The rule that keeps the best model: the new scores against the best's on the same seeds.
    ``better``: kept when the mean paired difference is above 0 (a periodic evaluation on fixed
    seeds that keeps a higher mean applies the same rule); ``not_worse``: unless the difference's
    95 % interval lies below 0 (on a plateau, the newest rather than an early lucky gate)."""
    diff = np.asarray(new, float) - np.asarray(best, float)
    interval = ci95(diff)
    kept = diff.mean() > 0 if keep == "better" else interval[1] > 0
    return {"paired_diff": float(diff.mean()), "paired_ci95": interval, "kept": bool(kept)}


def read_arrays(path: Path, fields: Collection[str], what: str) -> dict[str, np.ndarray]:
    """A generation's saved arrays (``ValueError`` naming the file when it is damaged or lacks one of ``fields``)."""
    try:
        with np.load(path) as f:
            data = dict(f)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"{path}: damaged {what} ({type(err).__name__}: {err})") from None
    missing = set(fields) - set(data)
    if missing:
        raise ValueError(f"{path}: {what} without the fields {sorted(missing)}")
    return data
