"""The schema of ``agents.training.q_iteration``: afterstate Q-iteration on Number Drop's
candidate network (``algorithm: q_iteration``, ``backend: local``; section ``q``). The trained
network plays as the ``q`` agent in the closing table."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import model_validator

from .config import Count, LookaheadFinalEval, Name, Positive, Rate, Rule, Section, Share, TrainConfig, Weight
from .sb3_config import TurnNetwork


class QLoop(Section):
    """Q-iteration's generations: self-play of the newest network, a fit to lambda-returns, a paired gate."""

    generations: Positive = 10
    games: Positive = 400
    """Self-play games per generation."""
    seed: Count = 4_000_000
    """Self-play game ``i`` of generation ``g`` uses seed ``seed + g * games + i``."""
    envs: Positive = 32
    """Self-play games at once in the native vector env (it plans their turns on every core)."""
    slots: Positive | None = None
    """Candidates the network picks among in self-play, gate and closing table, saved with its model (null: its own)."""
    epsilon: Share = 0.05
    """Share of self-play turns that play a uniformly drawn candidate instead of the best."""
    td_lambda: Share = 0.7
    """How far the targets look along the game's own turns before trusting the network's values."""
    window: Positive = 4
    """Generations of self-play data the network fits (the newest)."""
    epochs: Positive = 2
    batch_size: Positive = 256
    learning_rate: Rate = 1.0e-4
    value_coef: Weight = 0.5
    """Weight of the value head's Huber loss."""
    gate_games: Positive = 300
    """Paired games of the gate: the new network alone against the best on the same seeds."""
    gate_seed: Count = 3_000_000
    workers: Count = 0
    """Above 1, the gate plays in a second process beside the next self-play; 0: one per CPU."""


class QFinalEval(LookaheadFinalEval):
    agents: list[str] = ["q", "random", "greedy"]
    """Registry agents; ``q`` is the trained network (an earlier config's ``ppo`` is read as ``q``)."""


class QIterationConfig(TrainConfig):
    """Afterstate Q-iteration: the candidate network's logits learn each candidate's value in points."""

    trainer_entry = "agents.training.q_iteration:train [train]"
    resume_entry = "agents.training.q_iteration:find_state [train]"
    model_agent = "q"
    length: ClassVar[str] = "q.generations"
    backend: Literal["local"] = "local"
    """The games play in this machine's processes (earlier configs' ``sb3`` is read as ``local``)."""
    algorithm: Literal["q_iteration"] = "q_iteration"
    experiment: Name = "q_iteration"
    init_from: str | None = None
    """The turn-level model to start from; null: a new network (``network``) whose logits are the planner's values."""
    ship_to: str | None = None
    """Copy the best generation's model here at the end."""
    network: TurnNetwork = TurnNetwork()
    q: QLoop = QLoop()
    final_eval: QFinalEval = QFinalEval()

    @model_validator(mode="before")
    @classmethod
    def _q_not_ppo(cls, data: Any) -> Any:
        """An earlier config's ``final_eval.agents`` named the network ``ppo``: read it as ``q``."""
        section = data.get("final_eval") if isinstance(data, dict) else None
        agents = section.get("agents") if isinstance(section, dict) else None
        if isinstance(agents, list) and "ppo" in agents and "q" not in agents:
            data = {**data, "final_eval": {**data["final_eval"], "agents": ["q" if a == "ppo" else a for a in agents]}}
        return data

    def rules(self) -> list[Rule]:
        return [self.agents("final_eval.agents", model="q"), self.init_file()]
