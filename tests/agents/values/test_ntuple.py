"""The table value: compiled lookups against the plain-Python reference, the mirror, the TD
update on a hand-computed case, and self-play that plays the greedy's games without a value."""

from __future__ import annotations

import numpy as np
import pytest

from agents.evaluation.solo import play_game
from agents.registry import make_policy
from agents.values.ntuple import FAMILIES, Layout, NTupleSpec, NTupleValue, lambda_targets, td_update
from agents.values.selfplay import Learner, play
from numberdrop_env.engine.rules import DEFAULT_RULES, EMPTY
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.packing import rule_ints, state_offsets
from numberdrop_env.planner.turns import TurnPlanner
from tests.oracles import ntuple_reference as reference

ALL = NTupleSpec(FAMILIES, stages=3)


def turns_of_play(seeds: range, turns: int) -> list[tuple[np.ndarray, object, np.ndarray]]:
    """(packed state, candidate arrays, count) of the turns of greedy games, some turns in."""
    planner, out = TurnPlanner(), []
    for seed in seeds:
        game = SoloGame(DEFAULT_RULES, seed=seed)
        game.step(game.layout.start)
        for _ in range(turns):
            if game.is_over:
                break
            states = planner.pack_batch([game], 64)
            count, arrays, _ = planner.candidate_arrays(states, DEFAULT_RULES, 64)
            out.append((states, arrays, count))
            planner.candidates(game, limit=1).play(0, game)
    return out


def reference_sheet(state: np.ndarray, arrays, k: int) -> reference.Sheet:
    """Candidate k's afterstate (game 0 of the arrays), its box ticked, as the reference reads it."""
    o, box = state_offsets(rule_ints(DEFAULT_RULES)), DEFAULT_RULES.box_sizes
    kind, size = int(arrays.combo_kind[0, k]), int(arrays.combo_size[0, k])
    ident = [bool(state[o[6] + b]) or (kind == 0 and size == s) for b, s in enumerate(box)]
    cons = [bool(state[o[7] + b]) or (kind == 1 and size == s) for b, s in enumerate(box)]
    circled = [bool(state[o[5] + b]) or (i and c) for b, (i, c) in enumerate(zip(ident, cons))]
    bonus = bool(state[o[11]]) or (kind >= 0 and size == DEFAULT_RULES.bonus_size)
    return reference.Sheet(
        arrays.values[0, k].tolist(),
        arrays.used[0, k].tolist(),
        arrays.heights[0, k].tolist(),
        arrays.notches[0, k].tolist(),
        ident,
        cons,
        bonus,
        circled,
        arrays.terms[0, k].tolist(),
    )


@pytest.fixture(scope="module")
def turns():
    return turns_of_play(range(3), turns=14)


def test_compiled_lookups_and_values_match_the_reference_on_real_candidates(turns):
    value = NTupleValue(ALL)
    value.weights[:] = np.random.default_rng(0).normal(size=value.layout.size)
    checked = 0
    for states, arrays, count in turns:
        v, _, lookups, n = value.candidate_values(states, np.arange(1), count, arrays)
        for k in range(int(count[0])):
            if arrays.ends_game[0, k]:
                assert v[0, k] == 0.0 and n[0, k] == 0
                continue
            sheet = reference_sheet(states[0], arrays, k)
            assert lookups[0, k, : n[0, k]].tolist() == reference.lookups(sheet, value.layout)
            assert v[0, k] == pytest.approx(reference.value(sheet, value.layout, value.weights), abs=1e-9)
            checked += 1
    assert checked > 500


