"""What the commands share: help text, the options every evaluation command takes, and how a
command runs (a line while numba compiles, a quiet end when its reader leaves)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from typing import NoReturn

from numberdrop_env.compile_progress import CompileProgress

CLOSED_PIPE = 141
"""The exit status when the output's reader left (``| head``): 128 + SIGPIPE, as the shell reports
a program that signal stopped."""


def plain_text(doc: str) -> str:
    """A docstring without its RST markup (``code``, :role:`x`), for terminal help."""
    return re.sub(r":[\w:]+:`~?([^`]*)`", r"\1", doc).replace("``", "")


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows defaults and keeps the line breaks of the description and of the option list."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.default == []:
            return action.help  # "(default: None)" or "(default: [])" says nothing
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """A command's parser, described by its module's docstring. The epilog, the agents' options, is
    written only when the help is shown: it reads every agent's constructor, which imports torch
    and Ray (about 2 s that a command playing the greedy has no use for)."""

    def __init__(self, prog: str, doc: str, options_help: Callable[[], str] | None = None) -> None:
        super().__init__(prog=prog, description=plain_text(doc), formatter_class=HelpFormatter)
        self.options_help = options_help

    def add_agent_options(self, example: str) -> None:
        """``--option AGENT.NAME=VALUE``, repeatable."""
        self.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="AGENT.NAME=VALUE",
            help=f"agent option, e.g. {example} (repeatable; options listed below)",
        )

    def format_help(self) -> str:
        if self.epilog is None and self.options_help:
            self.epilog = self.options_help()
        return super().format_help()


def refuse(parser: argparse.ArgumentParser, err: Exception) -> NoReturn:
    """Exit 2 with the error: a missing extra (``ImportError``) as its one line, the command line
    being right; anything else after the usage, as argparse does."""
    if isinstance(err, ImportError):
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    parser.error(str(err))


def run_command(command: Callable[[], object]) -> int:
    """Run a command's ``main``: 0 when it ends; ``CLOSED_PIPE``, silently, when the reader of its
    output left (``numberdrop-play | head``), as other command-line tools stop."""
    try:
        with CompileProgress():  # a line while numba compiles (a fresh install)
            command()
            sys.stdout.flush()  # a closed pipe surfaces here, not at the interpreter's exit
    except BrokenPipeError:
        return closed_pipe()
    return 0


def closed_pipe() -> int:
    """After the output's reader left: ``CLOSED_PIPE``, the interpreter's last flush sent nowhere."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return CLOSED_PIPE
