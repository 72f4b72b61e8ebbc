"""The results tables of the README and the docs, generated from ``results/*.json`` between
``<!-- results-table: NAME -->`` and ``<!-- /results-table -->`` (the docs' tests find a stale
one). A row may join evaluation files whose seeds follow on from each other.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.evaluation.stats import ci95

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
PAGES = ("README.md", "docs/index.md", "docs/agents.md")
BLOCK = re.compile(r"(<!-- results-table: (?P<name>[\w-]+) -->\n)(?P<table>.*?)(<!-- /results-table -->)", re.S)


@dataclass(frozen=True)
class Row:
    label: str
    sources: tuple[tuple[str, str], ...]
    """(file in ``results/``, agent key) pairs, in seed order."""


GREEDY = Row("`greedy` (the hand-written planner)", (("baselines_1000.json", "greedy"),))
"""The agent the paired differences are taken against, on the same seeds."""
BEST = Row(
    "`best`: the Q network, look-ahead 32x8r3",
    (("q_turn_lookahead32_0_299.json", "ppo"), ("q_turn_lookahead32_300_999.json", "ppo")),
)
NTUPLE_EXPECTIMAX = Row(
    "`ntuple_expectimax`: the n-tuple value, expectimax 8x16", (("ntuple_expectimax_1000.json", "ntuple_expectimax"),)
)
NTUPLE = Row("`ntuple`: the n-tuple value alone", (("ntuple_1000.json", "ntuple"),))
Q = Row("`q`: the Q-iteration network alone", (("q_turn_1000.json", "ppo"),))
PPO = Row("`ppo`: the MaskablePPO network", (("ppo_turn_1000.json", "ppo"),))
Q_LOOKAHEAD = Row("`q` with look-ahead 8x4r3", (("q_turn_lookahead_1000.json", "ppo"),))
JAX_PPO = Row(
    "`jax_ppo`: PPO wholly in JAX, 1.5 M decisions in 10 min (582 CPU-s)", (("jax_ppo_1000.json", "jax_ppo"),)
)
RANDOM = Row("`random`", (("baselines_1000.json", "random"),))

TABLES: dict[str, tuple[tuple[Row, ...], tuple[str, ...]]] = {
    "landing": ((BEST, NTUPLE_EXPECTIMAX, NTUPLE, Q, GREEDY, JAX_PPO), ("mean", "vs", ">46", ">55", ">61", ">75")),
    "benchmark": (
        (BEST, NTUPLE_EXPECTIMAX, Q_LOOKAHEAD, NTUPLE, Q, PPO, GREEDY, JAX_PPO, RANDOM),
        ("mean", "vs", "median", "lines", "boxes", "GO%", ">13", ">34", ">46", ">55", ">61", ">75", ">92"),
    ),
}
"""Each table's rows, then its columns."""

HEADINGS = {"mean": "mean ± 95 %", "vs": "vs greedy, paired", "GO%": "Game Over line"}  # ">N": "> N"; others as named


@dataclass(frozen=True)
class Games:
    """One row's games: scores in seed order, and the per-game means the files give."""

    first_seed: int
    scores: np.ndarray
    lines: float
    boxes: float
    game_over: float


def read_games(row: Row) -> Games:
    """The scores of ``row``'s files joined in seed order; a gap or overlap between them is an error."""
    scores, weights, parts, next_seed, first = [], [], [], None, None
    for name, agent in row.sources:
        data = json.loads((RESULTS / name).read_text(encoding="utf-8"))
        if next_seed is not None and data["seed"] != next_seed:
            raise ValueError(f"{name} starts at seed {data['seed']}, not {next_seed} where {row.label!r} left off")
        first = data["seed"] if first is None else first
        next_seed = data["seed"] + data["games"]
        summary = data["agents"][agent]
        scores.append(np.asarray(summary["scores"], float))
        weights.append(data["games"])
        parts.append((summary["lines"], summary["boxes"], summary["game_over_share"]))
    lines, boxes, game_over = np.average(np.array(parts), axis=0, weights=weights)
    return Games(first, np.concatenate(scores), float(lines), float(boxes), float(game_over))


def _plus_minus(values: np.ndarray, signed: bool = False) -> str:
    low, high = ci95(values)
    mean = values.mean()
    text = f"{mean:+.1f}" if signed else f"{mean:.1f}"
    return f"{text} ± {(high - low) / 2:.1f}".replace("-", "−")


def cell(column: str, games: Games, base: Games, is_base: bool) -> str:
    scores = games.scores
    if column == "mean":
        return _plus_minus(scores)
    if column == "vs":
        if is_base:
            return "—"
        if base.first_seed != games.first_seed or len(base.scores) != len(scores):
            raise ValueError("a paired difference needs the same seeds as the baseline")
        return _plus_minus(scores - base.scores, signed=True)
    if column == "median":
        return f"{np.median(scores):.0f}".replace("-", "−")
    if column in ("lines", "boxes"):
        return f"{getattr(games, column):.2f}"
    if column == "GO%":
        return f"{100 * games.game_over:.0f} %"
    share = 100 * float(np.mean(scores > int(column[1:])))
    return f"{share:.1f} %" if 0 < share < 1 else f"{share:.0f} %"


def render(name: str) -> str:
    """The Markdown of table ``name`` with the line saying where its games come from."""
    rows, columns = TABLES[name]
    base = read_games(GREEDY)
    heads = ["agent", *(HEADINGS.get(c, f"> {c[1:]}" if c[0] == ">" else c) for c in columns)]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for row in rows:
        games = read_games(row)
        cells = [cell(c, games, base, row == GREEDY) for c in columns]
        lines.append("| " + " | ".join([row.label, *cells]) + " |")
    files = sorted({f"`results/{name}`" for row in rows for name, _ in row.sources})
    seeds = f"seeds {base.first_seed}..{base.first_seed + len(base.scores) - 1}"
    lines.append(f"\n*{len(base.scores):,} games, {seeds}, the same for every agent; from {', '.join(files)}.*")
    return "\n".join(lines) + "\n"


def refreshed(text: str) -> str:
    """``text`` with every results table regenerated."""
    return BLOCK.sub(lambda m: m.group(1) + render(m.group("name")) + m.group(4), text)


def stale_pages(root: Path = ROOT) -> list[str]:
    """The pages whose tables differ from what the results files give."""
    return [page for page in PAGES if refreshed(text := (root / page).read_text(encoding="utf-8")) != text]


def main() -> None:
    for path in (ROOT / page for page in PAGES):
        path.write_text(refreshed(path.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
