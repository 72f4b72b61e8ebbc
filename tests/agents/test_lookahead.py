"""The look-ahead's packed engine (expectimax over the next roll) against a plain-Python loop over
the same children, its refine, and the ``ntuple`` agent: self-play's choices under
``numberdrop-evaluate``, search options, errors."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import TurnPlayer
from agents.evaluation.solo import play_game, run
from agents.numberdrop.lookahead import expected, expectimax, refined, turn_scores
from agents.numberdrop.ntuple import NTuplePolicy
from agents.registry import make_policy
from agents.values.ntuple import FAMILIES, NTupleSpec, NTupleValue
from agents.values.selfplay import play
from numberdrop_env.engine.dice import Rolls, roll_distribution, sample_rolls
from numberdrop_env.engine.rules import DEFAULT_RULES
from numberdrop_env.engine.solo import SoloGame, roll_of
from numberdrop_env.planner.turns import TurnCandidates, TurnPlanner

R = DEFAULT_RULES


def noisy_value(seed: int = 0) -> NTupleValue:
    """A value whose choices differ from the planner's: random tables on top of its value."""
    value = NTupleValue(NTupleSpec(FAMILIES, stages=3), planner_share=1.0)
    value.weights[:] = np.random.default_rng(seed).normal(0.0, 0.5, len(value.weights))
    return value


@pytest.fixture(scope="module")
def value_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("ntuple") / "value.npz"
    noisy_value().save(path)
    return str(path)


def one_turn(planner: TurnPlanner, value: NTupleValue, game: SoloGame, limit: int):
    """(packed row, count, candidate arrays, values) of a game's turn."""
    states = planner.pack_batch([game], limit)
    count, arrays, _ = planner.candidate_arrays(states, R, limit)
    values = value.candidate_values(states, np.arange(1), count, arrays)[0]
    return states, count, arrays, values


def reference_expectimax(
    planner: TurnPlanner, value: NTupleValue, game: SoloGame, top: int, rolls: Rolls, outer: int, inner: int
) -> dict[int, float]:
    """Candidate index -> score, one child at a time on ``SoloGame`` objects: the candidate's
    afterstate played on a clone, then each roll resumed on a clone of that."""
    _, count, arrays, values = one_turn(planner, value, game, outer)
    k = int(count[0])
    offered = TurnCandidates.of_batch(arrays, 0, k)
    scores = [float(arrays.points[0, i] + values[0, i]) for i in range(k)]
    ranked = sorted(range(k), key=lambda i: -scores[i])[:top]  # sorted() is stable: ties keep order
    out = {}
    for i in ranked:
        after = game.clone()
        points = offered.play(i, after)
        if after.is_over:
            out[i] = float(points)
            continue
        expected = 0.0
        for faces, p in zip(rolls.faces.tolist(), rolls.probabilities.tolist()):
            child = after.clone()
            child.resume(*roll_of(faces, R), after.turn, over=False)
            _, c_count, c_arrays, c_values = one_turn(planner, value, child, inner)
            best = max(float(c_arrays.points[0, j] + c_values[0, j]) for j in range(int(c_count[0])))
            expected += p * best
        out[i] = points + expected
    return out


def positions(seeds: range, turns: int) -> list[SoloGame]:
    """Games some greedy turns in, at a turn's first decision."""
    planner, out = TurnPlanner(), []
    for seed in seeds:
        game = SoloGame(R, seed=seed)
        game.step(game.layout.start)
        for t in range(turns):
            if game.is_over:
                break
            if t % 4 == 0:
                out.append(game.clone())
            planner.candidates(game, limit=1).play(0, game)
    return out


def test_expectimax_matches_a_plain_loop_over_the_children() -> None:
    planner, value = TurnPlanner(), noisy_value(1)
    rolls = sample_rolls(np.random.default_rng(3), 5)
    games = positions(range(2), 12)
    for game in games:
        states, count, arrays, values = one_turn(planner, value, game, 16)
        for chunk in (3, 512):
            got = expectimax(planner, value, states, R, count, arrays, values, 3, rolls, 8, chunk=chunk)[0]
            want = reference_expectimax(planner, value, game, 3, rolls, 16, 8)
            assert set(np.flatnonzero(np.isfinite(got)).tolist()) == set(want)
            for i, w in want.items():
                assert got[i] == pytest.approx(w, abs=1e-9)
    assert len(games) >= 4


