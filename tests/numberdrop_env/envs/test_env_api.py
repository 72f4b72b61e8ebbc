"""The Gymnasium API of NumberDrop-v0: checkers, info, rewards, rendering, auto_forced,
and thousands of complete random games scored against the oracle."""

from __future__ import annotations

import json
import warnings

import gymnasium
import numpy as np
import pytest

import numberdrop_env  # noqa: F401  (registers NumberDrop-v0)
from numberdrop_env import Phase, SoloGame, layout_for
from numberdrop_env.engine.actions import PHASE_CODES, PHASES
from numberdrop_env.envs.base import BREAKDOWN_KEYS, breakdown_dict
from numberdrop_env.envs.decision import NumberDropEnv
from tests.oracles import oracle

L = layout_for(SoloGame().rules)
BOX_SIZES = (3, 4, 5, 6, 7)


def policy_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


# ----------------------------------------------------------------------------- checkers
def test_gymnasium_check_env_on_the_documented_line():
    """The README's line. Penalize mode is what lets it pass: gymnasium's step-determinism
    check samples its action before ``reset`` and plays it in the fresh game, where it may
    be masked; penalized, the same masked action gives the same step twice."""
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make("NumberDrop-v0", illegal_action="penalize").unwrapped)
    assert not [str(w.message) for w in caught]


def test_stable_baselines3_check_env():
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(NumberDropEnv(), warn=True)
    # sb3 takes the (16, 14, 7) float grid for an image; those advices are expected.
    image_advice = ("image", "CnnPolicy", "36x36")
    unexpected = [str(w.message) for w in caught if not any(s in str(w.message) for s in image_advice)]
    assert not unexpected, unexpected


# ----------------------------------------------------------------------------- info, obs, reward
def _render_rows(text: str) -> dict[int, list[str]]:
    rows = {}
    for line in text.splitlines():
        head, sep, rest = line.partition("|")
        if sep and head.strip().isdigit():
            body = rest.rsplit("|", 1)[0]
            rows[int(head)] = [body[4 * c : 4 * c + 3] for c in range(7)]
    return rows


def check_render(env) -> None:
    text = env.render()
    assert isinstance(text, str)
    game = env.unwrapped.game
    rows = _render_rows(text)
    assert sorted(rows) == list(range(14)), text
    pending = set(map(tuple, game.pending_cells))
    for r in range(14):
        for c in range(7):
            cell = rows[r][c]
            v = int(game.sheet.values[r, c])
            if (r, c) in pending:
                assert "?" in cell, (r, c, cell)
            elif v == -1:
                assert cell.strip() == ".", (r, c, cell)
            elif v == 10:
                assert cell.strip() == "X", (r, c, cell)
            else:
                assert str(v) in cell, (r, c, cell, text)


def check_info(env, obs, info, total_reward) -> None:
    unwrapped = env.unwrapped
    assert np.array_equal(info["action_mask"], unwrapped.action_masks())
    assert info["action_mask"].dtype == bool
    assert type(info["score"]) is np.int64  # NumPy scalars: tools that stack infos need a dtype
    assert info["score"] == total_reward
    assert info["score"] == unwrapped.game.score()
    assert info["score_breakdown"].dtype == np.int64 and info["score_breakdown"].shape == (len(BREAKDOWN_KEYS),)
    parts = breakdown_dict(info["score_breakdown"])
    assert parts == unwrapped.game.sheet.score_breakdown()
    total = parts.pop("total")
    assert sum(parts.values()) == total == info["score"]
    assert type(info["phase_code"]) is np.int64 and info["phase_code"] == PHASE_CODES[unwrapped.game.phase]
    assert all(isinstance(v, (np.ndarray, np.generic)) for v in info.values()), info
    assert obs["phase"][PHASES.index(unwrapped.game.phase)] == 1
    assert env.observation_space.contains(obs), {k: (v.dtype, v.min(), v.max()) for k, v in obs.items()}


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_info_observation_reward_render_and_descriptions_along_games(seed):
    env = gymnasium.make("NumberDrop-v0", render_mode="ansi")
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    total = 0
    check_info(env, obs, info, total)
    check_render(env)
    phases = set()
    while True:
        game = env.unwrapped.game
        phases.add(game.phase)
        mask = info["action_mask"]
        for a in np.flatnonzero(mask):
            d = env.unwrapped.describe_action(int(a))
            assert json.loads(json.dumps(d)) == d
            assert d["phase"] == game.phase.value and d["action"] == a and d.get("valid", True)
        # masked actions of the phase are described too, JSON-safe
        for a in rng.choice(L.size, 5, replace=False):
            json.dumps(env.unwrapped.describe_action(int(a)))
        # prefer playing combinations, so scores move
        legal = np.flatnonzero(mask)
        if game.phase is Phase.COMBO and mask[L.confirm]:
            action = L.confirm
        elif game.phase is Phase.COMBO and (legal < L.confirm).any() and rng.random() < 0.9:
            action = int(rng.choice(legal[legal < L.confirm]))
        else:
            action = policy_action(mask, rng)
        before = game.score()
        obs, reward, terminated, truncated, info = env.step(action)
        assert isinstance(reward, float)
        assert reward == env.unwrapped.game.score() - before
        total += reward
        check_info(env, obs, info, total)
        check_render(env)
        assert truncated is False
        if terminated:
            assert env.unwrapped.game.is_over
            break
    assert phases >= {Phase.START, Phase.SLIDE, Phase.PLACE, Phase.ARRANGE, Phase.COMBO}


