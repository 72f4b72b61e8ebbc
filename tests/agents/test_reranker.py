"""The re-ranker of a value network's best candidates: its file round trip and refusals, its
choice, the input rows it reads, and the ``ppo`` agent's ``rerank`` option."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents.cli.evaluate import play_game  # noqa: E402
from agents.networks.reranker import Reranker, load_reranker, rerank_rows, save_reranker  # noqa: E402
from agents.numberdrop.ppo import PPOPolicy, best_candidates, load_model, offer_turns, turn_setup  # noqa: E402
from numberdrop_env.engine.rules import DEFAULT_RULES  # noqa: E402
from numberdrop_env.engine.solo import SoloGame  # noqa: E402
from numberdrop_env.planner.structures import structure_features, structure_names  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
Q_MODEL = ROOT / "agents" / "models" / "q_turn.zip"
INPUTS = 141 + 49 + len(structure_names(DEFAULT_RULES))  # the state, a candidate's row, its structures


def trained(inputs: int = 5, top: int = 3, seed: int = 0) -> Reranker:
    torch.manual_seed(seed)
    reranker = Reranker(inputs, [8], top)
    with torch.no_grad():
        for p in reranker.parameters():
            p.normal_(0.0, 0.5)
    return reranker


def test_an_untrained_reranker_keeps_the_networks_choice_and_a_trained_one_adds_its_corrections():
    rows = np.random.default_rng(0).normal(size=(4, 5)).astype(np.float32)
    values = np.array([3.0, 2.0, 1.0, 0.0])
    assert Reranker(5, [8], 4).choose(values, rows) == 0
    reranker = trained(top=4)
    with torch.no_grad():
        corrections = reranker(torch.as_tensor(rows)).numpy()
    assert reranker.choose(values, rows) == int(np.argmax(values + corrections))
    assert reranker.choose(-10 * corrections, rows) == int(np.argmax(-9 * corrections))


def test_inputs_constant_where_it_was_normalised_keep_their_own_scale():
    reranker = Reranker(3, [4], 2)
    rows = np.array([[0.0, 1.0, 5.0], [2.0, 1.0, 5.0], [4.0, 1.0, 5.0]], np.float32)
    reranker.normalise_to(rows)
    assert torch.allclose(reranker.mean, torch.tensor([2.0, 1.0, 5.0]))
    assert torch.allclose(reranker.scale, torch.tensor([2.0, 1.0, 1.0]))


def test_a_saved_reranker_loads_with_the_same_corrections(tmp_path):
    reranker = trained()
    reranker.normalise_to(np.arange(15, dtype=np.float32).reshape(3, 5))
    path = save_reranker(reranker, tmp_path / "r.pt", {"network": "q_turn.zip"})
    loaded = load_reranker(path)
    rows = torch.randn(6, 5)
    assert (loaded.inputs, loaded.hidden, loaded.top) == (5, [8], 3)
    assert torch.equal(loaded(rows), reranker(rows)) and loaded.about == {"network": "q_turn.zip"}


def test_loading_what_is_not_a_reranker_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        load_reranker(tmp_path / "absent.pt")
    (tmp_path / "text.pt").write_text("not torch")
    torch.save({"format": 99}, tmp_path / "future.pt")
    torch.save({"format": 1, "inputs": 5, "hidden": [8], "top": 3, "state_dict": {}}, tmp_path / "empty.pt")
    for name in ("text.pt", "future.pt", "empty.pt"):
        with pytest.raises(ValueError, match=name):
            load_reranker(tmp_path / name)
    with pytest.raises(ValueError, match="top >= 2"):
        Reranker(5, [8], 1)


def test_the_rows_are_the_candidates_features_the_state_and_their_sheets_structures():
    model = load_model(Q_MODEL)
    setup = turn_setup(model, 128)
    game = SoloGame(seed=3)
    for _ in range(6):  # a few turns in, so that sheets differ
        (offered,), batch, masks = offer_turns(setup, [game])
        offered[0].play(game)
    (offered,), batch, masks = offer_turns(setup, [game])
    top, values = best_candidates(model, batch, masks, 8)
    assert np.all(np.diff(values) <= 0) and len(top) == 8
    rows = rerank_rows(game, [offered[j] for j in top], batch["candidates"][0][top], batch["state"][0])
    assert rows.shape == (8, INPUTS)
    s = game.sheet
    for row, j in zip(rows, top):
        plan = offered[j]
        assert np.array_equal(row[:49], batch["candidates"][0][j]) and np.array_equal(row[49:190], batch["state"][0])
        identical, consecutive = s.identical.copy(), s.consecutive.copy()
        if plan.combo is not None:  # the box a candidate scores counts as scored on its sheet
            (identical if plan.combo[0] == "identical" else consecutive)[
                DEFAULT_RULES.box_sizes.index(plan.combo[1])
            ] = True
        shapes = structure_features(
            plan.values, plan.used, plan.heights, identical, consecutive, s.bonus, DEFAULT_RULES
        )
        assert np.array_equal(row[190:], shapes.astype(np.float32))


def test_the_ppo_agent_with_an_untrained_reranker_plays_as_the_network_alone(tmp_path):
    path = save_reranker(Reranker(INPUTS, [8], 8), tmp_path / "zero.pt")
    alone = PPOPolicy(path=str(Q_MODEL))
    reranked = PPOPolicy(path=str(Q_MODEL), rerank=str(path))
    for seed in (0, 1):
        assert play_game(reranked, seed).score == play_game(alone, seed).score


def test_the_ppo_agent_plays_its_reranker_s_choice(tmp_path):
    path = save_reranker(trained(INPUTS, 8), tmp_path / "noisy.pt")
    agent = PPOPolicy(path=str(Q_MODEL), rerank=str(path))
    game = SoloGame(seed=5)
    (offered,), batch, masks = offer_turns(agent.setup, [game])
    top, values = best_candidates(agent.model, batch, masks, 8)
    rows = rerank_rows(game, [offered[j] for j in top], batch["candidates"][0][top], batch["state"][0])
    expected = int(top[agent.reranker.choose(values, rows)])
    assert agent._choose_candidate(game, offered, batch, masks) == expected
    scores = [play_game(agent, seed).score for seed in (2, 2)]
    assert scores[0] == scores[1]  # the same game for the same seed


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lookahead": 8}, "lookahead=0"),
        ({"deterministic": False}, "deterministic=True"),
        ({"path": str(ROOT / "agents" / "models" / "ppo_solo.zip")}, "turn-level"),
    ],
)
def test_rerank_refuses_what_it_cannot_play(tmp_path, kwargs, message):
    path = save_reranker(Reranker(INPUTS, [8], 8), tmp_path / "zero.pt")
    with pytest.raises(ValueError, match=message):
        PPOPolicy(**{"path": str(Q_MODEL), **kwargs, "rerank": str(path)})
    small = save_reranker(Reranker(10, [8], 8), tmp_path / "small.pt")
    with pytest.raises(ValueError, match="does not read"):
        PPOPolicy(path=str(Q_MODEL), rerank=str(small))
