"""The torch networks of the learned agents; this file imports no torch (the RLlib module's keys)."""

MASK_KEY = "action_mask"
"""The RLlib module's input: the legal-action mask (RLlib passes only observations to a module)."""
OBS_KEY = "observations"
"""The RLlib module's input: the environment's own observation."""
