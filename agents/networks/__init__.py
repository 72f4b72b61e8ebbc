"""The torch networks of the learned agents: ``candidate`` (turn level), ``grid`` (decision
level) and ``rllib_module`` (both, as an RLlib module). This file imports no torch: it holds the
observation keys the RLlib module reads.
"""

MASK_KEY = "action_mask"
"""The RLlib module's input: the legal-action mask (RLlib passes only observations to a module)."""
OBS_KEY = "observations"
"""The RLlib module's input: the environment's own observation."""
