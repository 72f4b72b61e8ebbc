"""Training: configs, runs, checkpoints and resumes, on SB3 and RLlib."""
