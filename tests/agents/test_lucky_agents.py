"""Lucky Numbers agents, LuckyNumbers-v0, the evaluate command and the training config."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest
import yaml

from agents.evaluation.tables import play_lucky_table, run_tables, summarise
from agents.luckynumbers import make_policy
from agents.luckynumbers.search import SearchPolicy
from agents.luckynumbers.value import BoardValue
from agents.training.config import load_config
from luckynumbers_env import Game, Rules
from luckynumbers_env.envs.seat import LuckyNumbersEnv
from tests.support.lucky_helpers import board, diagonal, position


@pytest.mark.parametrize(
    "rules", [Rules(players=4), Rules(players=3, setup="michael", bruno=True)], ids=["4p", "3p-michael-bruno"]
)
def test_scripted_agents_play_legal_moves_to_the_end(rules):
    names = ["search", "greedy", "random", "greedy"][: rules.players]
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


def test_a_search_table_replays_the_same_game_from_its_seed():
    seats = ["search", "greedy", "search", "greedy"]
    first, again = (play_lucky_table(seats, 7, {}) for _ in range(2))
    first.pop("seconds")
    again.pop("seconds")
    assert first == again


# Player 1 has one empty cell, (3, 0), which takes 11..17.
NEARLY_FULL = board([[3, 6, 7, 8], [5, 7, 11, 12], [10, 12, 15, 16], [0, 18, 19, 20]])


@pytest.mark.parametrize("seed", range(4))
def test_search_keeps_a_tile_that_fills_an_opponents_last_cell_off_the_table(seed):
    """Player 0 has drawn an 11, which fits its board only as a swap."""
    mine = board([[1, 0, 5, 9], [0, 4, 10, 13], [4, 9, 13, 14], [14, 16, 17, 19]])
    game = position(Rules(players=2), [mine, NEARLY_FULL], phase="place", hand=11, drawn=True, pool_size=10)
    L = game.layout
    careless, careful = SearchPolicy(deny=0), SearchPolicy()
    careless.reset(seed)
    careful.reset(seed)
    assert careless.act(game, game.legal_mask()) == L.discard  # the best for its own board alone
    kind, _ = L.decode(careful.act(game, game.legal_mask()))
    assert kind == "place"


def test_search_takes_a_face_up_tile_that_fills_its_board():
    game = position(Rules(players=2), [NEARLY_FULL, diagonal(2, 9, 13, 17)], table=(1, 13, 20))
    policy = SearchPolicy()
    policy.reset(0)
    assert policy.act(game, game.legal_mask()) == game.layout.take(13)
    game.step(game.layout.take(13))
    assert policy.act(game, game.legal_mask()) == game.layout.place(12)


def test_search_threat_weighs_opponents_by_their_empty_cells():
    three_empty = board([[1, 2, 4, 9], [2, 4, 9, 10], [0, 0, 13, 14], [0, 13, 14, 20]])  # they take 3..12
    game = position(Rules(players=3), [diagonal(1, 15, 17, 19), NEARLY_FULL, three_empty])
    policy = SearchPolicy(deny=4.0)
    policy.threats = policy._opponent_threats(game)
    assert policy._threat(1 << 11) == pytest.approx(4.0 + 4.0 / 9)  # both opponents can use an 11
    assert policy._threat(1 << 15) == pytest.approx(4.0)  # a 15 fills only the last cell of player 1
    assert policy._threat(1 << 20 | 1 << 2) == 0.0


def test_board_value_counts_only_the_copies_that_can_still_come():
    """Cell (0, 1) of this board takes 2..4; with every 2, 3 and 4 gone it is as dead as a cell without room."""
    b = diagonal(1, 5, 9, 13)
    plain, shares = BoardValue(4, 20), [1.0] * 21
    assert BoardValue(4, 20, copies=shares).value(b) == pytest.approx(plain.value(b))
    shares[2] = shares[3] = shares[4] = 0.0
    gone = BoardValue(4, 20, copies=shares)
    assert gone.value(b) < plain.value(b)
    assert gone.empty[1][5] == plain.empty[1][2] == -plain.w.dead


@pytest.mark.parametrize("options", [{"samples": 0}, {"width": 0}, {"draws": 0}, {"deny": -1.0}, {"copies": "yes"}])
def test_search_options_are_checked(options):
    with pytest.raises(ValueError):
        make_policy("search", options)


def test_greedy_beats_random_at_a_small_table():
    summary = summarise(
        run_tables(["greedy", "random"], 4, 3, 0, progress=False, game="luckynumbers"), ["greedy", "random"], 4
    )
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
    from agents.cli.evaluate import main

    summary = main(
        [
            "--game",
            "luckynumbers",
            "--players",
            "3",
            "--agents",
            "greedy,random",
            "--games",
            "2",
            "--workers",
            "1",
            "--no-progress",
            "--bruno",
        ]
    )
    assert summary["game"] == "luckynumbers" and summary["games"] == 6 and summary["bruno"]
    assert "greedy" in capsys.readouterr().out
    for bad in (["--players", "5"], ["--players", "1"], ["--agents", "greedy,oracle"]):
        with pytest.raises(SystemExit):
            main(
                [
                    "--game",
                    "luckynumbers",
                    "--agents",
                    "greedy,random",
                    "--players",
                    "2",
                    "--games",
                    "1",
                    "--no-progress",
                    *bad,
                ]
            )
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
    assert load_config("configs/ppo_turn.yaml").game == "numberdrop"
    cfg = load_config("configs/lucky_ppo.yaml")
    assert cfg.game == "luckynumbers" and cfg.env.players == 4 and cfg.env.opponents == ["random"]
    data = yaml.safe_load(open("configs/lucky_ppo.yaml"))
    data["env"]["oponents"] = ["greedy"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match="env.oponents"):
        load_config(bad)
    data = yaml.safe_load(open("configs/lucky_ppo.yaml"))
    data["env"]["opponents"] = ["ppo"]
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match="env.opponents"):
        load_config(bad)


def test_train_py_runs_a_lucky_numbers_config(tmp_path):
    from agents.cli import train

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
