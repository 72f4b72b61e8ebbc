"""Pictures for comparing agents: score distributions against the rulebook's human scores,
and learning curves. Needs matplotlib (the ``train`` and ``dev`` extras).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from numberdrop_env.engine.rules import DEFAULT_RULES

from ..registry import require_extra
from .solo import HUMAN_SCORES

MAX_SCORE = DEFAULT_RULES.max_score
MIN_SCORE = -DEFAULT_RULES.penalty_points * len(DEFAULT_RULES.penalty_rows)


def require_matplotlib() -> None:
    """Fail early, with the fix, when matplotlib is missing (ImportError)."""
    require_extra("train", "pictures", ("matplotlib",))  # also in the dev extra


def _pyplot():
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed, same pixels everywhere
    import matplotlib.pyplot as plt

    return plt


def plot_scores(summary: dict[str, Any], path: str | Path) -> Path:
    """One histogram of final scores per agent (``numberdrop-evaluate``'s summary), the human
    high scores of the rulebook as dotted lines."""
    agents = summary.get("agents") if isinstance(summary, dict) else None
    if not agents or not all(isinstance(a, dict) and a.get("scores") for a in agents.values()):
        raise ValueError("plot_scores needs a numberdrop-evaluate summary with per-game scores")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.2), dpi=80)
    bins = list(range(MIN_SCORE - 1, MAX_SCORE + 3, 2))
    for name, a in agents.items():
        scores = a["scores"]
        share = [1 / len(scores)] * len(scores)
        ax.hist(
            scores, bins=bins, weights=share, histtype="stepfilled", alpha=0.35, label=f"{name}: mean {a['mean']:.1f}"
        )
        ax.hist(scores, bins=bins, weights=share, histtype="step", color=ax.patches[-1].get_facecolor()[:3])
    top = ax.get_ylim()[1]
    for score in HUMAN_SCORES:
        ax.axvline(score, color="0.35", linestyle=":", linewidth=1)
        ax.text(score, top, str(score), ha="center", va="bottom", fontsize=8, color="0.25")
    ax.set_xlim(MIN_SCORE - 2, MAX_SCORE + 2)
    ax.set_xlabel("final score (dotted: the rulebook's solo high scores)")
    ax.set_ylabel("share of games")
    games, seed = summary.get("games"), summary.get("seed")
    ax.set_title(
        f"{games} games, seeds {seed}..{seed + games - 1}" if games and seed is not None else "scores",
        pad=14,
        fontsize=11,
    )
    ax.legend(loc="upper right", fontsize=9, frameon=False)
    return _save(plt, fig, path)


def plot_learning_curve(
    entries: Sequence[dict[str, Any]], path: str | Path, title: str = "", x_label: str = "training steps"
) -> Path:
    """Mean evaluation score against training steps, the greedy's mean on the same seeds
    dashed (``score_mean - diff_vs_greedy``, when the evaluations have it), the best marked."""
    if not entries:
        raise ValueError("no evaluations to plot")
    plt = _pyplot()
    steps = [e["step"] for e in entries]
    means = [e["score_mean"] for e in entries]
    fig, ax = plt.subplots(figsize=(8, 4), dpi=80)
    ax.plot(steps, means, marker="o", markersize=4, label="agent: mean score on the evaluation seeds")
    greedy = [e["score_mean"] - e["diff_vs_greedy"] for e in entries if "diff_vs_greedy" in e]
    if greedy:
        mean = sum(greedy) / len(greedy)
        ax.axhline(mean, color="0.4", linestyle="--", label=f"greedy on the same seeds: {mean:.1f}")
    best = best_entry(entries)
    ax.annotate(
        f"best {means[best]:.1f}",
        (steps[best], means[best]),
        textcoords="offset points",
        xytext=(0, 8),
        ha="center",
        fontsize=9,
    )
    low, high = min(means + greedy), max(means)
    ax.set_ylim(low - 0.35 * (high - low) - 1, high + 0.12 * (high - low) + 1)  # room for the legend and the label
    ax.set_xlim(left=0)
    ax.xaxis.set_major_formatter(lambda x, _: step_label(x, max(steps)))
    ax.set_xlabel(x_label)
    ax.set_ylabel("mean final score")
    ax.set_title(title or "learning curve", fontsize=11)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=9, frameon=False)
    return _save(plt, fig, path)


def best_entry(entries: Sequence[dict[str, Any]]) -> int:
    """The index of the evaluation whose model the run kept as its best: the last one a gate kept
    (``kept``, a paired test against the best so far, not the highest mean); without gates, the
    highest mean."""
    kept = [i for i, e in enumerate(entries) if e.get("kept")]
    if kept:
        return kept[-1]
    return max(range(len(entries)), key=lambda i: entries[i]["score_mean"])


def step_label(x: float, largest: float) -> str:
    """An x tick: thousands as ``20k`` on an axis that reaches 10,000 (``1.5k`` where a tick falls
    between), plain numbers on a shorter one (a smoke run's 96 games)."""
    if largest < 10_000 or not x:
        return f"{x:g}"
    return f"{x / 1000:g}k"


def _save(plt: Any, fig: Any, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})  # no version stamp: the same numbers give the same file
    plt.close(fig)
    return path
