"""Pictures from saved numbers (matplotlib: the ``train`` or ``dev`` extras).

python -m agents.cli.plots scores results/ppo_turn_1000.json docs/scores.png
python -m agents.cli.plots curve results/ppo_turn_evals.jsonl results/ppo_turn_long_evals.jsonl docs/learning_curve.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agents.evaluation.plots import plot_learning_curve, plot_scores
from agents.training.common import read_evals


def build_parser() -> argparse.ArgumentParser:
    prog = f"python -m {__spec__.name if __spec__ else 'agents.cli.plots'}"
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="picture", required=True)
    scores = sub.add_parser("scores", help="score distributions from a numberdrop-evaluate --json file")
    scores.add_argument("summary", type=Path, help="JSON written by numberdrop-evaluate --json")
    scores.add_argument("out", type=Path, help="picture to write (.png, .svg, ...)")
    curve = sub.add_parser("curve", help="learning curve from train.py's evals.jsonl files")
    curve.add_argument("evals", type=Path, nargs="+", help="evals.jsonl files, in training order")
    curve.add_argument("out", type=Path, help="picture to write (.png, .svg, ...)")
    curve.add_argument("--title", default="", help="title of the picture")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.picture == "scores":
            path = plot_scores(json.loads(args.summary.read_text()), args.out)
        else:
            path = plot_learning_curve(read_evals(args.evals), args.out, args.title)
    except (ValueError, TypeError, OSError, ImportError) as err:
        parser.error(str(err))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
