"""The environments in the tools researchers already use: TorchRL, Tianshou, PettingZoo's
conversions and wrappers, SuperSuit. Each library comes with the ``integrations`` extra; a test
whose library is missing is skipped. The README's "Using it from your own code" shows the same
lines."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import luckynumbers_env  # noqa: F401  (registers LuckyNumbers-v0)
import numberdrop_env  # noqa: F401  (registers the solo envs)
from luckynumbers_env import lucky_numbers_v0
from numberdrop_env import multiplayer_v0

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]

MULTI_AGENT = {
    "numberdrop": lambda: multiplayer_v0.env(num_players=2),
    "lucky": lambda: lucky_numbers_v0.env(num_players=2),
}


def _legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask))) if mask.any() else 0


# ------------------------------------------------------------------ TorchRL
@pytest.mark.parametrize("env_id, kwargs", [("NumberDrop-v0", {}), ("NumberDropTurn-v0", {"candidates": 8})])
def test_torchrl_gym_env_checks_its_specs_and_rolls_out_masked(env_id, kwargs):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    from torchrl.envs import GymEnv, TransformedEnv
    from torchrl.envs.transforms import ActionMask
    from torchrl.envs.utils import check_env_specs

    # the info reader learns its specs from one random step, which "penalize" survives
    base = GymEnv(env_id, mask_in_obs=True, illegal_action="penalize", **kwargs)
    base.auto_register_info_dict()
    env = TransformedEnv(base, ActionMask())
    check_env_specs(env)
    env.set_seed(0)
    rollout = env.rollout(300)  # random actions drawn among the legal ones
    assert rollout.shape[0] > 1
    assert not (rollout["action"].bool() & ~rollout["action_mask"].bool()).any()  # one-hot actions, all legal
    assert not rollout["next", "illegal_action"].any()
    scores, parts = rollout["next", "score"], rollout["next", "score_breakdown"]
    assert scores.dtype == torch.int64 and parts.shape == (rollout.shape[0], 7)
    assert torch.equal(parts[:, -1], scores)  # the breakdown's total is the score


@pytest.mark.parametrize("name", list(MULTI_AGENT))
def test_torchrl_pettingzoo_wrapper_plays_a_game_to_its_winners(name):
    pytest.importorskip("torchrl")
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(MULTI_AGENT[name](), use_mask=True, categorical_actions=True, seed=0)
    check_env_specs(env)
    rollout = env.rollout(3000, break_when_any_done=True)
    assert rollout["next", "done"][-1].all()
    winners = rollout["next", "player_0", "info", "winners"][-1].reshape(-1)
    assert winners.shape == (2,) and winners.sum() >= 1


def _parallel_table(seed: int = 0):
    from torchrl.envs import PettingZooWrapper

    return PettingZooWrapper(
        multiplayer_v0.parallel_env(num_players=3), use_mask=True, categorical_actions=True, seed=seed
    )


def test_torchrl_rolls_out_a_whole_three_player_parallel_game_with_masks():
    """Waiting seats have the wait action alone, so masked random sampling always has a choice."""
    pytest.importorskip("torchrl")
    from torchrl.envs.utils import check_env_specs

    env = _parallel_table()
    check_env_specs(env)
    rollout = env.rollout(5000, break_when_any_done=True)  # random actions drawn among the legal ones
    group = rollout["player"]
    chosen = group["action_mask"].gather(-1, group["action"].unsqueeze(-1))
    assert chosen.all()
    waiting = group["action_mask"][..., -1]
    assert waiting.any() and (group["action"][waiting] == 412).all()
    assert rollout["next", "done"][-1].all() and not rollout["next", "done"][:-1].any()
    assert (rollout["next", "player", "info", "phase_code"][-1] == 8).all()  # game_over


def test_torchrl_collects_a_mappo_style_batch_from_the_parallel_env():
    """One shared masked actor for the three seats and a centralised critic, as MAPPO and IPPO use."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    from tensordict.nn import TensorDictModule
    from torchrl.collectors import Collector
    from torchrl.modules import MaskedCategorical, MultiAgentMLP, ProbabilisticActor

    torch.manual_seed(0)
    env = _parallel_table()
    obs_key, mask_key, act_key = (
        ("player", "observation", "observation"),
        ("player", "action_mask"),
        ("player", "action"),
    )
    size, actions = env.observation_spec[obs_key].shape[-1], env.full_action_spec[act_key].space.n
    assert actions == 413

    def mlp(out: int, centralised: bool) -> MultiAgentMLP:
        return MultiAgentMLP(size, out, n_agents=3, centralised=centralised, share_params=True, depth=1, num_cells=16)

    actor = ProbabilisticActor(
        TensorDictModule(mlp(actions, False), in_keys=[obs_key], out_keys=[("player", "logits")]),
        in_keys={"logits": ("player", "logits"), "mask": mask_key},
        out_keys=[act_key],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=("player", "log_prob"),
    )
    critic = TensorDictModule(mlp(1, True), in_keys=[obs_key], out_keys=[("player", "state_value")])
    collector = Collector(
        _parallel_table, actor, frames_per_batch=96, total_frames=192, auto_register_policy_transforms=False
    )
    games = 0
    try:
        for batch in collector:
            critic(batch)
            assert batch[mask_key].gather(-1, batch[act_key].unsqueeze(-1)).all()
            assert batch["player", "log_prob"].isfinite().all()
            assert batch["player", "state_value"].shape == (96, 3, 1)
            games += int(batch["next", "done"].sum())
    finally:
        collector.shutdown()
    assert games >= 1


