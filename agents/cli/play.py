"""Play one solo game and print the sheet: ``numberdrop-play --agent greedy`` (or
``python -m agents.cli.play --agent greedy``).

    numberdrop-play                                                  # the strongest agent this install runs
    numberdrop-play --agent ppo --seed 0 --gif game.gif --per-turn   # an animation of the game
    numberdrop-play --agent greedy --record game.json                # the seed and the actions
    numberdrop-play --replay game.json --gif game.gif                # the same game again, exactly
    numberdrop-play --human                                          # you play, in the terminal
    numberdrop-play --human --resume                                 # continue the game you left
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from agents.cli.common import Parser, refuse, run_command
from agents.cli.human import HumanGame
from agents.cli.replay import Record, frames, replay, save_gif
from agents.registry import AGENTS, describe_options, make_policy, parse_options, require_extra
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.render.text import render_text

PROG = "numberdrop-play"

STRONGEST = ("best", "ntuple_expectimax", "ntuple", "q", "greedy", "jax_ppo")
"""The agents by their mean score (the README's results table), strongest first: without
``--agent``, the first one this install can run plays."""


def default_save() -> Path:
    """Where a game you leave is saved: the user's data folder (XDG), never the working directory."""
    data = Path(os.environ.get("XDG_DATA_HOME", ""))
    if not data.is_absolute():  # unset, empty or relative: the XDG default
        data = Path.home() / ".local" / "share"
    return data / "numberdrop" / "save.json"


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = Parser(prog, __doc__, describe_options)
    parser.add_argument(
        "--agent",
        choices=list(AGENTS),
        help="the agent that plays (default: the strongest this install runs: best, "
        "or ntuple_expectimax without the train extra)",
    )
    parser.add_argument("--seed", type=int, default=0, help="game seed (tile mapping and dice)")
    parser.add_agent_options("greedy.width=8")
    parser.add_argument("--every-turn", action="store_true", help="print the sheet after every turn")
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--replay",
        type=Path,
        metavar="RECORD",
        help="play back a game saved by --record instead of letting an agent play",
    )
    source.add_argument("--human", action="store_true", help="play the game yourself, in the terminal")
    save = default_save()
    parser.add_argument(
        "--resume",
        type=Path,
        nargs="?",
        const=save,
        metavar="SAVE",
        help=f"with --human: continue a saved game (alone: the one in {save})",
    )
    parser.add_argument(
        "--save",
        type=Path,
        metavar="SAVE",
        help=f"with --human: where quit saves the game (default: the --resume file, else {save})",
    )
    parser.add_argument(
        "--record",
        type=Path,
        metavar="RECORD",
        help="write the game's start (seed or position) and actions to this JSON file",
    )
    parser.add_argument("--gif", type=Path, help="draw the game as an animated GIF: one picture per decision")
    parser.add_argument("--per-turn", action="store_true", help="with --gif: one picture per turn instead")
    parser.add_argument(
        "--frame-ms",
        type=int,
        metavar="MS",
        help="with --gif: milliseconds per picture (default: 250, 1200 with --per-turn)",
    )
    return parser


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    """Plays the game and returns its score, for callers in Python; the console script is cli()."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        _check(args)
        if args.human:
            game = SoloGame.load(args.resume) if args.resume else SoloGame(seed=args.seed)
            start = (
                {"seed": None, "state": game.to_dict(), "score": game.score()} if args.resume else {"seed": args.seed}
            )
            session = HumanGame(game, Record(player="human", **start), args.save or args.resume or default_save())
            session.play()
            game, record = session.game, session.record
        else:
            record = Record.load(args.replay) if args.replay else play_agent(args)
            game = show(record, args.every_turn)
        if args.record:
            record.save(args.record)
        if args.gif:
            ms = args.frame_ms or (1200 if args.per_turn else 250)
            count = save_gif(list(frames(record, args.per_turn)), args.gif, ms)
            print(f"wrote {args.gif}: {count} pictures")
    except BrokenPipeError:
        raise  # the reader left: not a usage error (run_command ends quietly)
    except (ValueError, TypeError, OSError, ImportError) as err:
        refuse(parser, err)
    return game.score()


def _check(args: argparse.Namespace) -> None:
    if (args.resume or args.save) and not args.human:
        raise ValueError("--resume and --save continue and save a game you play: add --human")
    if (args.per_turn or args.frame_ms is not None) and not args.gif:
        raise ValueError("--per-turn and --frame-ms go with --gif")
    if args.frame_ms is not None and args.frame_ms <= 0:
        raise ValueError(f"--frame-ms must be positive, got {args.frame_ms}")
    if args.seed < 0:
        raise ValueError(f"--seed must be non-negative, got {args.seed}")


def default_agent() -> tuple[str, str]:
    """The strongest agent this install runs, and a line saying which (and why not a stronger one);
    asks only whether each extra's packages are there, so finding out imports no torch."""
    passed = []
    for name in STRONGEST:  # the last, greedy, needs no extra
        extra = AGENTS[name].partition("[")[2].rstrip("] ")
        try:
            if extra:
                require_extra(extra, name)
            break
        except ImportError:
            passed.append(f"{name} needs the {extra} extra")
    return name, f"agent: {name}" + (f" ({'; '.join(passed)})" if passed else "")


def play_agent(args: argparse.Namespace) -> Record:
    """The agent's game as a record (the seed and every action it chose)."""
    if args.agent is None:
        args.agent, line = default_agent()
        print(line)
    policy = make_policy(args.agent, parse_options(args.option, [args.agent])[args.agent])
    policy.reset(args.seed)
    game = SoloGame(seed=args.seed)
    actions = []
    while not game.is_over:
        actions.append(int(policy.act(game, game.legal_mask())))
        game.step(actions[-1])
    return Record(actions, seed=args.seed, player=args.agent, score=game.score())


def show(record: Record, every_turn: bool) -> SoloGame:
    """Replay the record, printing the sheet (after every turn, or at the end); returns the last game."""
    game, turn = record.start(), 0
    for game, _, _ in replay(record):
        if every_turn and game.turn != turn:
            turn = game.turn
            print(render_text(game))
    print(render_text(game))
    print(f"final score: {game.score()}" if game.is_over else f"score so far: {game.score()} (the game goes on)")
    return game


def cli(argv: list[str] | None = None, prog: str = PROG) -> int:
    """Exit status 0 on success (a console script would otherwise exit with the score as its
    status), 141 when the output's reader left."""
    return run_command(lambda: main(argv, prog))


if __name__ == "__main__":
    sys.exit(cli(prog=f"python -m {__spec__.name if __spec__ else 'agents.cli.play'}"))
