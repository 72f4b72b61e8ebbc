"""What the commands share: help text and the options every evaluation command takes."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable


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
