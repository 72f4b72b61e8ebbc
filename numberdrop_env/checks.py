"""Deprecated: this old path is :mod:`gamekit.checks`, and goes in the next release."""

from gamekit.aliases import alias

alias(__name__, "gamekit.checks")
