"""The Lucky Numbers n-tuple value against a plain-Python reference, its TD update, its agent."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.luckynumbers import make_policy
from agents.luckynumbers.ntuple import (
    CELLS,
    CODES,
    DRAWN,
    MINE_CODES,
    OPPONENT_CAP,
    ROOM_OF,
    STAGES,
    TAKE,
    THREAT_CODES,
    TUPLES,
    VALUE_BINS,
    Context,
    NTuplePolicy,
    NTupleSpec,
    NTupleValue,
    play_and_learn,
    reward,
    td_lambda,
)
from agents.luckynumbers.value import BoardValue
from luckynumbers_env import Game, Rules
from luckynumbers_env.engine.game import line_bounds


# ---------------------------------------------------------------------------- the reference
def ref_bounds(board: list[int], top: int) -> tuple[list[int], list[int]]:
    """Per cell, from the engine's own line bounds: the largest tile before it, the smallest after."""
    lo, hi = [0] * CELLS, [top] * CELLS
    for r in range(4):
        row = line_bounds(tuple(board[r * 4 : r * 4 + 4]), top)
        col = line_bounds(tuple(board[r::4]), top)
        for j in range(4):
            lo[r * 4 + j] = max(lo[r * 4 + j], row[0][j])
            hi[r * 4 + j] = min(hi[r * 4 + j], row[1][j])
            lo[j * 4 + r] = max(lo[j * 4 + r], col[0][j])
            hi[j * 4 + r] = min(hi[j * 4 + r], col[1][j])
    return lo, hi


def ref_code(v: int, lo: int, hi: int, max_tile: int) -> int:
    if v:
        return (v - 1) * VALUE_BINS // max_tile
    return VALUE_BINS + int(ROOM_OF[min(max(hi - lo - 1, 0), 7)])


