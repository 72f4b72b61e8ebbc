"""Deprecated: this old path is :mod:`luckynumbers_env.engine.rules`, and goes in the next release."""

from gamekit.aliases import alias

alias(__name__, "luckynumbers_env.engine.rules")
