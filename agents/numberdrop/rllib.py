"""The agent of an RLlib run: a checkpoint's RL module (no Ray cluster started) playing by masked
argmax, offered what it was trained on (the turn's candidates or each decision)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.decision import observe
from numberdrop_env.planner.turns import TurnPlanner

from ..networks import MASK_KEY, OBS_KEY
from .greedy import PlanFollower
from .network import TurnSetup, turn_decision

MODULE_SUBDIR = Path("learner_group") / "learner" / "rl_module" / "default_policy"


def module_dir(path: str | Path) -> Path:
    """The RL module directory of an algorithm checkpoint (or ``path`` itself if it is one)."""
    path = Path(path)
    if (path / MODULE_SUBDIR).is_dir():
        return path / MODULE_SUBDIR
    if (path / "class_and_ctor_args.pkl").is_file() and (path / "module_state.pkl").is_file():
        return path
    if not path.exists():
        raise FileNotFoundError(
            f"RLlib checkpoint {str(path)!r} not found "
            "(train one with `python train.py --config configs/rllib_ppo.yaml`)"
        )
    raise FileNotFoundError(f"{str(path)!r} is neither an RLlib algorithm checkpoint nor an RL module directory")


def load_module(path: str | Path) -> Any:
    """The checkpoint's module in evaluation mode, on the CPU, without starting Ray."""
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule

    quiet = logging.getLogger("ray.rllib")  # RLlib warns about its own internal config object on every load
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        module = RLModule.from_checkpoint(str(module_dir(path).resolve()))
    finally:
        quiet.setLevel(level)
    module.eval()
    torch.set_num_threads(1)  # evaluate runs one process (or Ray task) per core
    return module


class RLlibPolicy:
    """Plays the legal action an RLlib-trained ``NumberDropRLModule`` scores highest."""

    name = "rllib"

    def __init__(self, path: str | None = None) -> None:
        if path is None:
            raise ValueError(
                "the rllib agent needs a checkpoint: --option rllib.path=runs/<experiment>/best_checkpoint"
            )
        self.path = str(path)
        self.module = load_module(self.path)
        config = dict(self.module.model_config)
        self.interface = config["interface"]
        self.auto_forced = bool(config.get("auto_forced", True))
        if self.interface == "turn":
            self.setup = TurnSetup(TurnPlanner(width=int(config["width"])), int(self.module.action_space.n))
        self._follow = PlanFollower()

    def reset(self, seed: int) -> None:
        self._follow = PlanFollower()

    def _choose(self, observation: dict[str, Any], mask: np.ndarray) -> int:
        import torch

        batch = {
            MASK_KEY: torch.as_tensor(np.asarray(mask, np.float32)[None]),
            OBS_KEY: {k: torch.as_tensor(np.asarray(v)[None]) for k, v in observation.items()},
        }
        return int(self.module.masked_argmax(batch)[0])

    def act(self, game: SoloGame, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action: the game is over")
        if self.interface == "turn":
            return self._act_turn(game, mask)
        if len(legal) == 1 and self.auto_forced:
            return int(legal[0])
        action = self._choose(observe(game), mask)
        if not mask[action]:  # cannot happen with masked logits; never play an illegal move
            raise RuntimeError(f"module chose masked action {action}")
        return action

    def _act_turn(self, game: SoloGame, mask: np.ndarray) -> int:
        return turn_decision(
            self._follow,
            self.setup,
            game,
            mask,
            lambda _game, _offered, batch, masks: self._choose({k: v[0] for k, v in batch.items()}, masks[0]),
        )
