"""What the PettingZoo environment tests share."""

from __future__ import annotations

import pytest

QUIET_ADVICE = [
    pytest.mark.filterwarnings(f"ignore:.*{text}.*")
    for text in ("should be gymnasium.spaces.box", "Observation is not a NumPy array")
]
"""``pytestmark`` of a module: PettingZoo's checker advises Box/Discrete observations, but the
{"observation", "action_mask"} dict is the convention of its own classic environments."""
