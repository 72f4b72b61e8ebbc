"""The compiled turn engine offers exactly the reference planner's candidates.

Differential: thousands of turns from random, greedy and look-ahead games (messy and
crowded sheets, block drops, star slides, last turns, turns entered mid-way from the
decision-level game, multiplayer seats), each enumerated by both implementations and
compared field by field: actions, phases, points, afterstates, order, and values and
their parts within 1e-9. Playing a candidate by its afterstate must reach the state
that replaying its decisions reaches.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest

from agents.numberdrop.greedy import GreedyPolicy
from agents.numberdrop.lookahead import SearchPolicy
from numberdrop_env.engine.actions import Phase
from numberdrop_env.engine.rules import DEFAULT_RULES, WILD, Rules
from numberdrop_env.engine.sheet import SCORE_PARTS
from numberdrop_env.engine.solo import SoloGame, roll_dice, roll_faces, roll_of
from numberdrop_env.engine.table import Table
from numberdrop_env.envs.turn import CANDIDATE_FEATURES, _feature_constants, candidate_features
from numberdrop_env.planner.features import feature_count
from numberdrop_env.planner.turns import PLAN_PHASES, TurnCandidates, TurnPlanner, start_candidates

FAST, REFERENCE = TurnPlanner(), TurnPlanner(reference=True)
NARROW, NARROW_REFERENCE = TurnPlanner(width=4, block_width=1), TurnPlanner(width=4, block_width=1, reference=True)


def assert_same(fast: TurnCandidates, ref: TurnCandidates) -> None:
    assert len(fast) == len(ref)
    for i, (a, b) in enumerate(zip(fast, ref)):
        where = f"candidate {i}"
        assert a.actions == b.actions, where
        assert a.phases == b.phases, where
        assert (a.points, a.combo, a.ends_game, a.notches) == (b.points, b.combo, b.ends_game, b.notches), where
        assert (a.values, a.used, a.heights) == (b.values, b.used, b.heights), where
        assert abs(a.value - b.value) <= 1e-9, where
        assert a.terms.keys() == b.terms.keys(), where
        assert all(abs(a.terms[t] - b.terms[t]) <= 1e-9 for t in a.terms), where


def compare(game: SoloGame, seen: Counter, limit: int | None = 32) -> TurnCandidates:
    fast = FAST.candidates(game, limit=limit)
    assert_same(fast, REFERENCE.candidates(game, limit=limit))
    seen["turns"] += 1
    seen[game.phase.value] += 1
    for c in fast:
        seen["block"] += Phase.BLOCK in c.phases
        seen["star_slide"] += Phase.STAR_SLIDE in c.phases
        seen["last_turn"] += c.ends_game and c.terms.get("turns", 1.0) == 0.0 and c.points >= 0
        seen["lost_piece"] += not c.terms
        seen["crowded"] += max(c.heights) >= game.rules.regular_rows
    return fast


def random_decision_games(seeds: range) -> Iterator[SoloGame]:
    """Random legal decisions, one at a time: every phase a turn can be entered from."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        game = SoloGame(seed=seed)
        while not game.is_over:
            if game.phase in PLAN_PHASES:
                yield game
            legal = np.flatnonzero(game.legal_mask())
            game.step(int(legal[rng.integers(len(legal))]))


