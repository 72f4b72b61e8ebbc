"""The ``q`` agent: the Q-iteration network (``algorithm: q_iteration``), whose score of each
candidate of a turn is that candidate's value in points; it plays the best.

It is stored in MaskablePPO's ``.zip`` format, so it loads and plays as ``NetworkPolicy``
does; without a path it loads the shipped ``agents/models/q_turn.zip``, offered the 128
candidates a turn it was saved with. ``best`` is this agent with a one-turn look-ahead valued
by its value head (``agents.registry.PRESETS``).
"""

from __future__ import annotations

from ..base import MODELS
from .network_policy import NetworkPolicy


class QPolicy(NetworkPolicy):
    """The Q-iteration network: its scores pick, its value head values the look-ahead."""

    name = "q"
    default_model = MODELS / "q_turn.zip"
