"""Record or replay golden solo playthroughs (state, legal actions, action, reward).

``python -m tests.golden.golden_playthrough`` rewrites ``tests/golden/*.jsonl``; do it only
on purpose, when a rule or the action encoding changes, and review the diff.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.render.text import render_text

GOLDEN = Path(__file__).parent
SEEDS = (0, 1, 2)


def playthrough(seed: int) -> Iterator[dict]:
    """One seeded game with a seeded random policy, one record per decision."""
    game = SoloGame(seed=seed)
    rng = np.random.default_rng(1000 + seed)
    while not game.is_over:
        legal = np.flatnonzero(game.legal_mask())
        action = int(legal[rng.integers(len(legal))])
        record = {
            "turn": game.turn,
            "phase": game.phase.value,
            "sheet": render_text(game).splitlines(),
            "legal": legal.tolist(),
            "action": game.describe(action),
        }
        record["reward"] = game.step(action)
        record["score"] = game.score()
        yield record


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for seed in SEEDS:
        with open(GOLDEN / f"solo_seed{seed}.jsonl", "w") as f:
            for record in playthrough(seed):
                f.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
