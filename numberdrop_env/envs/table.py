"""``NumberDropTable-v0``: one seat of a multiplayer table with ``NumberDropTurn-v0``'s spaces,
the others played by ``opponents`` (``docs/envs/numberdrop-table.md``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from gamekit.env import seat_opponents

from ..engine.rules import DEFAULT_RULES, Rules
from ..engine.table import Table
from ..render.draw import picture
from .base import SoloEnvBase
from .turn import NumberDropTurnEnv

AGENT_FACTORY = "agents.registry:make_policy"


class NumberDropTableEnv(NumberDropTurnEnv):
    """A learner's seat among ``num_players - 1`` opponents (cycled from ``opponents``)."""

    def __init__(
        self,
        num_players: int = 4,
        opponents: Sequence[Any] = ("greedy",),
        candidates: int = 32,
        width: int = 12,
        render_mode: str | None = None,
        rules: Rules = DEFAULT_RULES,
        mask_in_obs: bool = False,
        policy_factory: str | Callable[[str], Any] = AGENT_FACTORY,
    ) -> None:
        super().__init__(
            render_mode=render_mode, rules=rules, candidates=candidates, width=width, mask_in_obs=mask_in_obs
        )
        self.table = Table(num_players, rules, seed=0)  # refuses a num_players outside 2..6
        self.num_players = num_players
        self.opponent_names, self.opponents = seat_opponents(opponents, num_players - 1, policy_factory)
        self.seat = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; NumberDropTable-v0 takes none")
        gym.Env.reset(self, seed=seed)  # gymnasium seeding only
        game_seed = int(self.np_random.integers(2**63 - 1))
        table = Table(self.num_players, self.rules, seed=game_seed)
        return self._sit(table, int(self.np_random.integers(self.num_players)), game_seed)

    def step(self, action: int):
        if self.table.over:
            raise ValueError("the game is over: call reset() before step()")
        cand = self._candidate(action)
        before = self.game.score()
        for micro in cand.actions:
            self.table.step(self.seat, micro)
        self._play_others()  # the others finish the turn; the next roll comes
        self._offer()
        return self._obs(), float(self.game.score() - before), self.table.over, False, self._info()

    def get_state(self) -> dict[str, Any]:
        """The table (``Table.to_dict``) and the learner's seat."""
        return {"table": self.table.to_dict(), "seat": self.seat}

    def set_state(self, state: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Continue a saved table from the learner's next decision (the opponents restart their plans)."""
        if not isinstance(state, dict) or set(state) != {"table", "seat"}:
            raise ValueError("state must be a dict with keys 'table' and 'seat' (from get_state())")
        table = Table.from_dict(state["table"], self.rules)
        seat = state["seat"]
        if table.num_players != self.num_players or not isinstance(seat, int) or not 0 <= seat < self.num_players:
            raise ValueError(f"state: expected {self.num_players} seats and a seat 0..{self.num_players - 1}")
        return self._sit(table, seat, 0)

    def _sit(self, table: Table, seat: int, seed: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The learner at ``seat`` of ``table``, the opponents' plans restarted from ``seed``."""
        self.table, self.seat = table, seat
        for k, policy in enumerate(self.opponents):
            policy.reset(seed + k)
        self._play_others()
        self._start(self.table.seats[self.seat])
        return self._obs(), self._info()

    def render(self) -> str | np.ndarray | None:
        """The whole table: every sheet, the block board and the dice."""
        return picture(self.table, self.render_mode)

    def _start(self, game: Any) -> None:
        SoloEnvBase._start(self, game)  # a seat's turn starts in phase place or block, not slide

    def _play_others(self) -> None:
        """Opponents decide until the learner owes a decision or the game is over."""
        while not self.table.over and self.seat not in self.table.to_act():
            p = self.table.to_act()[0]
            policy = self.opponents[(p - self.seat - 1) % self.num_players]
            self.table.step(p, policy.act(self.table.seats[p], self.table.legal_mask(p)))

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        info["seat"] = np.int64(self.seat)
        winners = self.table.winners() if self.table.over else []
        info["win"] = np.float64(1.0 / len(winners) if self.seat in winners else 0.0)
        info["scores"] = self.table.scores().astype(np.int64)
        return info