def turn_games(seeds: range, choose) -> Iterator[tuple[SoloGame, TurnCandidates]]:
    """Whole turns; ``choose(game, candidates, rng)`` picks the candidate played."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        game = SoloGame(seed=seed)
        game.step(game.layout.start + int(rng.integers(game.rules.cols)))
        while not game.is_over:
            offered = yield game
            for a in choose(game, offered, rng).actions:
                game.step(a)


def drive(gen, seen: Counter, limit: int | None = 32) -> None:
    try:
        game = next(gen)
        while True:
            game = gen.send(compare(game, seen, limit))
    except StopIteration:
        pass


def test_random_turns_and_mid_turn_entries_match_the_reference():
    seen: Counter = Counter()
    for game in random_decision_games(range(0, 50)):
        compare(game, seen)
    assert seen["turns"] >= 1000
    assert min(seen[p.value] for p in PLAN_PHASES) > 0, seen  # every entry phase was tried


def test_greedy_and_random_turn_games_match_the_reference():
    seen: Counter = Counter()
    drive(turn_games(range(100, 120), lambda g, c, rng: c[0]), seen)  # the greedy
    drive(turn_games(range(200, 240), lambda g, c, rng: c[int(rng.integers(len(c)))]), seen)  # messy sheets
    # choosing the highest stack fills the sheet up to the Game Over line
    drive(turn_games(range(300, 340), lambda g, c, rng: max(c, key=lambda x: (max(x.heights), -x.value))), seen)
    assert seen["turns"] >= 1000
    for feature in ("block", "star_slide", "last_turn", "crowded"):
        assert seen[feature] > 0, (feature, seen)


def test_unlimited_and_narrow_enumerations_match_the_reference():
    seen: Counter = Counter()
    drive(turn_games(range(400, 406), lambda g, c, rng: c[int(rng.integers(len(c)))]), seen, limit=None)
    for game in random_decision_games(range(500, 504)):
        assert_same(NARROW.candidates(game, limit=5), NARROW_REFERENCE.candidates(game, limit=5))
    assert seen["turns"] >= 60


def test_look_ahead_games_match_the_reference():
    seen: Counter = Counter()
    policy = SearchPolicy(width=3, samples=2)
    for seed in range(600, 603):
        policy.reset(seed)
        game = SoloGame(seed=seed)
        while not game.is_over:
            if game.phase in PLAN_PHASES:
                compare(game, seen)
            game.step(policy.act(game, game.legal_mask()))
    assert seen["turns"] >= 40


def test_multiplayer_seats_with_rivals_match_the_reference():
    """A seat's tetromino turn values circling letters with its rivals' sheets in mind."""
    seen: Counter = Counter()
    greedy = GreedyPolicy()
    for seed in range(8):
        table = Table(3, seed=seed)
        while not table.over:
            p = table.to_act()[0]
            seat = table.seats[p]
            if seat.phase in (Phase.PLACE, Phase.BLOCK):
                compare(seat, seen)
            table.step(p, greedy.act(seat, table.legal_mask(p)))
    assert seen["place"] >= 100


@pytest.mark.parametrize("seed", range(6))
def test_playing_the_afterstate_equals_replaying_the_decisions(seed):
    rng = np.random.default_rng(seed)
    game = SoloGame(seed=seed)
    game.step(3)
    while not game.is_over:
        offered = FAST.candidates(game, limit=32)
        i = int(rng.integers(len(offered)))
        replayed = game.clone()
        points = sum(replayed.step(a) for a in offered[i].actions)
        a = offered.arrays
        kind = int(a.combo_kind[i])
        combo = None if kind < 0 else (("identical", "consecutive")[kind], int(a.combo_size[i]))
        before = game.score()
        game.play_afterstate(a.values[i], a.used[i], a.heights[i], a.notches[i], combo, piece_lost=not a.has_terms[i])
        assert game.score() - before == points == offered[i].points
        assert game.to_dict() == replayed.to_dict()


def test_candidates_read_as_a_sequence():
    game = SoloGame(seed=1)
    game.step(2)
    offered = FAST.candidates(game, limit=6)
    assert len(offered) == 6 and offered[-1] is offered[5] and offered[1:3] == [offered[1], offered[2]]
    with pytest.raises(IndexError):
        offered[6]
    with pytest.raises(ValueError, match="limit"):
        FAST.candidates(game, limit=0)


def test_a_batch_of_games_is_enumerated_as_one_game_at_a_time():
    games = [g.clone() for g in random_decision_games(range(700, 703))]
    offered, features = FAST.candidates_batch(games, 32, features=True)
    assert len(offered) == len(games) > 50 and features.shape == (len(games), 32, len(CANDIDATE_FEATURES))
    for game, batch, rows in zip(games, offered, features):
        alone = FAST.candidates(game, limit=32)
        for name in alone.arrays._fields:
            assert np.array_equal(getattr(batch.arrays, name), getattr(alone.arrays, name)), name
        assert np.array_equal(rows, candidate_features(game, alone, 32))
    assert FAST.candidates_batch(games[:2], 4)[1].shape == (2, 4, 0)  # no feature rows unless asked
    with pytest.raises(ValueError, match="candidates_batch"):
        FAST.candidates_batch([SoloGame(seed=0)], 32)  # phase start: not a rolled turn


def test_the_feature_rows_have_one_column_per_named_feature():
    assert feature_count(_feature_constants(DEFAULT_RULES)[0]) == len(CANDIDATE_FEATURES)


def test_a_forked_process_plans_batches_with_its_own_threads():
    """A child forked after the parent planned a batch must not wait on the parent's threads."""
    import multiprocessing

    games = [g.clone() for g in random_decision_games(range(710, 711))][:6]
    FAST.candidates_batch(games, 8)
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=lambda q: q.put(len(FAST.candidates_batch(games, 8)[0])), args=(queue,))
    child.start()
    assert queue.get(timeout=120) == len(games)
    child.join(timeout=60)


def test_a_printing_with_a_star_on_every_die_matches_the_reference():
    """Four wild dice (10,000 writings of a roll) are enumerated like any other roll."""
    rules = Rules(number_dice=((WILD,) * 6,) * 4)  # every roll: four wild dice
    seen: Counter = Counter()
    game = SoloGame(rules, seed=3)
    game.step(2)
    rng = np.random.default_rng(3)
    while not game.is_over and seen["turns"] < 4:
        offered = compare(game, seen, limit=8)
        for a in offered[int(rng.integers(len(offered)))].actions:
            game.step(a)
    assert seen["turns"] == 4


