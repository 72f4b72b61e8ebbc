"""Checks of values that come from outside (saved states a user may have edited, seeds, actions):
each value's type and range before any use or cast, naming the field refused. Numbers are
checked as Python ints, before NumPy could wrap them (261 would become 5 in ``int8``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

_PCG_STATE = 2**128
_UINT32 = 2**32


def make_rng(seed: np.random.Generator | int | None) -> np.random.Generator:
    """A generator from a seed; anything but an int, None or a Generator is a TypeError."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)):
        if seed is not None and seed < 0:
            raise ValueError(f"seed must be a non-negative int, got {seed}")
        return np.random.default_rng(seed)
    raise TypeError(f"seed must be an int, None or numpy Generator, got {type(seed).__name__}")


def as_action(action: Any, size: int) -> int:
    """An action index checked against the action space (``TypeError``/``ValueError`` otherwise)."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
            action = int(action)
        else:
            raise TypeError(f"action must be an int, got {type(action).__name__}")
    if not 0 <= action < size:
        raise ValueError(f"action {action} is outside the action space 0..{size - 1}")
    return int(action)


def positive_int(value: Any, name: str) -> int:
    """An int (not a bool) of at least 1: a count or size argument."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def expect_keys(data: Any, keys: set[str], where: str, version: int | None = None) -> None:
    """``data`` is a dict with exactly ``keys``, and with ``version`` its ``"version"`` is that int."""
    if not isinstance(data, dict):
        raise TypeError(f"{where}: expected a dict, got {type(data).__name__}")
    missing, unknown = keys - data.keys(), data.keys() - keys
    if missing or unknown:
        raise ValueError(f"{where}: missing keys {sorted(missing)}, unknown keys {sorted(map(str, unknown))}")
    found = data.get("version")
    if version is not None and (isinstance(found, bool) or not isinstance(found, int) or found != version):
        raise ValueError(f"{where}.version: expected {version}, got {found!r}")


def as_list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def as_int(value: Any, lo: int, hi: int, where: str) -> int:
    """An int (never a bool or a float, even a whole one) inside ``lo..hi``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{where}: expected an int, got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{where}: {value} is outside {lo}..{hi}")
    return int(value)


def as_bool(value: Any, where: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: expected a bool, got {value!r}")
    return bool(value)


def as_names(value: Any, allowed: Iterable[str], where: str) -> list[str]:
    """A list of names that is a permutation of ``allowed`` (checked as strings, so any entry may be anything)."""
    items = as_list(value, where)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{where}[{i}]: expected a name, got {type(item).__name__} {item!r}")
    if sorted(items) != sorted(allowed):
        raise ValueError(f"{where}: expected a permutation of {sorted(allowed)}, got {items!r}")
    return items


def int_grid(
    value: Any, shape: tuple[int, ...], allowed: set[int] | range, where: str, described: str, dtype: type = np.int64
) -> np.ndarray:
    """A nested list (or integer array) of ``shape`` whose every entry is an int in ``allowed``
    (``described`` in words, for the error)."""
    flat = _flat(value, shape, where)
    for i, v in enumerate(flat):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{where}{_index(i, shape)}: expected an int, got {v!r}")
        if v not in allowed:
            raise ValueError(f"{where}{_index(i, shape)}: {v} is not {described}")
    return np.array(flat, dtype).reshape(shape)


def bool_grid(value: Any, shape: tuple[int, ...], where: str) -> np.ndarray:
    """A nested list (or bool array) of ``shape`` whose every entry is a bool."""
    flat = _flat(value, shape, where)
    for i, v in enumerate(flat):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{where}{_index(i, shape)}: expected a bool, got {v!r}")
    return np.array(flat, bool).reshape(shape)


def _flat(value: Any, shape: tuple[int, ...], where: str) -> list[Any]:
    """The entries of a nested list of exactly ``shape``, row-major."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    rows = [value]
    for depth, n in enumerate(shape):
        for row in rows:
            if not isinstance(row, list):
                raise TypeError(
                    f"{where}: expected nested lists of shape {shape}, got {type(row).__name__} at depth {depth}"
                )
            if len(row) != n:
                raise ValueError(f"{where}: expected shape {shape}, got {len(row)} entries at depth {depth}")
        rows = [item for row in rows for item in row]
    return rows


def _index(i: int, shape: tuple[int, ...]) -> str:
    return "".join(f"[{k}]" for k in np.unravel_index(i, shape))


def restore_rng(rng: np.random.Generator, state: Any, where: str) -> None:
    """Set ``rng`` to a saved bit-generator state, refusing one it could not be in (NumPy itself
    ignores unknown keys and stores some numbers unchecked)."""
    bit = type(rng.bit_generator)
    template = rng.bit_generator.state
    _same_layout(state, template, where)
    if bit is np.random.PCG64 or bit is np.random.PCG64DXSM:
        _pcg_ranges(state, where)
    probe = np.random.Generator(bit())
    try:
        probe.bit_generator.state = state
    except (TypeError, ValueError, KeyError, OverflowError) as err:
        raise ValueError(f"{where}: not a {bit.__name__} state ({err})") from err
    if not _equal(probe.bit_generator.state, state):
        raise ValueError(f"{where}: a number is outside what a {bit.__name__} state holds")
    rng.bit_generator.state = state


def _same_layout(value: Any, template: Any, where: str) -> None:
    """``value`` has the keys and leaf types of ``template`` (the generator's own state)."""
    if isinstance(template, dict):
        expect_keys(value, set(template), where)
        for key, sub in template.items():
            _same_layout(value[key], sub, f"{where}.{key}")
    elif isinstance(template, str):
        if value != template:
            raise ValueError(f"{where}: expected {template!r}, got {value!r}")
    elif isinstance(template, np.ndarray):
        if not isinstance(value, (list, np.ndarray)) or np.shape(value) != template.shape:
            raise ValueError(f"{where}: expected an array of shape {template.shape}")
    else:
        as_int(value, 0, 2**256, where)


def _pcg_ranges(state: dict[str, Any], where: str) -> None:
    as_int(state["state"]["state"], 0, _PCG_STATE - 1, f"{where}.state.state")
    if as_int(state["state"]["inc"], 1, _PCG_STATE - 1, f"{where}.state.inc") % 2 == 0:
        raise ValueError(f"{where}.state.inc: a PCG64 increment is always odd")
    as_int(state["has_uint32"], 0, 1, f"{where}.has_uint32")
    as_int(state["uinteger"], 0, _UINT32 - 1, f"{where}.uinteger")


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    return a == b
