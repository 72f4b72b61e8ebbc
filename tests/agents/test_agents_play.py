"""The baseline agents play only legal actions, and the same seed gives the same game."""

from __future__ import annotations

import numpy as np
import pytest

from agents.evaluation.solo import advance
from agents.numberdrop.greedy import GreedyPolicy
from agents.numberdrop.lookahead import SearchPolicy
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.heuristic import Context
from tests.support.helpers import finish_legally, mid_turn_game


def play(policy, seed: int) -> tuple[list[int], int]:
    game = SoloGame(seed=seed)
    policy.reset(seed)
    actions = []
    while not game.is_over:
        mask = game.legal_mask()
        a = policy.act(game, mask)
        assert isinstance(a, int)
        assert mask[a], f"{policy.name} played a masked action {a}: {game.describe(a)}"
        game.step(a)
        actions.append(a)
        assert len(actions) < 2000
    return actions, game.score()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_greedy_plays_legal_full_games(seed):
    actions, score = play(GreedyPolicy(), seed)
    assert len(actions) > 10
    assert -15 <= score <= 100


def test_greedy_same_seed_same_game():
    assert play(GreedyPolicy(), 5) == play(GreedyPolicy(), 5)


def test_greedy_beats_random_on_average():
    scores = [play(GreedyPolicy(width=8), s)[1] for s in range(3)]
    assert np.mean(scores) > 10


def test_search_plays_legal_and_is_deterministic():
    policy = SearchPolicy(width=2, samples=2, inner_width=4)
    first = play(policy, 3)
    assert first == play(SearchPolicy(width=2, samples=2, inner_width=4), 3)


def test_policies_replan_from_any_phase():
    """A policy handed a game mid-turn (another player began it) still plays legally."""
    game = mid_turn_game(7)
    for policy in (GreedyPolicy(width=6), SearchPolicy(width=2, samples=1, inner_width=4)):
        finish_legally(policy, game.clone())


def test_search_rollout_mode_plays_legal():
    policy = SearchPolicy(width=2, samples=1, inner_width=3, rollout=True)
    first = play(policy, 4)
    assert first == play(policy, 4)


def test_potential_limit_counts_only_the_best_credits():
    """Near the end only one combination per remaining turn can score: a limit caps the potential."""
    game = SoloGame(seed=2)
    policy = GreedyPolicy(width=6)
    policy.reset(2)
    while game.turn < 6 and not game.is_over:
        game.step(policy.act(game, game.legal_mask()))
    ctx = Context(game)
    vals = game.sheet.values.ravel().tolist()
    st = ctx.structures(vals, game.sheet.used.ravel())
    heights = game.sheet.heights.tolist()
    full = ctx.potential(vals, st, heights)
    one = ctx.potential(vals, st, heights, limit=1)
    assert 0.0 < one <= full
    assert ctx.potential(vals, st, heights, limit=100) == full


def test_batched_geometry_equals_the_scalar_one():
    """The planner values every placement with the batched geometry; it must agree with the
    per-sheet version on the sheets a game produces."""
    rng = np.random.default_rng(0)
    for seed in range(4):
        game = SoloGame(seed=seed)
        while not game.is_over:
            legal = np.flatnonzero(game.legal_mask())
            game.step(int(legal[rng.integers(len(legal))]))
            ctx = Context(game)
            vals = game.sheet.values.ravel().tolist()
            heights = game.sheet.heights.tolist()
            value, lines, penalties = ctx.geometry(vals, heights)
            b_value, b_lines, b_penalties = ctx.geometry_batch(
                (game.sheet.values != -1)[None], game.sheet.heights[None]
            )
            assert b_value[0] == pytest.approx(value)
            assert (b_lines[0], b_penalties[0]) == (lines, penalties)


def test_search_options_are_checked():
    with pytest.raises(ValueError, match="value"):
        SearchPolicy(value="oracle")
    with pytest.raises(ValueError, match="rollout"):
        SearchPolicy(value="learned", rollout=True)
    for refine in (-1, 1):
        with pytest.raises(ValueError, match="refine"):
            SearchPolicy(refine=refine)


def test_refine_values_the_best_plans_again_on_new_rolls(monkeypatch):
    """The refined plans are valued on fresh rolls (the same for each of them) and ranked by
    their mean over both rounds; the others drop out."""
    policy = SearchPolicy(samples=3, refine=2)
    policy.reset(0)
    plans = ["p0", "p1", "p2", "p3"]
    rounds = iter([[1.0, 3.0, 2.0, 0.0], [0.0, 4.0]])
    calls = []

    def fake_lookahead(game, asked, seeds):
        calls.append((list(asked), tuple(seeds)))
        return next(rounds)

    monkeypatch.setattr(policy, "lookahead", fake_lookahead)
    values = policy.rank(None, plans)
    assert [c[0] for c in calls] == [plans, ["p1", "p2"]]
    assert len(calls[0][1]) == len(calls[1][1]) == 3 and calls[0][1] != calls[1][1]
    assert values.tolist() == [-np.inf, 1.5, 3.0, -np.inf]


def test_refine_plays_deterministic_legal_games():
    first = play(SearchPolicy(width=3, samples=1, inner_width=4, refine=2), 5)
    assert first == play(SearchPolicy(width=3, samples=1, inner_width=4, refine=2), 5)


@pytest.mark.parametrize("seed", [3, 8])
def test_greedy_whole_turns_play_the_same_game(seed):
    """The evaluation runner's turn-at-once play (``play_turn``) leaves every game where the
    decision-by-decision play does: same sheets, score and decision count."""
    actions, score = play(GreedyPolicy(), seed)
    game = SoloGame(seed=seed)
    decisions, turns_at_once = 0, 0
    while not game.is_over:
        played = advance(GreedyPolicy(), game)
        decisions += played
        turns_at_once += played > 1
    stepped = SoloGame(seed=seed)
    for a in actions:
        stepped.step(a)
    assert turns_at_once > 10
    assert (game.score(), decisions) == (score, len(actions))
    assert game.to_dict() == stepped.to_dict()