def test_packed_batches_equal_game_batches_and_refuse_what_is_not_packed():
    """``candidate_arrays(pack_batch(games))`` is ``candidates_batch(games)``; rows that are not
    packed games of these rules are refused before the compiled code sees them."""
    planner, games = TurnPlanner(), []
    for seed in range(3):
        game = SoloGame(seed=seed)
        game.step(game.layout.start)
        games.append(game)
    states = planner.pack_batch(games, 8)
    count, arrays, rows = planner.candidate_arrays(states, games[0].rules, 8, features=True)
    packed = [TurnCandidates.of_batch(arrays, g, k) for g, k in enumerate(count.tolist())]
    direct, rows_direct = planner.candidates_batch(games, 8, features=True)
    assert np.array_equal(rows, rows_direct)
    assert all(np.array_equal(a.arrays.values, b.arrays.values) for a, b in zip(packed, direct))
    for bad in (states[:, :-1], states.astype(float), states[0]):
        with pytest.raises(ValueError, match="packed games"):
            planner.candidate_arrays(bad, games[0].rules, 8)


@pytest.mark.parametrize("seed", range(4))
def test_packed_games_play_their_turns_as_solo_games_do(seed):
    """``finish_turns`` + ``start_turns`` (with ``roll_faces`` on the game's generator) advance a
    packed row exactly as ``TurnCandidates.play`` advances the game, game over included;
    ``unpack`` writes the row back into a game equal to the one played; ``packed_scores``
    equals ``Sheet.score_breakdown`` and the ticked boxes at every turn."""
    planner, rules = TurnPlanner(), DEFAULT_RULES
    rng = np.random.default_rng(seed)
    played = 0
    for game_seed in range(seed * 10, seed * 10 + 10):
        game = SoloGame(seed=game_seed)
        game.step(game.layout.start + int(rng.integers(rules.cols)))
        state = planner.pack_batch([game], 32)
        copy = game.clone()  # packed alongside: rolls from a copy of the game's generator
        while not game.is_over:
            count, arrays, _ = planner.candidate_arrays(state, rules, 32)
            pick = int(rng.integers(count[0]))
            points = TurnCandidates.of_batch(arrays, 0, int(count[0])).play(pick, game)
            over = planner.finish_turns(state, rules, np.array([0]), np.array([pick]), arrays)
            assert points == arrays.points[0, pick] and over[0] == game.is_over
            roll = (game.dice, game.shape_face)
            if not over[0]:
                faces = roll_faces(copy.rng, rules, 1)
                assert roll_of(faces[0].tolist(), rules) == roll
                planner.start_turns(state, rules, np.array([0]), faces)
                assert np.array_equal(state, planner.pack_batch([game], 32))
            parts, boxes = planner.packed_scores(state, rules)
            s = game.sheet
            assert parts[0].tolist() == [s.score_breakdown()[k] for k in SCORE_PARTS]
            assert boxes[0] == s.identical.sum() + s.consecutive.sum() + s.bonus
            unpacked = copy.clone()
            planner.unpack(state[0], unpacked, roll, game.turn, bool(over[0]))
            assert unpacked.to_dict() == game.to_dict()
            played += 1
    assert played > 100


def test_packed_scores_count_full_columns_and_every_part():
    """Column bonuses, the bonus box, lines and penalty rows, which random games rarely reach."""
    planner, game = TurnPlanner(), SoloGame(seed=0)
    game.step(game.layout.start)
    s = game.sheet
    s.identical[:], s.consecutive[1:3], s.bonus = True, True, True
    s.lines[[0, 3]], s.penalties[0] = True, True
    parts, boxes = planner.packed_scores(planner.pack_batch([game], 4), game.rules)
    assert parts[0].tolist() == [s.score_breakdown()[k] for k in SCORE_PARTS]
    assert parts[0, SCORE_PARTS.index("column_bonuses")] > 0 and boxes[0] == 5 + 2 + 1


def test_the_starting_number_candidates_are_enumerated_once_and_each_game_gets_its_own():
    planner = TurnPlanner()
    a, b = SoloGame(seed=1), SoloGame(seed=2)
    first, second = planner.candidates(a, limit=32), planner.candidates(b, limit=32)
    assert len(planner._starts) == 1 and first.arrays.values.flags.writeable
    first.arrays.values[:] = 0  # a game's copy: changing it changes no other game's
    assert second.arrays.values.any() and planner.candidates(a, limit=32).arrays.values.any()
    built = start_candidates(a)  # what every call built before they were shared
    assert [dataclasses.asdict(c) for c in second] == [dataclasses.asdict(c) for c in built]
    assert len(planner.candidates(a, limit=3)) == 3


def test_rolls_drawn_at_once_are_the_rolls_drawn_one_by_one():
    rules = Rules(number_dice=((1, 2, 3), (WILD, 4, 5, 6, 7, 8, 9)) * 2)  # dice of different sizes
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    faces = roll_faces(a, rules, 40)
    assert [roll_of(row, rules) for row in faces.tolist()] == [roll_dice(b, rules) for _ in range(40)]
    assert a.bit_generator.state == b.bit_generator.state
