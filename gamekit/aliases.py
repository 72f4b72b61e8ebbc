"""Modules reached under a second name: old paths kept for one release, and public short names.

An alias module calls :func:`alias` with its own ``__name__``; the name then *is* the target
module (``sys.modules`` maps both to it), so every name, private ones included, monkeypatching
and pickles that name the old path keep working.
"""

from __future__ import annotations

import importlib
import sys
import warnings


def alias(name: str, target: str, *, deprecated: bool = True) -> None:
    """Make module ``name`` the module ``target``; a deprecated alias warns (``DeprecationWarning``)
    at the importer's line."""
    if deprecated:
        warnings.warn(f"{name} is deprecated and will be removed in the next release: import {target} instead",
                      DeprecationWarning, stacklevel=3)
    sys.modules[name] = importlib.import_module(target)
