"""The JAX learner (``algorithm: jax_ppo``): a smoke run whose losses move, checkpoints that
round-trip, a resumed run equal bit for bit to a straight one, its config's refusals, and its
agent playing legal moves on the engine through a whole game."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("optax")

from agents.networks import jax_policy  # noqa: E402
from agents.training import jax_ppo  # noqa: E402
from agents.training.config import config_from_dict, load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
TINY = {
    "algorithm": "jax_ppo",
    "backend": "jax",
    "engine": "pgx_2048",
    "progress_bar": False,
    "total_timesteps": 4096,
    "ppo": {
        "num_envs": 32,
        "num_steps": 16,
        "num_minibatches": 4,
        "update_epochs": 2,
        "hidden": [32, 32],
        "network": "mlp",
    },
    "eval": {"every_steps": 2048, "games": 8},
    "checkpoint": {"every_steps": 1024},
    "final_eval": {"games": 0},
}


def config(tmp: Path, **top):
    data = json.loads(json.dumps(TINY))
    data.update(top, output_dir=str(tmp))
    return config_from_dict(data)


def run(cfg, resume=None):
    return jax_ppo.train(cfg, argparse.Namespace(resume=resume, no_progress=True, config="c.yaml"))


def params(path: Path) -> dict[str, np.ndarray]:
    return jax_policy.flatten(jax_policy.load(path)[0])


def test_configs_read():
    for name in ("jax_ppo_smoke", "jax_ppo", "jax_ppo_gpu"):
        cfg = load_config(ROOT / "configs" / f"{name}.yaml")
        assert cfg.algorithm == "jax_ppo" and cfg.model_agent == "jax_ppo"


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"ppo": {"num_steps_": 3}}, "unknown config key 'ppo.num_steps_'"),
        ({"ppo": {"num_minibatches": 3}}, "ppo.num_minibatches"),
        ({"engine": "tetris"}, "engine"),
        ({"final_eval": {"agents": ["greedy"]}}, "final_eval.agents"),
    ],
)
def test_config_refusals(tmp_path, change, says):
    data = {**json.loads(json.dumps(TINY)), **change}
    if "final_eval" in change:
        data["engine"] = "numberdrop"
    with pytest.raises((ValueError, TypeError), match=says.replace(".", r"\.")):
        config_from_dict(data)


class CtrlCAt2048(jax_ppo.Boundaries):
    """Ctrl-C pressed during the update that ends at step 2048."""

    def __call__(self, steps, final=False):
        self.requested = self.requested or steps == 2048
        super().__call__(steps, final)


@pytest.mark.slow
def test_resume_is_exact_and_the_losses_move(tmp_path, monkeypatch):
    straight = run(config(tmp_path / "a"))
    assert straight["steps"] == 4096
    entries = [json.loads(x) for x in (tmp_path / "a" / "evals.jsonl").read_text().splitlines()]
    assert [e["step"] for e in entries] == [0, 2048, 4096]
    assert (tmp_path / "a" / "best.npz").is_file() and (tmp_path / "a" / "learning_curve.png").is_file()
    assert list((tmp_path / "a").glob("events.out.tfevents.*"))
    with monkeypatch.context() as m:
        m.setattr(jax_ppo, "Boundaries", CtrlCAt2048)
        first = run(config(tmp_path / "b"))
    assert first["interrupted"] and first["steps"] == 2048
    checkpoint = jax_ppo.find_checkpoint(tmp_path / "b")
    assert checkpoint.name == "jax_ppo_2048_steps"
    second = run(config(tmp_path / "b"), resume=checkpoint)
    assert second["steps"] == 4096
    a, b = params(tmp_path / "a" / "final.npz"), params(tmp_path / "b" / "final.npz")
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    start = jax_ppo.new_carry(config(tmp_path / "c"), jax_ppo.make_env("pgx_2048")).params
    assert any(not np.array_equal(a[k], v) for k, v in jax_policy.flatten(start).items())  # it learned something


def test_checkpoint_round_trips_and_damage_is_named(tmp_path):
    cfg = config(tmp_path)
    env = jax_ppo.make_env("pgx_2048")
    carry = jax_ppo.new_carry(cfg, env)
    path = jax_ppo.save_checkpoint(tmp_path / "checkpoints" / "jax_ppo_512_steps", carry, 512, cfg)
    back, steps, _ = jax_ppo.load_checkpoint(path, jax_ppo.new_carry(config(tmp_path, seed=1), env), cfg)
    assert steps == 512
    assert all(np.array_equal(x, y) for x, y in zip(jax.tree.leaves(carry), jax.tree.leaves(back)))
    with pytest.raises(ValueError, match="other settings"):
        jax_ppo.load_checkpoint(path, carry, config(tmp_path, seed=1))
    newer = tmp_path / "checkpoints" / "jax_ppo_1024_steps"
    newer.write_bytes(b"cut short")
    assert jax_ppo.find_checkpoint(tmp_path) == path  # the damaged newer one is named and passed over


@pytest.mark.slow
def test_smoke_config_trains_and_its_agent_plays_the_engine(tmp_path):
    pytest.importorskip("numberdrop_env.functional")
    from agents.evaluation.runner import play_game
    from agents.numberdrop.jax_ppo import JaxPPOPolicy
    from numberdrop_env.engine.solo import SoloGame

    data = load_config(ROOT / "configs" / "jax_ppo_smoke.yaml").model_dump()
    cfg = config_from_dict({**data, "output_dir": str(tmp_path)})
    out = run(cfg)
    table = out["final_eval"]["agents"]
    assert set(table) == {"jax_ppo", "greedy"}
    policy = JaxPPOPolicy(tmp_path / "best.npz")
    game, decisions = SoloGame(seed=3), 0
    while not game.is_over:
        mask = game.legal_mask()
        action = policy.act(game, mask)
        assert mask[action]
        game.step(action)
        decisions += 1
    assert decisions > 20
    assert play_game(policy, seed=0).score == play_game(policy, seed=0).score


@pytest.mark.slow
def test_cells_network_scores_consequences_and_respects_the_mask():
    """The ``cells`` network on the engine's observations: finite logits, masked actions at
    ``NEG``, and its placement logits read the landing rows (moving them changes the scores)."""
    pytest.importorskip("numberdrop_env.functional")
    import jax.numpy as jnp

    from numberdrop_env.functional import NumberDrop

    env = NumberDrop()
    state = env.init(jax.random.PRNGKey(0))
    for _ in range(3):  # start, slide: then a placement is pending
        state = env.step(state, jnp.argmax(state.legal_action_mask).astype(jnp.int32), jax.random.PRNGKey(1))
    obs, mask = env.observe(state), state.legal_action_mask
    lay = jax_policy.layout(env.rules)
    params = jax_policy.init_params(jax.random.PRNGKey(2), obs.size, env.num_actions, [16], "cells", 8)
    apply = jax.jit(jax_policy.make_apply(lay))
    logits, value = apply(params, obs, mask)
    assert logits.shape == (env.num_actions,) and np.isfinite(float(value))
    assert np.all(np.asarray(logits)[~np.asarray(mask)] == jax_policy.NEG)
    params["heads"]["w"] = jnp.ones_like(params["heads"]["w"])
    everything = jnp.ones_like(mask)
    higher = obs.at[-len(lay.dr) :].set(jnp.where(obs[-len(lay.dr) :] > 0, obs[-len(lay.dr) :] + 3 / lay.rows, 0))
    place = slice(lay.place, lay.place + len(lay.dr))
    assert not np.allclose(apply(params, obs, everything)[0][place], apply(params, higher, everything)[0][place])


def test_the_shipped_network_plays_as_its_agent():
    """``agents/models/jax_ppo.npz`` (actor only) is the ``jax_ppo`` agent's default and plays a whole game."""
    pytest.importorskip("numberdrop_env.functional")
    from agents.evaluation.runner import play_game
    from agents.registry import make_policy

    params, meta = jax_policy.load(ROOT / "agents" / "models" / "jax_ppo.npz")
    assert meta["network"] == "mlp" and "v" not in params
    result = play_game(make_policy("jax_ppo"), seed=0)
    assert result.score == play_game(make_policy("jax_ppo"), seed=0).score
    assert result.decisions > 20
