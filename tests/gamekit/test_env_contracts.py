"""What every environment promises to the tools around it: games after the first follow the
first seed, infos are NumPy values of fixed shape, masks sit in the observation when asked,
refused moves change nothing (rewards included), finished tables end, observations stay in
their spaces, and ``LuckyNumbers-v0`` is on par with the Number Drop envs."""

from __future__ import annotations

import json
import warnings

import gymnasium
import numpy as np
import pytest

import luckynumbers_env  # noqa: F401  (registers LuckyNumbers-v0)
import numberdrop_env  # noqa: F401  (registers the solo and table envs)
from agents.registry import make_policy
from luckynumbers_env import lucky_numbers_v0
from luckynumbers_env.engine.actions import PHASE_CODES as LUCKY_PHASES
from numberdrop_env import multiplayer_v0
from numberdrop_env.engine.actions import PHASE_CODES
from numberdrop_env.envs.decision import observe

pytestmark = pytest.mark.filterwarnings("ignore:.*(should be gymnasium.spaces.box|Observation is not a NumPy).*")

GYM_ENVS = {  # id -> small keyword arguments
    "NumberDrop-v0": {},
    "NumberDropTurn-v0": {"candidates": 8},
    "NumberDropTable-v0": {"num_players": 3, "candidates": 8, "opponents": ["random"]},
    "LuckyNumbers-v0": {"num_players": 3, "opponents": ["random"]},
}


def _legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _mask(env, obs, info) -> np.ndarray:
    return obs["action_mask"] if isinstance(obs, dict) and "action_mask" in obs else info["action_mask"]


def _gym_game(env, rng: np.random.Generator, seed: int | None, steps: int = 30) -> list:
    """A game's first ``steps`` observations and rewards (played to the end if shorter)."""
    obs, info = env.reset(seed=seed)
    trace = [json.dumps(env.unwrapped.get_state(), sort_keys=True, default=str)]
    for _ in range(steps):
        obs, reward, term, trunc, info = env.step(_legal(_mask(env, obs, info), rng))
        trace.append(reward)
        if term or trunc:
            break
    return trace


# ------------------------------------------------------------------ issue: reproducible games
@pytest.mark.parametrize("env_id", list(GYM_ENVS))
def test_gym_envs_seeded_once_play_the_same_later_games(env_id):
    """Item 1 for the Gymnasium envs: a reset without a seed goes on with the env's generator."""
    traces = []
    for _ in range(2):
        env, rng = gymnasium.make(env_id, **GYM_ENVS[env_id]), np.random.default_rng(0)
        traces.append([_gym_game(env, rng, seed) for seed in (5, None, None)])
    assert traces[0] == traces[1]
    assert len({t[0] for t in traces[0]}) == 3  # three different games


# ------------------------------------------------------------------ numeric infos
def _numeric(info: dict) -> None:
    for key, value in info.items():
        assert isinstance(value, (np.ndarray, np.generic)) and value.dtype != object, (key, value)


@pytest.mark.parametrize("env_id", list(GYM_ENVS))
def test_gym_env_infos_are_numpy_of_fixed_shape(env_id):
    env, rng = gymnasium.make(env_id, **GYM_ENVS[env_id]), np.random.default_rng(1)
    obs, info = env.reset(seed=2)
    shapes = {k: np.shape(v) for k, v in info.items()}
    done = False
    while not done:
        _numeric(info)
        assert {k: np.shape(v) for k, v in info.items()} == shapes
        obs, _, term, trunc, info = env.step(_legal(_mask(env, obs, info), rng))
        done = term or trunc
    _numeric(info)
    assert {k: np.shape(v) for k, v in info.items()} == shapes


def _aec_infos(env, seed: int) -> list[dict]:
    env.reset(seed=seed)
    rng, seen = np.random.default_rng(seed), []
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        seen.append(info)
        env.step(None if term or trunc else _legal(obs["action_mask"], rng))
    return seen


@pytest.mark.parametrize(
    "make, codes",
    [
        (lambda: multiplayer_v0.env(num_players=3), PHASE_CODES),
        (lambda: lucky_numbers_v0.env(num_players=3), LUCKY_PHASES),
    ],
)
def test_pettingzoo_infos_are_numeric_with_a_winners_row_per_seat(make, codes):
    """Item 2: integer phases, winners as a 0/1 row of fixed length, no mask copied into the info."""
    env = make()
    infos = _aec_infos(env, 3)
    for info in infos:
        _numeric(info)
        assert "action_mask" not in info and info["winners"].shape == (3,) and info["winners"].dtype == np.int8
        assert 0 <= info["phase_code"] < len(codes)
    game = env.unwrapped.table if hasattr(env.unwrapped, "table") else env.unwrapped.game
    winners = game.winners() if callable(game.winners) else game.winners
    assert infos[-1]["winners"].tolist() == [int(p in winners) for p in range(3)]
    assert infos[0]["winners"].sum() == 0


