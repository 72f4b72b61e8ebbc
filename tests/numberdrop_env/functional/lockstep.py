"""Playing the engine's ``SoloGame`` and the JAX engine side by side, the engine's dice given to the
JAX engine, and the comparisons made at every step (one array comparison per field for a batch)."""

from __future__ import annotations

from functools import cache

import jax
import numpy as np

from benchmarks.jax_agreement import choose, engine_moves, faces_of, stacked_states
from numberdrop_env.engine.rules import DEFAULT_RULES, Rules
from numberdrop_env.engine.sheet import SCORE_PARTS
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.observe import observe as decision_observation
from numberdrop_env.functional import NumberDrop, game_fields

__all__ = ["assert_games_agree", "choose", "compiled_lockstep", "engine_moves", "faces_of", "stacked_states"]


def assert_games_agree(games: list[SoloGame], state, breakdown: dict, observations, where: str) -> None:
    """A batch of states (a leading axis of ``len(games)``) against the games: the mask, every field
    of each game, the score by its parts, the end and the observation of ``NumberDrop-v0``."""
    expected = [game_fields(g) for g in games]
    wanted = {
        "legal_action_mask": np.stack([g.legal_mask() for g in games]),
        "terminated": np.array([g.is_over for g in games]),
        "roll_due": np.zeros(len(games), bool),
        **{name: np.stack([f[name] for f in expected]) for name in expected[0]},
    }
    for name, want in wanted.items():
        _same(np.asarray(getattr(state, name)), want, f"{where}: {name}")
    scores = np.array([[g.sheet.score_breakdown()[k] for k in SCORE_PARTS] for g in games])
    _same(np.stack([np.asarray(breakdown[k]) for k in SCORE_PARTS], axis=-1), scores, f"{where}: breakdown")
    shown = np.stack([np.concatenate([p.reshape(-1) for p in decision_observation(g).values()]) for g in games])
    _same(np.round(np.asarray(observations) * 1e5), np.round(shown * 1e5), f"{where}: observation")


def _same(got: np.ndarray, want: np.ndarray, what: str) -> None:
    got = got.reshape(len(want), -1)
    differ = (got != want.reshape(len(want), -1)).any(axis=1)
    assert not differ.any(), f"{what} differs in games {np.flatnonzero(differ)[:5].tolist()}"


@cache
def compiled_lockstep(rules: Rules = DEFAULT_RULES, batched: bool = False):
    """One compiled step with the engine's faces giving the new state, its score by parts and its
    observation (one compile per rules and batching, shared by the tests)."""
    env = NumberDrop(rules)

    def step(state, action, faces):
        state = env.step_with_faces(state, action, faces)
        return state, env.breakdown(state), env.observe(state)

    return jax.jit(jax.vmap(step) if batched else step)
