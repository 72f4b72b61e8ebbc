"""The policy protocol of Lucky Numbers agents (the random agent is ``agents.base.RandomPolicy``).

A policy sees the ``Game`` and the mask of the player to act (``game.player``). It may
read everything public: boards, face-up tiles, the tile in hand, ``game.pool_size`` and
``game.unseen()`` (the pool as a multiset); it must not read the pool's order
(``pool_order()``), and a search imagines it with ``game.determinized(rng)``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from luckynumbers_env.engine.game import Game


@runtime_checkable
class LuckyPolicy(Protocol):
    """Chooses one legal action for the player to act; ``reset(seed)`` before each game."""

    name: str

    def reset(self, seed: int) -> None: ...

    def act(self, game: Game, mask: np.ndarray) -> int: ...


# random: agents.base.RandomPolicy plays any game (uniform over the mask)
