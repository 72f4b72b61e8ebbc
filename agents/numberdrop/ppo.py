"""The ``ppo`` agent: a MaskablePPO network trained by ``algorithm: ppo``, by default the shipped
``agents/models/ppo_turn.zip``; ``NetworkPolicy`` lists the options.
"""

from __future__ import annotations

from .network import PPO_MODEL
from .network_policy import NetworkPolicy


class PPOPolicy(NetworkPolicy):
    """A MaskablePPO network: its policy picks, its critic values the look-ahead."""

    name = "ppo"
    default_model = PPO_MODEL
