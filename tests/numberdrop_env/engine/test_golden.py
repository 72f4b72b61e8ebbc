"""Replays the recorded golden games: any change of rules or encoding shows as a diff."""

import json

import pytest

from tests.golden.golden_playthrough import GOLDEN, SEEDS, playthrough


@pytest.mark.parametrize("seed", SEEDS)
def test_golden_playthrough(seed: int) -> None:
    recorded = [json.loads(line) for line in (GOLDEN / f"solo_seed{seed}.jsonl").read_text().splitlines()]
    replayed = list(playthrough(seed))
    assert len(replayed) == len(recorded)
    for step, (want, got) in enumerate(zip(recorded, replayed)):
        assert got == want, f"seed {seed}, decision {step} differs"
