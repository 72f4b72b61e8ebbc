"""Lucky Numbers agents, LuckyNumbers-v0, the evaluate command and the training config."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest
import yaml

from agents.lucky.evaluate import run_tables, summarise
from agents.lucky.gym_env import LuckyNumbersEnv
from agents.lucky.registry import make_policy
from agents.lucky.train import is_lucky_config, load_lucky_config
from luckynumbers_env import Game, Rules


@pytest.mark.parametrize("rules", [Rules(players=4), Rules(players=3, setup="michael", bruno=True)],
                         ids=["4p", "3p-michael-bruno"])
def test_scripted_agents_play_legal_moves_to_the_end(rules):
    names = ["search", "greedy", "random", "greedy"][:rules.players]
    policies = [make_policy(n, {"samples": 4} if n == "search" else None) for n in names]
    for p, policy in enumerate(policies):
        policy.reset(p)
    game = Game(rules, seed=3)
    while not game.over:
        mask = game.legal_mask()
        action = policies[game.player].act(game, mask)
        assert mask[action]
        game.step(action)


def test_agents_never_read_the_pool_order():
    game = Game(Rules(players=4), seed=5)
    rng = random.Random(0)
    for _ in range(40):
        game.step(rng.choice(game.legal_actions()))
    state = game.to_dict()
    state["pool"] = state["pool"][::-1]
    other = Game.from_dict(state)
    for name in ("greedy", "search"):
        a, b = make_policy(name), make_policy(name)
        a.reset(1)
        b.reset(1)
        assert a.act(game, game.legal_mask()) == b.act(other, other.legal_mask())


def test_search_is_reproducible_from_its_seed():
    def actions(seed):
        game, out = Game(Rules(players=2), seed=0), []
        policy = make_policy("search", {"samples": 4})
        policy.reset(seed)
        while not game.over and len(out) < 60:
            out.append(policy.act(game, game.legal_mask()))
            game.step(out[-1])
        return out
    assert actions(1) == actions(1)


def test_greedy_beats_random_at_a_small_table():
    summary = summarise(run_tables(["greedy", "random"], 4, 3, 0, progress=False), ["greedy", "random"], 4)
    assert summary["agents"]["greedy"]["win_rate"] > 0.4 > summary["agents"]["random"]["win_rate"]
    assert summary["games"] == 12


def test_unknown_agent_or_option_is_refused():
    with pytest.raises(ValueError, match="unknown Lucky Numbers agent"):
        make_policy("oracle")
    with pytest.raises(ValueError, match="no option"):
        make_policy("greedy", {"width": 3})
    with pytest.raises(FileNotFoundError):
        make_policy("ppo", {"path": "/nonexistent/model.zip"})


def test_evaluate_command_plays_lucky_numbers_tables(capsys):
    from agents.evaluate import main

    summary = main(["--game", "luckynumbers", "--players", "3", "--agents", "greedy,random", "--games", "2",
                    "--workers", "1", "--no-progress", "--bruno"])
    assert summary["game"] == "luckynumbers" and summary["games"] == 6 and summary["bruno"]
    assert "greedy" in capsys.readouterr().out
    for bad in (["--players", "5"], ["--players", "1"], ["--agents", "greedy,oracle"]):
        with pytest.raises(SystemExit):
            main(["--game", "luckynumbers", "--agents", "greedy,random", "--players", "2", "--games", "1",
                  "--no-progress", *bad])
    with pytest.raises(SystemExit):
        main(["--players", "2", "--agents", "greedy", "--bruno", "--games", "1"])  # a Number Drop run


def test_gym_env_rewards_masks_and_registration():
    from stable_baselines3.common.env_checker import check_env

    env = LuckyNumbersEnv(num_players=3, opponents=["greedy", "random"])
    check_env(env)
    obs, info = env.reset(seed=0)
    total, done = 0.0, False
    while not done:
        mask = env.action_masks()
        assert mask.any() and env.game.player == env.seat
        with pytest.raises(ValueError):
            env.step(int(np.flatnonzero(~mask)[0]))
        obs, reward, done, _, info = env.step(int(np.flatnonzero(mask)[0]))
        total += reward
    assert total == info["scores"][env.seat] and "win" in info
    shaped = LuckyNumbersEnv(num_players=2, opponents=["greedy"], shaping=0.5)
    shaped.reset(seed=1)
    total, done = 0.0, False
    while not done:
        _, reward, done, _, info = shaped.step(int(np.flatnonzero(shaped.action_masks())[-1]))
        total += reward
    start_empty = 12
    assert total == pytest.approx(info["scores"][shaped.seat] + 0.5 * (start_empty - info["empty_cells"]))
    made = gymnasium.make("LuckyNumbers-v0", num_players=2)
    assert made.reset(seed=0)[0].shape == env.observation_space.shape
    with pytest.raises(ValueError):
        LuckyNumbersEnv(num_players=5)
    with pytest.raises(ValueError):
        LuckyNumbersEnv(opponents="greedy")


def test_shipped_config_validates_and_typos_are_named(tmp_path):
    assert is_lucky_config("configs/lucky_ppo.yaml") and not is_lucky_config("configs/ppo_turn.yaml")
    cfg = load_lucky_config("configs/lucky_ppo.yaml")
    assert cfg.env.players == 4 and cfg.env.opponents == ["random"]
    data = yaml.safe_load(open("configs/lucky_ppo.yaml"))
    data["env"]["oponents"] = ["greedy"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match="env.oponents"):
        load_lucky_config(bad)
    data = yaml.safe_load(open("configs/lucky_ppo.yaml"))
    data["env"]["opponents"] = ["ppo"]
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match="env.opponents"):
        load_lucky_config(bad)


def test_train_py_runs_a_lucky_numbers_config(tmp_path):
    import train

    data = yaml.safe_load(open("configs/lucky_ppo.yaml"))
    data.update(n_envs=2, ship_to=None, progress_bar=False)
    data["ppo"].update(n_steps=32, batch_size=32)
    data["env"]["players"] = 2
    data["eval"].update(every_steps=0, games=2)
    data["final_eval"].update(games=1, workers=1, opponents=["random"])
    data["pretrain"].update(games=2, epochs=1)
    config = tmp_path / "lucky.yaml"
    config.write_text(yaml.safe_dump(data))
    out = train.main(["--config", str(config), "--total-steps", "64", "--output-dir", str(tmp_path / "run")])
    assert out["steps"] >= 64 and (tmp_path / "run" / "best_model.zip").is_file()
    assert (tmp_path / "run" / "pretrain.json").is_file()
    assert out["final_eval"]["vs_random"]["games"] == 2
    policy = make_policy("ppo", {"path": str(tmp_path / "run" / "best_model.zip")})
    game = Game(Rules(players=2), seed=0)
    assert game.legal_mask()[policy.act(game, game.legal_mask())]