def test_action_space_sample_is_legal():
    env = gymnasium.make("NumberDrop-v0")
    env.action_space.seed(123)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        steps = 0
        while True:
            a = env.action_space.sample()
            assert info["action_mask"][a], (env.unwrapped.game.phase, a)
            obs, _, term, _, info = env.step(a)
            steps += 1
            if term:
                break
        assert steps > 10


def test_action_space_sample_with_an_explicit_mask():
    env = gymnasium.make("NumberDrop-v0")
    env.action_space.seed(0)
    _, info = env.reset(seed=0)
    mask = info["action_mask"].astype(np.int8)
    for _ in range(50):
        assert mask[env.action_space.sample(mask=mask)]


# ----------------------------------------------------------------------------- auto_forced
def play_auto(seed: int, policy_seed: int):
    env = gymnasium.make("NumberDrop-v0", auto_forced=True)
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    total, decisions = 0.0, []
    while True:
        legal = np.flatnonzero(info["action_mask"])
        assert len(legal) >= 2, "auto_forced left a forced decision pending"
        a = int(legal[rng.integers(len(legal))])
        decisions.append((env.unwrapped.game.phase, a))
        obs, r, term, _, info = env.step(a)
        total += r
        assert info["score"] == total
        if term:
            assert not info["action_mask"].any()
            return total, info["score"], decisions


def play_by_hand(seed: int, policy_seed: int):
    env = gymnasium.make("NumberDrop-v0")
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    total, decisions, forced = 0.0, [], 0
    while True:
        legal = np.flatnonzero(info["action_mask"])
        if len(legal) == 1:
            a = int(legal[0])
            forced += 1
        else:
            a = int(legal[rng.integers(len(legal))])
            decisions.append((env.unwrapped.game.phase, a))
        obs, r, term, _, info = env.step(a)
        total += r
        if term:
            return total, info["score"], decisions, forced


def test_auto_forced_matches_playing_forced_moves_by_hand():
    forced_total = 0
    for seed in range(30):
        auto = play_auto(seed, seed + 50)
        total, score, decisions, forced = play_by_hand(seed, seed + 50)
        forced_total += forced
        assert auto[2] == decisions
        assert auto[0] == total and auto[1] == score
    assert forced_total > 0  # some decisions really were forced


# ----------------------------------------------------------------------------- many games
def final_checks(game: SoloGame, total_reward: int) -> None:
    s = game.sheet
    values = np.array(s.values)
    expected = oracle.score_from_sheet(
        [k for k, d in zip(BOX_SIZES, s.identical) if d],
        [k for k, d in zip(BOX_SIZES, s.consecutive) if d],
        bool(s.bonus),
        values,
    )
    score = game.score()
    assert score == expected == total_reward
    assert -15 <= score <= 100
    penalty_occupied = (values[list(oracle.PENALTY_ROWS)] != oracle.EMPTY).any()
    all_done = (np.asarray(game.notches) == 4).all()
    assert penalty_occupied or all_done, "the game ended without a reason"


def test_1000_random_games_end_properly_and_score_like_the_oracle():
    scores = []
    reasons = {"penalty": 0, "notches": 0}
    for seed in range(1000):
        game = SoloGame(seed=seed)
        rng = np.random.default_rng(seed)
        prefer_combos = seed % 2 == 1
        low = seed % 10 < 2  # a fifth of the games keep the stack low, to end by the notches
        total = 0
        for _ in range(5000):
            if game.is_over:
                break
            mask = game.legal_mask()
            if low and game.phase in (Phase.PLACE, Phase.BLOCK):
                legal = np.flatnonzero(mask)
                offset = L.place if game.phase is Phase.PLACE else L.block
                tops = np.array([game.table.cells(int(p) - offset, game.sheet.heights)[-1][0] for p in legal])
                a = int(rng.choice(legal[tops == tops.min()]))
            elif prefer_combos and game.phase is Phase.COMBO:
                legal = np.flatnonzero(mask)
                if mask[L.confirm]:
                    a = L.confirm
                elif (legal < L.confirm).any():
                    a = int(rng.choice(legal[legal < L.confirm]))
                else:
                    a = L.pass_
            else:
                a = policy_action(mask, rng)
            total += game.step(a)
        else:
            raise AssertionError(f"seed {seed}: game did not end")
        final_checks(game, total)
        scores.append(game.score())
        values = np.array(game.sheet.values)
        reasons["penalty"] += bool((values[11:] != -1).any())
        reasons["notches"] += bool((np.asarray(game.notches) == 4).all())
    assert reasons["penalty"] > 0 and reasons["notches"] > 0, reasons
    assert max(scores) > min(scores)
