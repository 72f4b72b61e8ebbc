"""Modules reached under a second name: old paths kept for one release, and public short names.

Each package lists its second names in a table and hands it to :func:`register`. One import
hook then makes each second name *be* its target module (``sys.modules`` maps both to it), so
every name, private ones included, monkeypatching and pickles that name the old path keep
working. Importing an old path warns (``DeprecationWarning``, at the importer's line); a public
short name does not. ``python -m OLD`` runs the new module's code, silently.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from collections.abc import Mapping
from types import CodeType, ModuleType

_TARGETS: dict[str, tuple[str, bool]] = {}
"""Second name -> (target module, whether the name is deprecated)."""


def register(moved: Mapping[str, str], public: Mapping[str, str] | None = None) -> None:
    """Old module paths (``moved``, deprecated) and public short names (``public``), each mapped
    to the module that holds the code."""
    _TARGETS.update({old: (new, True) for old, new in moved.items()})
    _TARGETS.update({name: (new, False) for name, new in (public or {}).items()})
    if not any(isinstance(finder, _SecondNames) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SecondNames())


class _SecondNames(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name: str, path: object = None, target: object = None):  # noqa: ARG002 - the finder protocol
        return importlib.util.spec_from_loader(name, self) if name in _TARGETS else None

    def create_module(self, spec) -> ModuleType:
        new, deprecated = _TARGETS[spec.name]
        if deprecated:
            warnings.warn(
                f"{spec.name} is deprecated and will be removed in the next release: import {new} instead",
                DeprecationWarning,
                stacklevel=2,
            )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        pass  # the target module has run already

    def get_code(self, name: str) -> CodeType | None:
        new = _TARGETS[name][0]
        return importlib.util.find_spec(new).loader.get_code(new)
