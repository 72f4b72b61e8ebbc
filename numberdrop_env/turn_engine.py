"""Deprecated: this old path is :mod:`numberdrop_env.planner.turn_engine`, and goes in the next release."""

from gamekit.aliases import alias

alias(__name__, "numberdrop_env.planner.turn_engine")