def test_codes_see_regions_that_grow_and_paths_with_room():
    """A hand-made sheet: three 5s on the floor (the cell above them open) and a path 1-2-3
    whose top end is covered by an X."""
    cols, rows = DEFAULT_RULES.cols, DEFAULT_RULES.rows
    values = [EMPTY] * (rows * cols)
    values[0:3] = [5, 5, 5]
    values[4:7] = [1, 2, 3]
    values[cols + 6] = 10  # X above the 3
    values[cols + 4], values[cols + 5] = 10, 10  # and above the 1 and the 2
    heights = [1, 1, 1, 0, 2, 2, 2]
    sheet = reference.Sheet(
        values, [False] * len(values), heights, [0] * 5, [False] * 5, [False] * 5, False, [False] * 5
    )
    assert reference.region_codes(sheet, 11, cols, 9) == [2 * 3 + 1, 2 * 1 + 1, 2 * 1 + 0, 2 * 1 + 0]
    # the 5s touch four open cells (three above, one beside), counted up to 3; 5 is on a die
    faces = {1, 2, 3, 4, 5, 6, 7}
    assert reference.exposed_codes(sheet, 11, cols, 9, faces) == [(3 * 4 + 3) * 2 + 1, (4 + 1) * 2 + 1, 4 * 2 + 1]
    # 1-2-3: the low end touches the empty column 3 (open), the high end only X and the wall
    assert reference.path_codes(sheet, 11, cols, 9) == [4 * 3 + 2 * 1 + 0, 0, 0]