# ------------------------------------------------------------------ Tianshou
@pytest.mark.parametrize("name, seed, games, size", [("numberdrop", 2, 4, 600), ("lucky", 0, 12, 6000)])
def test_tianshou_collects_games_ties_included(name, seed, games, size):
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm as RandomAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make():
        return PettingZooEnv(MULTI_AGENT[name]())

    env = make()
    policy = MultiAgentPolicy({a: RandomAlgorithm(env.action_space).policy for a in env.agents})
    venv = DummyVectorEnv([make])
    venv.seed(seed)
    buffer = VectorReplayBuffer(size, 1)
    np.random.seed(seed)  # the random policy draws from NumPy's global generator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = Collector(policy, venv, buffer).collect(n_episode=games, reset_before_collect=True)
    assert stats.n_collected_episodes == games
    ends = buffer.info.winners[buffer.terminated]
    assert ends.shape[1] == 2 and (ends.sum(axis=1) >= 1).all()
    assert (ends.sum(axis=1) == 2).any()  # a tie: the buffer that broke on a longer winners list


# ------------------------------------------------------------------ PettingZoo conversions and wrappers
def test_pettingzoo_parallel_to_aec_and_back():
    from pettingzoo.test import parallel_api_test
    from pettingzoo.utils.conversions import aec_to_parallel, parallel_to_aec

    par = multiplayer_v0.parallel_env(num_players=3)
    aec = parallel_to_aec(par)
    assert aec_to_parallel(aec) is par
    aec.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in aec.agent_iter(400):
        obs, _, term, trunc, _ = aec.last()
        aec.step(None if term or trunc else _legal(obs["action_mask"], rng))
    parallel_api_test(multiplayer_v0.parallel_env(num_players=2), num_cycles=100)


@pytest.mark.parametrize("name", list(MULTI_AGENT))
def test_pettingzoo_standard_wrappers(name):
    from pettingzoo.utils import wrappers

    env = wrappers.AssertOutOfBoundsWrapper(wrappers.TerminateIllegalWrapper(MULTI_AGENT[name](), illegal_reward=-1))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in env.agent_iter(300):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else _legal(obs["action_mask"], rng))
    env.reset(seed=0)
    agent = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0]))  # illegal: the game ends
    assert all(env.terminations.values()) and env.rewards[agent] == -1


# ------------------------------------------------------------------ SuperSuit
def test_supersuit_vector_env_of_the_parallel_env():
    ss = pytest.importorskip("supersuit")

    venv = ss.pettingzoo_env_to_vec_env_v1(multiplayer_v0.parallel_env(num_players=2))
    obs, infos = venv.reset(seed=0)
    assert obs["observation"].shape == (2, multiplayer_v0.observation_size(multiplayer_v0.DEFAULT_RULES))
    rng, games = np.random.default_rng(0), 0
    for _ in range(400):
        obs, rewards, terminated, truncated, infos = venv.step(np.array([_legal(m, rng) for m in obs["action_mask"]]))
        games += int(terminated.all())
    assert games >= 2 and all(info["winners"].shape == (2,) for info in infos)
