"""The exact roll distribution against a brute-force enumeration of every face combination."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from numberdrop_env.engine.dice import Rolls, roll_distribution, sample_rolls
from numberdrop_env.engine.rules import DEFAULT_RULES, WILD, Rules
from numberdrop_env.engine.solo import SoloGame, roll_faces, roll_of
from numberdrop_env.planner.turns import TurnPlanner

OTHER = Rules(
    number_dice=((1, 2, 3, 4, 5, 6), (WILD, 2, 4, 6), (WILD, WILD, 3, 3, 5), (1, 1, 1, 7, 7, 7)),
    shape_die=("I", "*", "O", "*", "S", "I", "T"),
)
"""Dice of other sizes, with repeated faces and two stars on the shape die."""


def brute_force(rules: Rules) -> list[tuple[tuple[int, ...], Fraction]]:
    """Every face combination, merged by (sorted values, stars last; shape face) in plain Python;
    each merged roll named by its first face row in product order."""
    sizes = [len(d) for d in rules.number_dice] + [len(rules.shape_die)]
    total = 1
    for s in sizes:
        total *= s
    merged: dict[tuple, list] = {}
    for faces in itertools.product(*(range(s) for s in sizes)):
        values = [rules.number_dice[i][f] for i, f in enumerate(faces[:-1])]
        key = (tuple(sorted(values, key=lambda v: (v == WILD, v))), rules.shape_die[faces[-1]])
        if key not in merged:
            merged[key] = [faces, 0]
        merged[key][1] += 1
    return [(faces, Fraction(count, total)) for faces, count in merged.values()]


@pytest.mark.parametrize("rules", [DEFAULT_RULES, OTHER], ids=["default", "other"])
def test_distribution_matches_brute_force(rules: Rules) -> None:
    table = roll_distribution(rules)
    expected = brute_force(rules)
    assert table.faces.dtype == np.int64 and table.faces.shape == (len(expected), len(rules.number_dice) + 1)
    assert [tuple(row) for row in table.faces.tolist()] == [faces for faces, _ in expected]
    assert np.allclose(table.probabilities, [float(p) for _, p in expected], rtol=0, atol=1e-15)
    assert table.probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    assert (table.probabilities > 0).all()


def test_default_counts() -> None:
    table = roll_distribution(DEFAULT_RULES)
    assert len(table.probabilities) == 1860  # of 6 ** 5 = 7776 face combinations
    numbers = {tuple(sorted(roll_of(row, DEFAULT_RULES)[0])) for row in table.faces.tolist()}
    assert len(numbers) == 310  # the number dice's distinct multisets, under each of 6 shape faces
    shapes = [roll_of(row, DEFAULT_RULES)[1] for row in table.faces.tolist()]
    assert all(shapes.count(s) == 310 for s in DEFAULT_RULES.shape_die)
    # the shape die is independent of the numbers: each shape face holds a sixth of the mass
    for s in DEFAULT_RULES.shape_die:
        assert table.probabilities[[x == s for x in shapes]].sum() == pytest.approx(1 / 6)
    # a roll whose values can come from a single assignment only: 1 / 6^5
    one = next(i for i, row in enumerate(table.faces.tolist()) if roll_of(row, DEFAULT_RULES)[0] == (1, 1, 2, 1))
    assert table.probabilities[one] == pytest.approx(1 / 6**5)


def test_other_dice_merge_repeated_faces() -> None:
    table = roll_distribution(OTHER)
    shapes = [roll_of(row, OTHER)[1] for row in table.faces.tolist()]
    assert sorted(set(shapes)) == sorted(set(OTHER.shape_die))  # two stars, two I faces: one roll each
    star = table.probabilities[[s == "*" for s in shapes]].sum()
    assert star == pytest.approx(2 / 7)


def test_table_is_shared_and_read_only() -> None:
    table = roll_distribution()
    assert table is roll_distribution(DEFAULT_RULES)
    with pytest.raises(ValueError):
        table.faces[0, 0] = 1


def test_merged_rolls_start_the_same_packed_turn() -> None:
    """Two face rows of one merged roll start the same packed game: the planner cannot tell them apart."""
    rules = DEFAULT_RULES
    planner = TurnPlanner()
    game = SoloGame(rules, seed=3)
    game.step(game.layout.start)
    row = planner.pack_batch([game], 8)
    table = roll_distribution(rules)
    keys = {}
    rng = np.random.default_rng(0)
    for faces in roll_faces(rng, rules, 400):
        values, shape = roll_of(faces.tolist(), rules)
        keys.setdefault((tuple(sorted(values, key=lambda v: (v == WILD, v))), shape), []).append(faces)
    checked = 0
    for rows in keys.values():
        if len(rows) < 2:
            continue
        states = np.repeat(row, 2, axis=0)
        planner.start_turns(states, rules, np.arange(2), np.stack(rows[:2]))
        assert (states[0] == states[1]).all()
        checked += 1
    assert checked > 10
    # and the table's rows are accepted as they are
    states = np.repeat(row, 5, axis=0)
    planner.start_turns(states, rules, np.arange(5), table.faces[:5])
    count, _, _ = planner.candidate_arrays(states, rules, 8)
    assert (count > 0).all()


def test_sampler() -> None:
    rolls = sample_rolls(np.random.default_rng(1), 32)
    again = sample_rolls(np.random.default_rng(1), 32)
    assert isinstance(rolls, Rolls)
    assert (rolls.faces == again.faces).all() and (rolls.probabilities == again.probabilities).all()
    assert rolls.probabilities.sum() == pytest.approx(1.0)
    assert np.allclose(rolls.probabilities * 32, np.round(rolls.probabilities * 32))
    table = roll_distribution()
    index = {tuple(r): i for i, r in enumerate(table.faces.tolist())}
    drawn = [index[tuple(r)] for r in rolls.faces.tolist()]
    assert drawn == sorted(set(drawn))  # distinct, in the table's order
    many = sample_rolls(np.random.default_rng(2), 400_000)
    share = np.zeros(len(table.probabilities))
    share[[index[tuple(r)] for r in many.faces.tolist()]] = many.probabilities
    assert np.abs(share - table.probabilities).sum() < 0.1  # about 0.05 expected from sampling alone
    assert sample_rolls(np.random.default_rng(0), 5, OTHER).faces.shape[1] == 5


@pytest.mark.parametrize("n", [0, -1, 1.5, True])
def test_sampler_refuses_bad_counts(n: object) -> None:
    with pytest.raises(ValueError, match="n must be"):
        sample_rolls(np.random.default_rng(0), n)  # type: ignore[arg-type]


def test_sampler_refuses_a_seed() -> None:
    with pytest.raises(TypeError, match="Generator"):
        sample_rolls(0, 4)  # type: ignore[arg-type]
