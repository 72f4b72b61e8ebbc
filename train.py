"""Train an agent from one YAML config: ``python train.py --config configs/ppo_turn.yaml``.

The command line of ``agents.training`` (``python train.py --help`` lists the options).
"""

import sys

from agents.cli.train import cli

if __name__ == "__main__":
    sys.exit(cli())
