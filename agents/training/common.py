"""What every trainer does around training, for both backends: the greedy baseline on the
evaluation seeds, the learning curve, the closing tables and the end of a stopped run.
No torch here: the RLlib trainer and the command line use it too."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from numberdrop_env.engine.rules import DEFAULT_RULES

from ..evaluation import plots
from ..evaluation.ray import run_on_ray
from ..evaluation.solo import format_table, run, summarise
from ..evaluation.stats import ci95
from ..evaluation.tables import format_tables, run_tables, summarise_tables
from ..evaluation.tables import summarise as summarise_lucky
from ..registry import policy_class
from .checkpoints import atomic_path, atomic_write, read_json, read_jsonl, report_stop, write_json
from .config import TrainConfig

__all__ = [
    "DEFAULT_RULES",
    "best_model",
    "final_evaluation",
    "greedy_available",
    "greedy_baseline",
    "read_evals",
    "stopped_early",
    "write_learning_curve",
]


def open_run(cfg: TrainConfig, args: argparse.Namespace) -> tuple[Path, Path | None, bool]:
    """The run folder (``runs/<experiment>/`` unless ``output_dir``), made; what ``--resume``
    continues from (``None``: a new run); whether to show progress bars. Every trainer's folder
    holds ``config.yaml`` (``write_config``), ``evals.jsonl`` (one line per evaluation or gate),
    ``learning_curve.png``, TensorBoard events, ``checkpoints/``, its best model and
    ``final_eval.json`` (``final_evaluation``)."""
    run_dir = cfg.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    return run_dir, getattr(args, "resume", None), cfg.progress_bar and not getattr(args, "no_progress", False)


def write_config(cfg: TrainConfig, run_dir: Path) -> None:
    """The run's ``config.yaml``: every key, defaults included (the record of the experiment)."""
    atomic_write(run_dir / "config.yaml", yaml.safe_dump(cfg.to_dict(), sort_keys=False))


def greedy_available() -> tuple[bool, str]:
    try:
        policy_class("greedy")
        return True, ""
    except Exception as err:  # noqa: BLE001 - any import problem means "no greedy baseline"
        return False, f"{type(err).__name__}: {err}"


def greedy_baseline(cfg: TrainConfig, run_dir: Path) -> dict[str, Any] | None:
    """Greedy scores on the evaluation seeds, computed once and cached in the run directory."""
    if not cfg.eval.greedy_baseline:
        return None
    cache = run_dir / f"greedy_eval_seed{cfg.eval.seed}_games{cfg.eval.games}.json"
    if cache.is_file():
        try:
            return read_json(cache)
        except ValueError as err:
            print(f"note: {err}; computing it again", file=sys.stderr)
    ok, why = greedy_available()
    if not ok:
        note = f"note: greedy baseline unavailable ({why}); eval/greedy_* not logged"
        print(note, file=sys.stderr)
        with (run_dir / "notes.txt").open("a") as fh:
            fh.write(note + "\n")
        return None
    start = time.perf_counter()
    results = run(["greedy"], cfg.eval.games, cfg.eval.seed, workers=1, progress=False)["greedy"]
    data = {
        "seed": cfg.eval.seed,
        "games": cfg.eval.games,
        "scores": [r.score for r in results],
        "mean": float(np.mean([r.score for r in results])),
        "seconds": time.perf_counter() - start,
    }
    write_json(cache, data)
    print(f"greedy baseline on the eval seeds: {data['mean']:.2f} ({data['seconds']:.1f} s)", file=sys.stderr)
    return data


