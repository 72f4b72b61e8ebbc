"""The ``ppo`` agent: a MaskablePPO network (sb3-contrib) trained by ``algorithm: ppo``.

``make_policy("ppo", {"path": "runs/ppo_turn/best_model.zip"})``; without a path it loads
the shipped ``agents/models/ppo_turn.zip`` (turn level). A decision-level network (e.g.
``agents/models/ppo_solo.zip``) plays too; ``agents.numberdrop.network`` says how each kind
sees the game, ``NetworkPolicy`` lists the options.
"""

from __future__ import annotations

from .network import PPO_MODEL
from .network_policy import NetworkPolicy


class PPOPolicy(NetworkPolicy):
    """A MaskablePPO network: its policy picks, its critic values the look-ahead."""

    name = "ppo"
    default_model = PPO_MODEL