def test_expectimax_of_a_candidate_that_ends_the_game_is_its_points() -> None:
    planner, value = TurnPlanner(), noisy_value(2)
    rolls = sample_rolls(np.random.default_rng(0), 3)
    for seed in range(40):  # late positions where the top candidates include a game's end
        game = SoloGame(R, seed=seed)
        game.step(game.layout.start)
        while not game.is_over:
            states, count, arrays, values = one_turn(planner, value, game, 16)
            top = np.argsort(-turn_scores(count, arrays, values)[0], kind="stable")[:4]
            ends = arrays.ends_game[0, top]
            if ends.any() and not ends.all():
                got = expectimax(planner, value, states, R, count, arrays, values, 4, rolls, 8)[0]
                want = reference_expectimax(planner, value, game, 4, rolls, 16, 8)
                for i in top[ends]:
                    assert got[i] == arrays.points[0, i] == want[i]
                for i, w in want.items():
                    assert got[i] == pytest.approx(w, abs=1e-9)
                return
            planner.candidates(game, limit=1).play(0, game)
    pytest.fail("no position with a game-ending candidate among the best four")


def test_expectimax_over_every_roll_weighs_each_by_its_probability() -> None:
    """Over the whole table, the next turn's expectation splits into any two parts' by their mass."""
    planner, value = TurnPlanner(), noisy_value(3)
    game = positions(range(1), 5)[1]
    states, count, arrays, values = one_turn(planner, value, game, 8)
    table = roll_distribution(R)
    whole = expectimax(planner, value, states, R, count, arrays, values, 2, table, 4)[0]
    searched = np.flatnonzero(np.isfinite(whole))
    assert len(searched) == 2
    points = arrays.points[0, searched]
    parts = 0.0
    for rows in (slice(0, 700), slice(700, None)):
        mass = table.probabilities[rows].sum()
        part = Rolls(table.faces[rows], table.probabilities[rows] / mass)
        parts += mass * (expectimax(planner, value, states, R, count, arrays, values, 2, part, 4)[0][searched] - points)
    assert whole[searched] == pytest.approx(points + parts, abs=1e-9)


def test_expectimax_refuses_bad_arguments() -> None:
    planner, value = TurnPlanner(), noisy_value()
    game = positions(range(1), 1)[0]
    states, count, arrays, values = one_turn(planner, value, game, 8)
    rolls = sample_rolls(np.random.default_rng(0), 2)
    with pytest.raises(ValueError, match="top"):
        expectimax(planner, value, states, R, count, arrays, values, 0, rolls, 4)
    with pytest.raises(ValueError, match="limit"):
        expectimax(planner, value, states, R, count, arrays, values, 2, rolls, 0)
    with pytest.raises(TypeError, match="Rolls"):
        expectimax(planner, value, states, R, count, arrays, values, 2, np.zeros((2, 5)), 4)  # type: ignore[arg-type]


def test_the_agent_scores_what_self_play_scores(value_file: str) -> None:
    """``numberdrop-evaluate --agents ntuple`` (seeds 0..) plays self-play's games, choice for choice."""
    seeds = range(5)
    played = play(NTupleValue.load(value_file), seeds, limit=128)
    results = run(["ntuple"], len(seeds), 0, options={"ntuple": {"path": value_file}}, progress=False)["ntuple"]
    assert [r.score for r in results] == played.scores.tolist()
    greedy = run(["greedy"], len(seeds), 0, progress=False)["greedy"]
    assert [r.score for r in greedy] != played.scores.tolist()  # the value does choose


