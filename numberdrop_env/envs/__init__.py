"""The Gymnasium and PettingZoo environments of Number Drop (``docs/envs/``)."""