def read_evals(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """The evaluations of ``evals.jsonl`` files (``train.py``), in step order; a later file
    continues an earlier run (``--resume``). A line cut short by a killed run is left out
    with a note."""
    entries = []
    for path in paths:
        if not Path(path).is_file():
            raise FileNotFoundError(f"evaluations file {str(path)!r} not found")
        for n, entry in enumerate(read_jsonl(path), 1):
            if not {"step", "score_mean"} <= entry.keys():
                raise ValueError(f"{path}: evaluation {n} needs 'step' and 'score_mean'")
            entries.append(entry)
    if not entries:
        raise ValueError("no evaluations to plot")
    return sorted(entries, key=lambda e: e["step"])


def write_learning_curve(run_dir: Path, title: str = "", x_label: str = "training steps") -> Path | None:
    """``learning_curve.png`` from the run's ``evals.jsonl`` (resumed runs append to it; a
    line cut short by a kill is left out). A picture is not worth a failed run: without
    matplotlib, or without scores to draw, it is skipped with a note."""
    evals = run_dir / "evals.jsonl"
    if not evals.is_file():
        return None
    try:
        with atomic_path(run_dir / "learning_curve.png", ".png") as tmp:
            plots.plot_learning_curve(read_evals([evals]), tmp, title, x_label)
        return run_dir / "learning_curve.png"
    except (ImportError, ValueError) as err:
        print(f"note: no learning_curve.png ({err})", file=sys.stderr)
        return None


def best_model(run_dir: Path, final: str) -> Path:
    """``best_model.zip`` (``best_checkpoint`` on Ray): the final one when no evaluation kept one."""
    best = run_dir / ("best_checkpoint" if final == "final_checkpoint" else "best_model.zip")
    if not best.exists():
        with atomic_path(best) as tmp:
            (shutil.copytree if best.suffix != ".zip" else shutil.copy2)(run_dir / final, tmp)
    return best


def final_evaluation(
    cfg: TrainConfig, model: str, options: dict[str, Any], run_dir: Path, progress: bool
) -> dict[str, Any] | None:
    """The closing table (``final_eval.json``): Number Drop solo, the trained ``model`` among
    ``final_eval.agents`` (on Ray tasks with the rllib backend); at a table, the model in one
    seat among its training opponents; Lucky Numbers, one table per ``final_eval.opponents``."""
    f, e = cfg.final_eval, getattr(cfg, "env", None)  # the trainers in generations play solo games
    if f.games == 0:
        return None
    workers = f.workers or os.cpu_count() or 1
    out: dict[str, Any] = {"model": options["path"]}
    if cfg.game == "luckynumbers":
        for opponent in f.opponents:
            seats = [model] + [opponent] * (e.players - 1)
            results = run_tables(
                seats, e.players, f.games, f.seed, workers, {model: options}, progress, "luckynumbers", e.setup, e.bruno
            )
            out[f"vs_{opponent}"] = summarise_lucky(results, [model, opponent], e.players)
            print(format_tables(out[f"vs_{opponent}"]))
    elif e is not None and e.players > 1:
        seats = [model] + [e.opponents[i % len(e.opponents)] for i in range(e.players - 1)]
        results = run_tables(seats, e.players, f.games, f.seed, workers, {model: options}, progress)
        out = {**summarise_tables(results, list(dict.fromkeys(seats)), e.players), **out}
        print(format_tables(out))
    else:
        agents = list(f.agents)
        if "greedy" in agents:
            ok, why = greedy_available()
            if not ok:
                print(f"note: greedy left out of the final table ({why})", file=sys.stderr)
                agents.remove("greedy")
        if cfg.backend == "rllib":
            results = run_on_ray(agents, f.games, f.seed, options={model: options}, progress=progress)
        else:
            results = run(agents, f.games, f.seed, workers=workers, options={model: options}, progress=progress)
            for suffix, search in searched_rows(f):
                played = run([model], f.games, f.seed, workers, {model: {**options, **search}}, progress)
                results[model + suffix] = played[model]
        out = {**summarise(results, f.games, f.seed), **out}
        print(format_table(out))
        if line := over_greedy(out):
            print(line)
    write_json(run_dir / "final_eval.json", out, indent=1)
    return out


def searched_rows(f: Any) -> list[tuple[str, dict[str, Any]]]:
    """The closing table's rows of the trained model with a search: the network's look-ahead
    (``final_eval.lookahead``), the table value's expectimax (``final_eval.top``)."""
    rows = []
    if getattr(f, "lookahead", 0):
        rows.append(("+look-ahead", {"lookahead": f.lookahead, "samples": f.samples, "refine": f.refine}))
    if getattr(f, "top", 0):
        rows.append(("+expectimax", {"top": f.top, "rolls": f.rolls}))
    return rows


def over_greedy(summary: dict[str, Any]) -> str:
    """Each agent's paired difference over the greedy on the table's games (empty without greedy)."""
    rows = summary["agents"]
    if "greedy" not in rows:
        return ""
    base = np.array(rows["greedy"]["scores"], float)
    parts = []
    for name, row in rows.items():
        if name != "greedy":
            diff = np.array(row["scores"], float) - base
            lo, hi = ci95(diff)
            parts.append(f"{name} {diff.mean():+.2f} [{lo:+.2f}, {hi:+.2f}]")
    return "paired over greedy (95 % interval): " + ", ".join(parts)


def stopped_early(args: argparse.Namespace, run_dir: Path, checkpoint: Path | None, steps: int) -> dict[str, Any]:
    """The result of a run that Ctrl-C stopped at an update boundary."""
    report_stop(args.config, checkpoint, steps)
    return {"run_dir": str(run_dir), "interrupted": True, "checkpoint": str(checkpoint), "steps": steps}
