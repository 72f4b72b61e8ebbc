"""The ``q`` agent: the Q-iteration network, whose score of a candidate is its value in points; by
default the shipped ``agents/models/q_turn.zip`` with the 128 candidates it was saved with.
``best`` is this agent with a one-turn look-ahead (``agents.registry.PRESETS``).
"""

from __future__ import annotations

from ..base import MODELS
from .network_policy import NetworkPolicy


class QPolicy(NetworkPolicy):
    """The Q-iteration network: its scores pick, its value head values the look-ahead."""

    name = "q"
    default_model = MODELS / "q_turn.zip"