def test_acting_decision_by_decision_plays_the_same_game(value_file: str) -> None:
    policy = make_policy("ntuple", {"path": value_file, "limit": 32})
    assert isinstance(policy, TurnPlayer)

    class ActOnly:  # no play_turn: every decision through act and the plan follower
        name = "ntuple"
        reset = policy.reset
        act = policy.act

    for seed in (1, 2):
        assert play_game(ActOnly(), seed).score == play_game(policy, seed).score


def test_searching_agent_is_deterministic_and_searches(value_file: str) -> None:
    searching = NTuplePolicy(value_file, limit=32, top=3, rolls=4, inner_limit=8, seed=5)
    first = play_game(searching, 0).score
    assert play_game(searching, 0).score == first
    game = positions(range(1), 6)[1]
    searching.reset(0)
    offered, i = searching.choose(game)
    plain = NTuplePolicy(value_file, limit=32)
    _, j = plain.choose(game)
    assert 0 <= i < len(offered) and 0 <= j < len(offered)
    # the choice is the argmax of expectimax over the rolls the agent samples
    searching.reset(0)
    rolls = searching.turn_rolls(game)
    states, count, arrays, values = one_turn(searching.planner, searching.value, game, 32)
    want = expectimax(searching.planner, searching.value, states, R, count, arrays, values, 3, rolls, 8)
    searching.reset(0)
    assert searching.choose(game)[1] == int(np.argmax(want[0]))


def test_refined_values_the_best_again_and_drops_the_rest() -> None:
    rounds = iter([np.array([1.0, 3.0, 2.0, 3.0]), np.array([0.0, 4.0])])
    asked = []

    def values_of(i: np.ndarray) -> np.ndarray:
        asked.append(i.tolist())
        return next(rounds)

    assert refined(values_of, 4, 2).tolist() == [-np.inf, 1.5, -np.inf, 3.5]  # ties: the first kept
    assert asked == [[0, 1, 2, 3], [1, 3]]
    assert refined(lambda i: np.ones(len(i)), 2, 2).tolist() == [1.0, 1.0]  # no more than refine: one round


def test_the_agent_refines_on_a_second_draw_of_rolls(value_file: str) -> None:
    """``refine`` values the best of the first round again on the agent's next draw of rolls."""
    agent = NTuplePolicy(value_file, limit=32, top=3, rolls=3, inner_limit=8, refine=2)
    game = positions(range(1), 6)[1]
    agent.reset(0)
    first, second = agent.turn_rolls(game), agent.turn_rolls(game)
    states, count, arrays, values = one_turn(agent.planner, agent.value, game, 32)
    searched = np.argsort(-turn_scores(count, arrays, values)[0], kind="stable")[:3]
    one = expected(agent.planner, agent.value, states, R, arrays, searched[None], first, 8)[0]
    keep = np.argsort(-one, kind="stable")[:2]
    two = expected(agent.planner, agent.value, states, R, arrays, searched[None, keep], second, 8)[0]
    agent.reset(0)
    assert agent.choose(game)[1] == searched[keep[int(np.argmax((one[keep] + two) / 2))]]


@pytest.mark.parametrize(
    "options",
    [
        {"limit": 0},
        {"top": 0},
        {"rolls": -2},
        {"inner_limit": 0},
        {"rolls": 1.5},
        {"limit": True},
        {"refine": 1},
        {"refine": 2, "rolls": -1},
    ],
)
def test_bad_agent_options_are_refused(value_file: str, options: dict) -> None:
    with pytest.raises(ValueError):
        NTuplePolicy(value_file, **options)


def test_a_missing_value_file_says_so(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="not found"):
        NTuplePolicy(tmp_path / "absent.npz")


def test_a_table_seat_is_refused(value_file: str) -> None:
    from numberdrop_env.engine.table import Table

    table = Table(2, seed=0)
    for p in range(2):  # the starting numbers: then every seat has a rolled turn
        table.step(p, p)
    with pytest.raises(ValueError, match="learned from solo games"):
        NTuplePolicy(value_file, limit=8).act(table.seats[0], table.legal_mask(0))
