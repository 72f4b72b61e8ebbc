"""Train an agent from one YAML config in a checkout: ``python train.py --config ppo_turn``, the
same command as ``numberdrop-train`` (``python train.py --help`` lists the options).
"""

import sys

from agents.cli.train import cli

if __name__ == "__main__":
    sys.exit(cli(prog="python train.py"))
