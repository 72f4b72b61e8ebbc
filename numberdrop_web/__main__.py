"""``python -m numberdrop_web``: the same as ``numberdrop-web``."""

import sys

from .cli import cli

sys.exit(cli())
