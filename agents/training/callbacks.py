"""SB3 callbacks of a training run: game metrics and the win rate, the progress bar, the actor warm-up."""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from numberdrop_env.engine.rules import DEFAULT_RULES

from . import common

GAME_KEYS = ("score", "lines", "boxes", "box_points", "column_bonuses", "penalty_rows", "turns", "decisions", "win")


class GameMetricsCallback(BaseCallback):
    """The training games' metrics, logged as means per rollout (``game/*``; tables: ``game/win``)."""

    def __init__(self) -> None:
        super().__init__()
        self.episodes: dict[str, list[float]] = {k: [] for k in GAME_KEYS}
        self.last_score: float | None = None

    def _on_step(self) -> bool:
        n_boxes = 2 * len(DEFAULT_RULES.box_sizes) + 1
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done and "win" in info:
                self.episodes["win"].append(info["win"])
            if not done or "score_breakdown" not in info:
                continue
            term = info.get("terminal_observation")
            if "boxes" in info:  # NumberDropTurn-v0
                boxes = info["boxes"]
            else:  # identical, consecutive, bonus boxes
                boxes = np.sum(term["track"][:n_boxes]) if isinstance(term, dict) and "track" in term else None
            metrics = common.game_metrics(info, 0.0 if boxes is None else boxes)
            metrics["turns"] = info["turn"]
            if boxes is None:
                del metrics["boxes"]
            if "episode" in info:
                metrics["decisions"] = info["episode"]["l"]
            for key, value in metrics.items():
                self.episodes[key].append(value)
        return True

    def _on_rollout_end(self) -> None:
        for key, values in self.episodes.items():
            if values:
                self.logger.record(f"game/{key}", float(np.mean(values)))
        if self.episodes["score"]:
            self.logger.record("game/episodes", len(self.episodes["score"]))
            self.last_score = float(np.mean(self.episodes["score"]))
        self.episodes = {k: [] for k in GAME_KEYS}


class ProgressCallback(BaseCallback):
    """The progress bar, moved every 1,000 steps and after each update."""

    def __init__(self, total: int, metrics: Any, evals: Any) -> None:
        super().__init__()
        self.total, self.metrics, self.evals = total, metrics, evals
        self.bar: common.StepProgress | None = None

    def _on_training_start(self) -> None:
        self.bar = common.StepProgress(self.total, self.num_timesteps)

    def _on_step(self) -> bool:
        if self.num_timesteps - self.bar.done >= 1000:
            self.bar.update(self.num_timesteps - self.bar.done)
        return True

    def _on_rollout_end(self) -> None:
        self.bar.to(self.num_timesteps, self.metrics.last_score, self.evals.latest)

    def _on_training_end(self) -> None:
        self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class ActorWarmupCallback(BaseCallback):
    """Train only the value head of the candidate policy for the first ``steps`` env steps."""

    def __init__(self, steps: int) -> None:
        super().__init__()
        self.steps = steps

    def _set(self, frozen: bool) -> None:
        if hasattr(self.model.policy, "freeze_actor"):
            self.model.policy.freeze_actor = frozen

    def _on_training_start(self) -> None:
        self._set(self.num_timesteps < self.steps)

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self._set(self.num_timesteps < self.steps)

    def _on_training_end(self) -> None:
        self._set(False)
