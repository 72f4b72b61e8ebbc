"""The learned Lucky Numbers agent: a MaskablePPO network for ``LuckyNumbers-v0``, by default the
shipped ``agents/models/lucky_ppo.zip`` (trained on the search agent's choices)."""

from __future__ import annotations

import numpy as np

from luckynumbers_env.engine.game import Game
from luckynumbers_env.envs.observe import observe

from ..base import MODELS, load_model

DEFAULT_MODEL = MODELS / "lucky_ppo.zip"


class PPOPolicy:
    """Plays the action a trained MaskablePPO model picks among the legal ones."""

    name = "ppo"

    def __init__(self, path: str | None = None, deterministic: bool = True) -> None:
        import torch

        torch.set_num_threads(1)  # evaluate runs one process per core
        self.deterministic = bool(deterministic)
        self.path = str(path) if path is not None else str(DEFAULT_MODEL)
        self.model = load_model(self.path)

    def reset(self, seed: int) -> None:
        if not self.deterministic:
            import torch

            torch.manual_seed(seed)

    def act(self, game: Game, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        action, _ = self.model.predict(observe(game, game.player), action_masks=mask, deterministic=self.deterministic)
        return int(action)
