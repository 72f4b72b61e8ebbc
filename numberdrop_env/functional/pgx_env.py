"""The pgx face: ``NumberDropPgx`` is a ``pgx.Env`` over the JAX engine, for the tools written for
pgx (its ``step`` refuses an illegal action with the penalty and leaves a finished game alone, as
the engine does; at the end its mask is all true, pgx's convention, while ``state.game`` keeps
the exact one)."""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import pgx.core as pgx_core

from ..engine.rules import DEFAULT_RULES, Rules
from .env import NumberDrop
from .state import State

ENV_ID = "numberdrop"


@dataclasses.dataclass(frozen=True)
class PgxState(pgx_core.State):
    """pgx's common fields, and the game itself."""

    game: State

    @property
    def env_id(self) -> Any:
        return ENV_ID


jax.tree_util.register_dataclass(PgxState, data_fields=[f.name for f in dataclasses.fields(PgxState)], meta_fields=[])


class NumberDropPgx(pgx_core.Env):
    """Solo Number Drop as a one-player pgx game; ``step`` needs a key (it rolls the dice)."""

    def __init__(self, rules: Rules = DEFAULT_RULES) -> None:
        super().__init__()
        self.game = NumberDrop(rules)

    def step(self, state: PgxState, action: jax.Array, key: jax.Array | None = None) -> PgxState:
        if key is None:
            raise TypeError("NumberDropPgx.step(state, action, key): the key rolls the dice")
        return super().step(state, action, key)

    def _init(self, key: jax.Array) -> PgxState:
        game = self.game.init(key)
        return PgxState(
            current_player=jnp.int32(0),
            observation=jnp.zeros(self.game.observation_shape, jnp.float32),
            rewards=game.rewards,
            terminated=game.terminated,
            truncated=game.truncated,
            legal_action_mask=game.legal_action_mask,
            _step_count=jnp.int32(0),
            game=game,
        )

    def _step(self, state: PgxState, action: jax.Array, key: jax.Array) -> PgxState:
        game = self.game.step(state.game, action, key)
        return state.replace(
            game=game,
            rewards=game.rewards,
            terminated=game.terminated,
            truncated=game.truncated,
            legal_action_mask=game.legal_action_mask,
        )

    def _observe(self, state: PgxState, player_id: jax.Array) -> jax.Array:
        return self.game.observe(state.game)

    @property
    def id(self) -> Any:
        return ENV_ID

    @property
    def version(self) -> str:
        return "v0"

    @property
    def num_players(self) -> int:
        return 1

    @property
    def num_actions(self) -> int:
        return self.game.num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return self.game.observation_shape
