"""The agent of an RLlib run: a checkpoint's RL module (no Ray cluster started) playing by masked
argmax, offered what it was trained on (the turn's candidates or each decision)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.decision import observe
from numberdrop_env.planner.turns import Candidate, TurnPlanner

from ..networks import MASK_KEY, OBS_KEY
from .greedy import PlanFollower
from .network import TurnNetwork, TurnSetup

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


class RLlibPolicy(TurnNetwork):
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
        self.turn_level = config["interface"] == "turn"
        self.auto_forced = bool(config.get("auto_forced", True))
        if self.turn_level:
            self.setup = TurnSetup(TurnPlanner(width=int(config["width"])), int(self.module.action_space.n))
        self._follow = PlanFollower()

    def reset(self, seed: int) -> None:
        self._follow = PlanFollower()

    def _argmax(self, observation: dict[str, Any], mask: np.ndarray) -> int:
        import torch

        batch = {
            MASK_KEY: torch.as_tensor(np.asarray(mask, np.float32)[None]),
            OBS_KEY: {k: torch.as_tensor(np.asarray(v)[None]) for k, v in observation.items()},
        }
        return int(self.module.masked_argmax(batch)[0])

    def decide(self, game: SoloGame, mask: np.ndarray) -> int:
        return self._argmax(observe(game), mask)

    def pick(self, game: SoloGame, offered: list[Candidate], batch: dict[str, np.ndarray], masks: np.ndarray) -> int:
        return self._argmax({k: v[0] for k, v in batch.items()}, masks[0])
