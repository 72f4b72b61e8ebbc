"""Record or replay golden Lucky Numbers playthroughs (position, legal actions, action, rewards).

``python -m tests.golden.lucky_golden`` rewrites ``tests/golden/lucky_*.jsonl``; do it only on
purpose, when a rule or the action encoding changes, and review the diff.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

from luckynumbers_env import Game, Phase, Rules

GOLDEN = Path(__file__).parent
GAMES = {
    "lucky_2p_standard_seed0": (Rules(players=2), 0),
    "lucky_3p_michael_bruno_seed1": (Rules(players=3, setup="michael", bruno=True), 1),
    "lucky_4p_standard_seed2": (Rules(players=4), 2),
}


def playthrough(rules: Rules, seed: int) -> Iterator[dict]:
    """One seeded game with a seeded random policy (the pool chosen as often as a face-up tile
    and the table together), one record per decision."""
    game = Game(rules, seed=seed)
    rng = random.Random(1000 + seed)
    while not game.over:
        legal = game.legal_actions()
        if game.phase is Phase.CHOOSE and legal[0] == 0 and rng.random() < 0.5:
            action = 0
        else:
            action = rng.choice(legal)
        record = {
            "turn": game.turn,
            "player": game.player,
            "phase": game.phase.value + (" (extra)" if game.extra else ""),
            "boards": [" ".join(map(str, b)) for b in game.boards],
            "table": game.face_up(),
            "pool": game.pool_size,
            "hand": game.hand,
            "legal": legal,
            "action": game.describe_action(action),
        }
        record["rewards"] = game.step(action).tolist()
        yield record


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, (rules, seed) in GAMES.items():
        with open(GOLDEN / f"{name}.jsonl", "w") as f:
            for record in playthrough(rules, seed):
                f.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