def ref_lookups(value: NTupleValue, board: list[int], table: list[int], pool_after: int, ctx: Context) -> list[int]:
    """The lookups of an afterstate, computed cell by cell in plain Python."""
    empty = board.count(0)
    opp_min = min(ctx.opp_empty.tolist(), default=CELLS)
    if empty == 0 or pool_after == 0:
        return []
    lo, hi = ref_bounds(board, ctx.max_tile + 1)
    L, out = value.layout, []
    for family in ("lines", "diagonals", "squares"):
        if family not in L.starts:
            continue
        for k, cells in TUPLES[family]:
            idx = 0
            for c in cells:
                idx = idx * CODES + ref_code(board[c], lo[c], hi[c], ctx.max_tile)
            out.append(L.starts[family][k] + idx)
    face_up = {v for v in range(1, len(table)) if table[v]}
    p = ctx.players - 2
    if "race" in L.starts:
        stage = min(pool_after * STAGES // ctx.pool_start, STAGES - 1)
        idx = ((p * STAGES + stage) * (CELLS + 1) + empty) * (OPPONENT_CAP + 1) + min(opp_min, OPPONENT_CAP)
        out.append(L.starts["race"][0] + idx)
    if "offer" in L.starts:
        fed = [
            e for e, bits in zip(ctx.opp_empty.tolist(), ctx.opp_bits.tolist()) if any(bits >> v & 1 for v in face_up)
        ]
        threat = min(min(fed), THREAT_CODES - 1) if fed else 0
        fits = {v for c in range(CELLS) if not board[c] for v in range(lo[c] + 1, hi[c])}
        mine = min(len(fits & face_up), MINE_CODES - 1)
        out.append(L.starts["offer"][0] + ((p * (CELLS + 1) + empty) * THREAT_CODES + threat) * MINE_CODES + mine)
    return out


def ref_value(value: NTupleValue, board: list[int], table: list[int], pool_after: int, ctx: Context) -> float:
    empty, opp = board.count(0), ctx.opp_empty.tolist()
    if empty == 0:
        return 2.0
    if pool_after == 0:
        return 2.0 / (1 + opp.count(empty)) if empty <= min(opp) else -float(empty)
    base = value.share * (BoardValue(4, ctx.max_tile).value(board) - CELLS)  # the greedy's, less a full board's
    return base + float(sum(value.weights[i] for i in ref_lookups(value, board, table, pool_after, ctx)))


def positions(players: int, seed: int, every: int = 7) -> list[Game]:
    """Positions reached by random play (sources drawn from the pool half the time)."""
    game, rng, out = Game(Rules(players=players), seed=seed), random.Random(seed), []
    step = 0
    while not game.over:
        legal = game.legal_actions()
        action = 0 if 0 in legal and rng.random() < 0.5 else rng.choice(legal)
        game.step(action)
        step += 1
        if step % every == 0 and not game.over:
            out.append(game.clone())
    return out


def random_value(spec: NTupleSpec | None = None, seed: int = 0) -> NTupleValue:
    v = NTupleValue(spec or NTupleSpec())
    v.weights[:] = np.random.default_rng(seed).normal(size=len(v.weights))
    return v


# ---------------------------------------------------------------------------- tests
def test_geometry_of_the_tuples():
    lines = TUPLES["lines"]
    assert [cells for _, cells in lines[:4]] == [list(range(r * 4, r * 4 + 4)) for r in range(4)]
    assert lines[5] == (1, [1, 5, 9, 13])  # column 1 reads row 1's table, top to bottom
    assert TUPLES["diagonals"] == [(0, [0, 5, 10, 15]), (1, [3, 6, 9, 12])]
    squares = dict(((cells[0], k), cells) for k, cells in TUPLES["squares"])
    assert squares[(1, 3)] == [1, 2, 5, 6] and squares[(4, 3)] == [4, 8, 5, 9]  # (0,1) and its transpose (1,0)
    assert len(TUPLES["squares"]) == 9


@pytest.mark.parametrize("players", [2, 3, 4])
def test_lookups_and_values_match_the_reference_on_real_boards(players):
    value = random_value(seed=players)
    checked = 0
    for game in positions(players, seed=10 + players):
        for seat in range(players):
            ctx = Context.of(game, seat)
            board, table = game.boards[seat], game.table
            for pool_after in (game.pool_size, max(game.pool_size - 1, 0)):
                want = ref_lookups(value, board, table, pool_after, ctx)
                assert value.lookups(board, table, pool_after, ctx).tolist() == want
                assert value.value(board, table, pool_after, ctx) == pytest.approx(
                    ref_value(value, board, table, pool_after, ctx), abs=1e-9
                )
                checked += 1
    assert checked > 20


@pytest.mark.parametrize("families", [("lines",), ("squares", "offer"), ("race", "diagonals")])
def test_families_switch_tables_off(families):
    value = random_value(NTupleSpec(families), seed=1)
    for game in positions(3, seed=4)[:5]:
        ctx = Context.of(game, game.player)
        b = game.boards[game.player]
        assert value.lookups(b, game.table, game.pool_size, ctx).tolist() == ref_lookups(
            value, b, game.table, game.pool_size, ctx
        )


def test_tile_values_are_the_best_afterstate_of_each_tile():
    value = random_value(seed=7)
    for game in positions(4, seed=3, every=11):
        p = game.player
        ctx, board, table = Context.of(game, p), game.boards[p], game.table
        lo, hi = game.bounds(p)
        tiles = list(range(1, 21))
        for mode in (TAKE, DRAWN):
            pool_after = game.pool_size - (mode == DRAWN)
            best, where = value.tile_values(board, tiles, table, mode, pool_after, ctx)
            for i, t in enumerate(tiles):
                options = {}
                for c in range(CELLS):
                    if lo[c] < t < hi[c] and board[c] != t:
                        b, tab = board[:], table[:]
                        if mode == TAKE:
                            tab[t] -= 1 if tab[t] else 0
                        if b[c]:
                            tab[b[c]] += 1
                        b[c] = t
                        options[c] = ref_value(value, b, tab, pool_after, ctx)
                if mode == DRAWN:
                    tab = table[:]
                    tab[t] += 1
                    options[-1] = ref_value(value, board, tab, pool_after, ctx)
                if not options:
                    assert where[i] == -2 and best[i] == -np.inf
                    continue
                assert best[i] == pytest.approx(max(options.values()), abs=1e-9)
                assert options[int(where[i])] == pytest.approx(best[i], abs=1e-9)


def test_the_untrained_value_is_the_greedys_board_value():
    value = NTupleValue()
    bv = BoardValue(4, 20)
    for game in positions(4, seed=8)[:10]:
        b = game.boards[0]
        assert value.base(b, 20) == pytest.approx(bv.value(b) - CELLS)
        ctx = Context.of(game, 0)
        assert value.value(b, game.table, max(game.pool_size, 1), ctx) == pytest.approx(bv.value(b) - CELLS)
    assert NTupleValue(share=0.0).base(b, 20) == 0.0


def test_a_board_that_ends_the_game_is_worth_its_score():
    game = positions(2, seed=1)[3]
    ctx = Context.of(game, 0)
    full = list(range(1, 17))
    value = random_value(seed=2)
    assert value.value(full, game.table, 10, ctx) == 2.0
    board = game.boards[0]
    empty = board.count(0)
    want = 2.0 / (1 + int((ctx.opp_empty == empty).sum())) if empty <= ctx.opp_empty.min() else -empty
    assert value.value(board, game.table, 0, ctx) == want
    assert value.lookups(board, game.table, 0, ctx).size == 0
    tied = Context(np.array([empty, empty + 1, empty]), np.zeros(3, np.int64), 4, 64, 20)
    assert value.value(board, game.table, 0, tied) == pytest.approx(2.0 / 3)
    behind = Context(np.array([empty - 1]), np.zeros(1, np.int64), 2, 32, 20)
    assert value.value(board, game.table, 0, behind) == -empty


def test_the_reward_splits_a_shared_win():
    game = Game(Rules(players=2), seed=0)
    with pytest.raises(ValueError, match="over"):
        reward(game, 0)
    while not game.over:
        game.step(0 if game.phase.value == "choose" else game.layout.discard)  # nobody places a tile
    assert game.winners == [0, 1] and game.scores().tolist() == [2.0, 2.0]
    assert reward(game, 0) == reward(game, 1) == 1.0


def test_td_lambda_on_a_hand_computed_case():
    w = np.zeros(6)
    w[[0, 1, 2, 3]] = [1.0, 2.0, 0.5, -1.0]
    lookups = np.array([[0, 1], [2, 3], [0, 0]], np.int64)
    n = np.array([2, 2, 0], np.int64)  # the last afterstate ended the game
    # values 3, -0.5 and the final 2; with lam 0.5 the targets are 0.5 * -0.5 + 0.5 * 2 = 0.75, 2, 2
    sse = td_lambda(w, lookups, n, np.zeros(3), 2.0, 0.5, 0.1)
    # first: error 0.75 - 3 = -2.25, step -0.1125 on weights 0 and 1
    # second: error 2 - (-0.5) = 2.5, step 0.125 on weights 2 and 3; the last learns nothing
    assert w.tolist() == pytest.approx([0.8875, 1.8875, 0.625, -0.875, 0.0, 0.0])
    assert sse == pytest.approx(2.25**2 + 2.5**2)


def test_td_lambda_shares_a_repeated_lookup_and_uses_the_weights_as_they_stand():
    w = np.zeros(2)
    lookups = np.array([[0, 0], [0, 1]], np.int64)
    td_lambda(w, lookups, np.array([2, 2], np.int64), np.zeros(2), -4.0, 0.0, 0.5)
    # targets from values 0: [0 (the next value), -4]; first error 0: nothing; second -4: step -1 each
    assert w.tolist() == [-1.0, -1.0]


def test_td_lambda_learns_the_correction_over_the_base():
    w = np.zeros(1)
    # base -3 under one weight; the final reward -1: target -1, error 2, the weight takes alpha of it
    td_lambda(w, np.array([[0]], np.int64), np.array([1], np.int64), np.array([-3.0]), -1.0, 0.5, 0.25)
    assert w.tolist() == [0.5]


def test_self_play_learns_and_is_determined_by_its_seeds():
    a, b = NTupleValue(), NTupleValue()
    ra = play_and_learn(a, range(6), players=3, alpha=0.2, lam=0.5)
    rb = play_and_learn(b, range(6), players=3, alpha=0.2, lam=0.5)
    assert np.array_equal(a.weights, b.weights) and np.count_nonzero(a.weights) > 0
    assert ra.per_game == rb.per_game and ra.afterstates == rb.afterstates > 0
    c = NTupleValue()
    play_and_learn(c, range(1, 7), players=3, alpha=0.2, lam=0.5)
    assert not np.array_equal(a.weights, c.weights)
    d, e = NTupleValue(), NTupleValue()
    play_and_learn(d, range(4), players=2, epsilon=0.3)
    play_and_learn(e, range(4), players=2, epsilon=0.3)
    assert np.array_equal(d.weights, e.weights)


def test_a_learner_seat_among_greedy_opponents():
    value = NTupleValue()
    r = play_and_learn(value, range(4), players=4, opponents=("greedy",))
    assert r.seats == 4 and r.games == 4 and np.count_nonzero(value.weights) > 0
    with pytest.raises(ValueError, match="alpha"):
        play_and_learn(value, range(1), alpha=0.0)


def test_the_policy_plays_legal_moves_and_saves_its_value(tmp_path):
    value = random_value(seed=5)
    path = tmp_path / "v.npz"
    value.save(path)
    loaded = NTupleValue.load(path)
    assert np.allclose(loaded.weights, value.weights, atol=1e-6) and loaded.share == value.share
    for rules in (Rules(players=2), Rules(players=3, setup="michael", bruno=True)):
        policy = NTuplePolicy(path=path)
        game = Game(rules, seed=9)
        while not game.over:
            mask = game.legal_mask()
            action = policy.act(game, mask)
            assert mask[action]
            game.step(action)


def test_the_policy_takes_the_choice_of_best_value():
    value = random_value(seed=11)
    policy = NTuplePolicy(value=value)
    for game in positions(4, seed=6, every=5):
        if game.phase.value != "choose":
            continue
        values = policy.choose_values(game, game.legal_mask())
        assert policy.act(game, game.legal_mask()) == max(values, key=lambda a: (values[a], -a))


def test_bad_input_is_refused(tmp_path):
    with pytest.raises(ValueError, match="families"):
        NTupleSpec(("lines", "nope"))
    with pytest.raises(ValueError, match="weights"):
        NTupleValue(weights=np.zeros(3))
    with pytest.raises(ValueError, match="patience"):
        NTuplePolicy(value=NTupleValue(), patience=0)
    with pytest.raises(FileNotFoundError, match="n-tuple value"):
        NTuplePolicy(path=tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="4x4"):
        Context.of(Game(Rules(players=2, size=3, max_tile=9), seed=0), 0)
    assert make_policy("greedy").name == "greedy"
