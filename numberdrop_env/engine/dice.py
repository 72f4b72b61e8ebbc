"""The exact distribution of one roll, merged by what it lets the player do: the number dice
matter as a multiset and the shape die by its face, so the default dice make 1860 distinct rolls
of 7776. Rows of faces as ``solo.roll_faces`` gives them, which the planner's packed games take.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from gamekit.checks import positive_int

from .rules import DEFAULT_RULES, WILD, Rules


class Rolls(NamedTuple):
    """Distinct rolls and their probabilities (summing to 1)."""

    faces: np.ndarray
    """(rolls, number dice + 1) int64: each number die's face index, then the shape die's (the
    smallest such row of each merged roll)."""
    probabilities: np.ndarray


def roll_distribution(rules: Rules = DEFAULT_RULES) -> Rolls:
    """Every distinct roll of these rules' dice with its probability, in the order of their
    smallest face rows (read-only arrays: the table is shared)."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
    return _distribution(rules)


@lru_cache(maxsize=8)
def _distribution(rules: Rules) -> Rolls:
    sizes = [len(d) for d in rules.number_dice] + [len(rules.shape_die)]
    faces = np.indices(sizes).reshape(len(sizes), -1).T  # every face combination, in row order
    keys = _roll_keys(faces, rules)
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    out = Rolls(
        np.ascontiguousarray(faces[first[order]], np.int64),
        counts[order] / float(len(faces)),
    )
    for field in out:
        field.flags.writeable = False
    return out


def sample_rolls(rng: np.random.Generator, n: int, rules: Rules = DEFAULT_RULES) -> Rolls:
    """``n`` rolls drawn from ``roll_distribution``: the distinct ones, in the table's order,
    each weighted by its share of the draws."""
    n = positive_int(n, "n")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    table = roll_distribution(rules)
    drawn = rng.choice(len(table.probabilities), size=int(n), p=table.probabilities)
    rolls, counts = np.unique(drawn, return_counts=True)
    return Rolls(table.faces[rolls], counts / float(n))


def _roll_keys(faces: np.ndarray, rules: Rules) -> np.ndarray:
    """One integer per row of faces, equal exactly for rolls that give the same decisions: the
    number dice's sorted values (a star as the value above the largest) and the shape face."""
    star = rules.max_number + 1
    numbers = np.column_stack([np.array(d)[faces[:, i]] for i, d in enumerate(rules.number_dice)])
    numbers = np.sort(np.where(numbers == WILD, star, numbers), axis=1)
    shape = np.array([rules.shape_die.index(f) for f in rules.shape_die])[faces[:, -1]]  # a face's first index
    key = shape.astype(np.int64)
    for k in range(numbers.shape[1]):
        key = key * (star + 1) + numbers[:, k]
    return key