def test_the_value_of_a_sheet_equals_that_of_its_mirror_image(turns):
    value = NTupleValue(ALL)
    value.weights[:] = np.random.default_rng(1).normal(size=value.layout.size)
    cols = DEFAULT_RULES.cols
    for states, arrays, count in turns[:: max(1, len(turns) // 8)]:
        sheet = reference_sheet(states[0], arrays, 0)
        rows = len(sheet.values) // cols
        mirrored = reference.Sheet(
            [sheet.values[r * cols + cols - 1 - c] for r in range(rows) for c in range(cols)],
            [sheet.used[r * cols + cols - 1 - c] for r in range(rows) for c in range(cols)],
            sheet.heights[::-1],
            sheet.notches,
            sheet.identical,
            sheet.consecutive,
            sheet.bonus,
            sheet.circled,
            sheet.terms,
        )
        here = reference.value(sheet, value.layout, value.weights)
        assert reference.value(mirrored, value.layout, value.weights) == pytest.approx(here)


def test_lambda_targets_by_hand():
    rewards = np.array([0.0, 3.0, 4.0, 5.0])  # the points of the turn that led to each afterstate
    played = np.array([10.0, 8.0, 6.0, 0.0])  # the last afterstate ends the game
    best = np.array([10.0, 8.0, 6.0, 9.0])
    drawn = np.zeros(4, bool)
    # TD(0): next points + next value; the afterstate before the end gets the last points alone
    assert lambda_targets(rewards, played, best, drawn, 0.0).tolist() == [3 + 8, 4 + 6, 5, 0]
    # lambda 1: the points still to come
    assert lambda_targets(rewards, played, best, drawn, 1.0).tolist() == [12, 9, 5, 0]
    # lambda 0.5: t=2 -> 5; t=1 -> 4 + 0.5*6 + 0.5*5 = 9.5; t=0 -> 3 + 0.5*8 + 0.5*9.5 = 11.75
    assert lambda_targets(rewards, played, best, drawn, 0.5).tolist() == [11.75, 9.5, 5, 0]
    # a drawn move at t=2: the target before it is the best that turn offered, lambda or not
    drawn[2] = True
    assert lambda_targets(rewards, played, best, drawn, 1.0).tolist() == [3 + 6, 6, 5, 0]


def test_td_update_by_hand():
    weights = np.array([1.0, 2.0, 0.0, 4.0])
    lookups = np.array([[0, 1], [1, 3], [0, 0]])
    n = np.array([2, 2, 0])  # the last afterstate ends the game
    base = np.array([0.5, 0.0, 0.0])
    targets = np.array([7.5, 2.0, 0.0])
    sse = td_update(weights, lookups, n, base, targets, 0.5, np.zeros(0), np.zeros(0))
    # t=0: value 0.5 + 1 + 2 = 3.5, error 4, step 0.5 * 4 / 2 = 1 to w0 and w1 -> [2, 3, 0, 4]
    # t=1: value 3 + 4 = 7, error -5, step -1.25 to w1 and w3 -> [2, 1.75, 0, 2.75]
    assert weights.tolist() == [2.0, 1.75, 0.0, 2.75]
    assert sse == pytest.approx(16 + 25)


def test_temporal_coherence_by_hand():
    """Each weight's step scaled by |sum of its steps| / sum of their sizes, 1 at first."""
    weights, errors, sizes = np.zeros(2), np.zeros(2), np.zeros(2)
    lookups, n, base = np.array([[0, 1], [0, 0]]), np.array([2, 0]), np.zeros(2)
    td_update(weights, lookups, n, base, np.array([4.0, 0.0]), 0.5, errors, sizes)
    # value 0, error 4, step 1 at full rate -> both weights 1; sums of steps 1, sizes 1
    assert weights.tolist() == [1.0, 1.0] and errors.tolist() == [1.0, 1.0] and sizes.tolist() == [1.0, 1.0]
    td_update(weights, lookups, n, base, np.array([-2.0, 0.0]), 0.5, errors, sizes)
    # value 2, error -4, step -1 at rate |1| / 1 -> weights 0; sums of steps 0, sizes 2
    assert weights.tolist() == [0.0, 0.0] and errors.tolist() == [0.0, 0.0] and sizes.tolist() == [2.0, 2.0]
    td_update(weights, lookups, n, base, np.array([4.0, 0.0]), 0.5, errors, sizes)
    # error 4, step 1, but the errors cancelled out so far: rate 0 / 2, nothing moves
    assert weights.tolist() == [0.0, 0.0] and errors.tolist() == [1.0, 1.0] and sizes.tolist() == [3.0, 3.0]


def test_without_a_value_self_play_plays_the_greedys_games():
    seeds = range(500, 506)
    greedy = make_policy("greedy")
    assert play(None, seeds).scores.tolist() == [play_game(greedy, s).score for s in seeds]


def test_learning_changes_the_weights_and_scores_stay_in_range():
    value = NTupleValue(NTupleSpec(("track", "rows")))
    learner = Learner(value, alpha=0.1, lam=0.5, coherence=True)
    out = play(value, range(4), parallel=2, record=True, epsilon=0.1)
    for game in out.games:
        learner.learn(game)
    assert learner.sizes.sum() > 0
    assert np.abs(value.weights).sum() > 0
    assert out.turns > 4 * 5 and (out.scores <= 100).all()


def test_save_and_load_keep_the_value(tmp_path):
    value = NTupleValue(NTupleSpec(("letters", "heights"), stages=2), planner_share=0.5)
    value.weights[:] = np.arange(value.layout.size) % 7
    value.save(tmp_path / "v.npz")
    back = NTupleValue.load(tmp_path / "v.npz")
    assert back.spec == value.spec and back.planner_share == 0.5
    assert np.array_equal(back.weights, value.weights)


@pytest.mark.parametrize(
    "kwargs", [{"families": ("rows", "nope")}, {"families": ()}, {"families": ("rows", "rows")}, {"stages": 0}]
)
def test_bad_specs_are_refused(kwargs):
    with pytest.raises(ValueError):
        NTupleSpec(**kwargs)


def test_bad_weights_and_a_record_without_a_value_are_refused():
    with pytest.raises(ValueError, match="weights"):
        NTupleValue(NTupleSpec(("track",)), weights=np.zeros(3))
    with pytest.raises(ValueError, match="need a value"):
        play(None, range(1), record=True)


def test_layout_tables_do_not_overlap():
    lay = Layout(ALL)
    starts = sorted(lay.starts.values())
    sizes = dict(lay.tables)
    ends = [lay.starts[name] + sizes[name] for name in sizes]
    assert starts[0] == 0 and max(ends) == lay.size and len(set(starts)) == len(starts)