def test_phase_codes_follow_the_enums():
    assert [PHASE_CODES[p] for p in PHASE_CODES] == list(range(10))
    assert list(LUCKY_PHASES.values()) == [0, 1, 2, 3]


# ------------------------------------------------------------------ the mask in the observation
@pytest.mark.parametrize("env_id", list(GYM_ENVS))
def test_mask_in_obs_puts_the_mask_in_the_observation_only(env_id):
    env = gymnasium.make(env_id, mask_in_obs=True, **GYM_ENVS[env_id])
    plain = gymnasium.make(env_id, **GYM_ENVS[env_id])
    obs, info = env.reset(seed=4)
    _, plain_info = plain.reset(seed=4)
    assert "action_mask" not in info and "action_mask" in plain_info
    assert obs["action_mask"].dtype == np.int8 and np.array_equal(obs["action_mask"], plain_info["action_mask"])
    assert env.observation_space.contains(obs)
    obs, *_ = env.step(_legal(obs["action_mask"], np.random.default_rng(0)))
    assert np.array_equal(obs["action_mask"], env.unwrapped.action_masks()) and env.observation_space.contains(obs)
    with pytest.raises(TypeError, match="mask_in_obs"):
        gymnasium.make(env_id, mask_in_obs="yes", **GYM_ENVS[env_id])


# ------------------------------------------------------------------ aec_to_parallel
def test_aec_env_says_it_is_not_parallelizable_and_names_the_parallel_env():
    from pettingzoo.utils.conversions import aec_to_parallel, parallel_to_aec

    env = multiplayer_v0.env(num_players=3)
    assert env.metadata["is_parallelizable"] is False
    assert env.metadata["parallel_env"] == "numberdrop_env.multiplayer_v0.parallel_env"
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(env)
    par = multiplayer_v0.parallel_env(num_players=3)
    assert aec_to_parallel(parallel_to_aec(par)) is par  # the round trip gives the parallel env back


# ------------------------------------------------------------------ LuckyNumbers-v0 on par
def test_lucky_gym_env_passes_gymnasium_check_env_on_the_documented_line():
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make("LuckyNumbers-v0", illegal_action="penalize").unwrapped)
    assert not [str(w.message) for w in caught]


def test_lucky_gym_env_penalizes_and_raises():
    env = gymnasium.make("LuckyNumbers-v0", num_players=2, illegal_action="penalize", max_illegal=3).unwrapped
    obs, info = env.reset(seed=0)
    masked = int(np.flatnonzero(~info["action_mask"])[0])
    state = env.get_state()
    for k in range(3):
        obs2, reward, term, trunc, info = env.step(masked)
        assert reward == -1.0 and info["illegal_action"] and not term and trunc == (k == 2)
        assert env.get_state() == state and np.array_equal(obs2, obs)
    _, _, _, _, info = env.step(_legal(info["action_mask"], np.random.default_rng(0)))
    assert not info["illegal_action"] and env.illegal_streak == 0
    for bad, err in [(3.0, TypeError), ("1", TypeError), (True, TypeError), (10**6, ValueError)]:
        with pytest.raises(err):
            env.step(bad)
    strict = gymnasium.make("LuckyNumbers-v0", num_players=2).unwrapped
    _, info = strict.reset(seed=0)
    state = strict.get_state()
    with pytest.raises(ValueError, match="not legal"):
        strict.step(int(np.flatnonzero(~info["action_mask"])[0]))
    assert strict.get_state() == state
    with pytest.raises(ValueError, match="illegal_action"):
        gymnasium.make("LuckyNumbers-v0", illegal_action="ignore")


def test_lucky_gym_env_saves_and_continues_a_position():
    env = gymnasium.make("LuckyNumbers-v0", num_players=3, opponents=["greedy"]).unwrapped
    obs, info = env.reset(seed=7)
    rng = np.random.default_rng(0)
    for _ in range(5):
        obs, *_, info = env.step(_legal(info["action_mask"], rng))
    state = json.loads(json.dumps(env.get_state()))
    other = gymnasium.make("LuckyNumbers-v0", num_players=3, opponents=["greedy"]).unwrapped
    obs2, info2 = other.reset(options={"state": state})
    assert np.array_equal(obs, obs2) and np.array_equal(info["action_mask"], info2["action_mask"])
    assert other.get_state() == state
    action = _legal(info["action_mask"], rng)
    assert np.array_equal(env.step(action)[0], other.step(action)[0])
    before = other.get_state()
    for bad in [{"game": state["game"]}, {"game": state["game"], "seat": 3}, {"game": {}, "seat": 0}, None]:
        with pytest.raises((TypeError, ValueError)):
            other.set_state(bad)
    assert other.get_state() == before


