"""The torch networks of the learned agents (the ``train`` extra; the RLlib module: ``rllib``):

- ``agents.networks.candidate``: the candidate scorer of turn-level models (``NumberDropTurn-v0``);
- ``agents.networks.grid``: the CNN over the grid planes of decision-level models (``NumberDrop-v0``);
- ``agents.networks.rllib_module``: both, as an RLlib module.

This file imports no torch: it holds the observation keys the RLlib module reads.
"""

MASK_KEY = "action_mask"
"""The RLlib module's input: the legal-action mask (RLlib passes only observations to a module)."""
OBS_KEY = "observations"
"""The RLlib module's input: the environment's own observation."""
