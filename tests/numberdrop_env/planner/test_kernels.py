"""The compiled sheet evaluation equals its pure-Python reference on the sheets games produce."""

from __future__ import annotations

import numpy as np
import pytest

from agents.numberdrop.greedy import GreedyPolicy
from numberdrop_env.engine.actions import Phase
from numberdrop_env.engine.combos import neighbour_table
from numberdrop_env.engine.rules import DEFAULT_RULES, EMPTY
from numberdrop_env.engine.sheet import Sheet
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner import kernels
from numberdrop_env.planner.heuristic import Context
from numberdrop_env.planner.turns_python import _landed_cells, _writings, local_scores
from tests.oracles import heuristic_reference as ref


def sheets(seeds: range, every: int = 1):
    """Games about to place a tetromino or to score a combination; random play (messy sheets)
    on the even seeds, the greedy's on the odd ones."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        policy = GreedyPolicy() if seed % 2 else None
        game = SoloGame(seed=seed)
        step = 0
        while not game.is_over:
            if game.phase in (Phase.PLACE, Phase.COMBO):
                step += 1
                if step % every == 0:
                    yield game
            legal = np.flatnonzero(game.legal_mask())
            game.step(policy.act(game, game.legal_mask()) if policy else int(legal[rng.integers(len(legal))]))


def _arrays(game: SoloGame):
    return game.sheet.values.ravel().tolist(), game.sheet.used.ravel().tolist(), game.sheet.heights.tolist()


def test_structures_equal_the_reference():
    for game in sheets(range(12)):
        ctx = Context(game)
        vals, used, _ = _arrays(game)
        st = ctx.structures(vals, used)
        want = ref.structures(vals, used, ref.ctx_neighbours(ctx))
        assert st.free.tolist() == want["free"]
        assert st.region.tolist() == want["region"]
        assert [st.members[a:b].tolist() for a, b in zip(st.start[:-1], st.start[1:])] == want["regions"]
        assert (st.up.tolist(), st.down.tolist(), st.up_next.tolist()) == (want["up"], want["down"], want["up_next"])
        assert st.region_sizes().tolist() == [len(want["regions"][r]) if r >= 0 else 0 for r in want["region"]]


@pytest.mark.parametrize("limit", [None, 1, 3])
def test_potential_equals_the_reference(limit):
    """Exactly equal: the kernel adds the same credits in the same order."""
    for game in sheets(range(12)):
        ctx = Context(game)
        vals, used, heights = _arrays(game)
        st = ctx.structures(vals, used)
        want_st = ref.structures(vals, used, ref.ctx_neighbours(ctx))
        for ident, cons in (
            (ctx.ident_targets, ctx.cons_targets),
            (ctx.ident_targets[1:], ctx.cons_targets[:1]),
            ([], ctx.cons_targets),
            (ctx.ident_targets, []),
        ):
            got = ctx.potential(vals, st, heights, ident, cons, limit)
            assert got == ref.potential(ctx, vals, want_st, heights, ident, cons, limit)


def test_combinations_equal_the_reference():
    found = 0
    for game in sheets(range(12)):
        ctx = Context(game)
        vals, used, heights = _arrays(game)
        got = [c[:3] for c in ctx.written_sheet(vals, used, heights, 4, with_potential=False)[1]]
        assert got == ref.combinations(ctx, vals, ref.structures(vals, used, ref.ctx_neighbours(ctx)))
        found += len(got)
    assert found > 20  # the sheets do offer combinations


def test_written_sheet_values_each_combination_with_its_box_closed():
    for game in sheets(range(6)):
        ctx = Context(game)
        vals, used, heights = _arrays(game)
        now, combos = ctx.written_sheet(vals, used, heights, limit=4)
        st = ctx.structures(vals, used)
        assert now == ctx.potential(vals, st, heights, limit=4)
        assert [c[:3] for c in combos] == ref.combinations(
            ctx, vals, ref.structures(vals, used, ref.ctx_neighbours(ctx))
        )
        for kind, k, cells, after in combos:
            used2 = [u or i in cells for i, u in enumerate(used)]
            ident = [x for x in ctx.ident_targets if x != k or (kind != "identical" and k != ctx.bonus_size)]
            cons = [x for x in ctx.cons_targets if x != k or (kind == "identical" and k != ctx.bonus_size)]
            assert after == ctx.potential(vals, ctx.structures(vals, used2), heights, ident, cons, 4)
        assert ctx.written_sheet(vals, used, heights, 4, with_potential=False)[0] == 0.0


def test_local_scores_equal_the_reference():
    nbrs = ref.neighbours(14, 7)
    for game in sheets(range(6), every=3):
        if game.phase is not Phase.PLACE:
            continue
        ctx = Context(game)
        vals, used, _ = _arrays(game)
        placements = np.flatnonzero(game.legal_mask()[game.layout.place : game.layout.arrange])
        flat = _landed_cells(game.table, placements, game.sheet.heights, ctx.cols)
        _, _, written, tie = _writings(tuple(game.sorted_dice()), ctx.max_number, ctx.w.wild_default)
        got = local_scores(ctx.structures(vals, used), vals, flat, written, tie, neighbour_table(14, 7), 9)
        want = ref.local_scores(ref.structures(vals, used, nbrs), vals, flat, written, tie, 9, nbrs)
        np.testing.assert_array_equal(got, want)


def test_kernels_run_compiled():
    """The hot loops are compiled; a fallback to the Python interpreter would be 50x slower.
    (It calls them itself: under xdist no other test need have run in this process.)"""
    test_written_sheet_values_each_combination_with_its_box_closed()
    assert kernels.written_sheet_into.signatures


def test_a_squared_ratio_is_the_same_double_as_pow():
    """The potential squares (structure size / box size) by a product, not ``pow``: the same
    double for every size a sheet can hold, so the heuristic is unchanged."""
    for m in range(0, 99):
        for k in range(1, 10):
            assert kernels._power(m / k, 2.0) == (m / k) ** 2.0
    assert kernels._power(0.5, 3.0) == 0.125


def test_end_of_turn_kernel_equals_the_numpy_rule():
    """Lines tick when every cell of a regular row is filled, penalty boxes when any cell of a
    penalty row is; Game Over once a penalty box is ticked (random grids, boxes already ticked)."""
    rng = np.random.default_rng(0)
    reg = DEFAULT_RULES.regular_rows
    for _ in range(2000):
        sheet = Sheet(DEFAULT_RULES)
        density = rng.random()
        sheet.values[:] = np.where(
            rng.random(sheet.values.shape) < density, rng.integers(0, 11, sheet.values.shape), EMPTY
        )
        sheet.lines[:] = rng.random(sheet.lines.shape) < 0.1
        sheet.penalties[:] = rng.random(sheet.penalties.shape) < 0.05
        filled = sheet.values != EMPTY
        lines = sheet.lines | filled[:reg].all(axis=1)
        penalties = sheet.penalties | filled[reg:].any(axis=1)
        assert sheet.end_of_turn() == bool(penalties.any())
        assert np.array_equal(sheet.lines, lines) and np.array_equal(sheet.penalties, penalties)