# ------------------------------------------------------------------ refused moves keep the reward
def _to_reward(env, rng) -> tuple[str, float]:
    """Play until the agent to act has a nonzero cumulative reward; (agent, that reward)."""
    for _ in range(5000):
        agent = env.agent_selection
        obs, reward, term, trunc, _ = env.last()
        if reward != 0 and not (term or trunc):
            return agent, reward
        env.step(None if term or trunc else _legal(obs["action_mask"], rng))
    raise AssertionError("no reward reached")


def test_a_refused_move_keeps_the_cumulative_reward():
    """Issue 21 item 3: the reward ``last()`` reports survives a refused move."""
    env = multiplayer_v0.env(num_players=2)
    env.reset(seed=0)
    agent, reward = _to_reward(env, np.random.default_rng(0))
    masked = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(masked)
    assert env.last()[1] == reward and env.agent_selection == agent


def test_a_refused_lucky_move_keeps_the_cumulative_reward():
    """Lucky pays only at the end, so the reward is set by hand: the order of the step is what counts."""
    env = lucky_numbers_v0.env(num_players=2)
    env.reset(seed=0)
    agent = env.agent_selection
    env.unwrapped._cumulative_rewards[agent] = 4.0
    masked = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(masked)
    assert env.last()[1] == 4.0


# ------------------------------------------------------------------ finished tables end
def _finished_table() -> dict:
    env = multiplayer_v0.parallel_env(num_players=2)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    while env.agents:
        obs, *_ = env.step({a: _legal(obs[a]["action_mask"], rng) for a in env.agents})  # waiting seats: the wait
    return env.get_state()


def test_a_finished_table_loaded_into_the_envs_ends():
    """Issue 21 item 4: the AEC env terminates every agent, the parallel env has none left."""
    state = _finished_table()
    env = multiplayer_v0.env(num_players=2)
    env.reset(options={"state": state})
    assert all(env.terminations.values())
    steps = 0
    for _ in env.agent_iter():
        env.step(None)
        steps += 1
    assert steps == 2 and not env.agents
    par = multiplayer_v0.parallel_env(num_players=2)
    assert par.reset(options={"state": state}) == ({}, {}) and par.agents == []
    with pytest.raises(ValueError, match="over"):
        par.step({})


# ------------------------------------------------------------------ parallel actions are not coerced
@pytest.mark.parametrize(
    "bad, err",
    [
        (3.5, TypeError),
        ("7", TypeError),
        (True, TypeError),
        (None, TypeError),
        (np.array([3]), TypeError),
        (np.float64(3.0), TypeError),
        (np.bool_(True), TypeError),
        (500, ValueError),
        (-1, ValueError),
    ],
)
def test_the_parallel_env_refuses_what_is_not_an_action_and_names_the_agent(bad, err):
    """Issue 21 item 5: no ``int()`` coercion; the error names the agent; nothing changes."""
    env = multiplayer_v0.parallel_env(num_players=2)
    obs, _ = env.reset(seed=0)
    state = env.get_state()
    good = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
    with pytest.raises(err, match="player_1"):
        env.step({**good, "player_1": bad})
    assert env.get_state() == state
    env.step({a: np.array(v) for a, v in good.items()})  # 0-d integer arrays are actions


def test_lucky_accepts_a_zero_dimensional_integer_array():
    env = lucky_numbers_v0.env(num_players=2)
    env.reset(seed=0)
    action = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(np.array(action))
    assert env.unwrapped.game.to_dict() != lucky_numbers_v0.env(num_players=2).unwrapped.game.to_dict()
    for bad in (np.array([action]), np.array(True), np.array(1.0)):
        with pytest.raises(TypeError):
            env.unwrapped.game.layout.decode(bad)


# ------------------------------------------------------------------ observations stay in their Box
def test_multiplayer_observations_stay_in_their_box():
    """Issue 21 item 7: region and path sizes / 8 (grid planes 16-18) reached 1.125 at a table
    (greedy players, seed 120: a region of 9 free numbers)."""
    env = multiplayer_v0.parallel_env(num_players=2)
    space = env.observation_space("player_0")
    players = [make_policy("greedy") for _ in range(2)]
    obs, _ = env.reset(seed=120)
    for k, p in enumerate(players):
        p.reset(1200 + k)
    raw = 0.0
    while env.agents:
        for a in env.agents:
            assert space.contains(obs[a]), (a, float(obs[a]["observation"].max()))
            raw = max(raw, float(observe(env.table.seats[env.agent_seat[a]])["grid"].max()))
        obs, *_ = env.step(
            {
                a: players[p].act(env.table.seats[p], env.table.legal_mask(p))
                if p in env.table.to_act()
                else env.wait_action
                for p, a in enumerate(env.possible_agents)
            }
        )
    assert raw > 1.0  # the case the table's observation caps
