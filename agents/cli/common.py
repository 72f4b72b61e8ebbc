"""What the commands share: help text and the options every evaluation command takes."""

from __future__ import annotations

import argparse
import re


def plain_text(doc: str) -> str:
    """A docstring without its RST markup (``code``, :role:`x`), for terminal help."""
    return re.sub(r":[\w:]+:`~?([^`]*)`", r"\1", doc).replace("``", "")


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows defaults and keeps the line breaks of the description and of the option list."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.default == []:
            return action.help  # "(default: None)" or "(default: [])" says nothing
        return super()._get_help_string(action)
