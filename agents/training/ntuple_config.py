"""The schema of ``agents.training.ntuple``: the table value learned by TD(lambda) from
self-play (``algorithm: ntuple``, ``backend: local`` or ``ray``; section ``ntuple``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .config import Count, FinalEval, Int, Name, Positive, RayCluster, Rule, Section, Share, TrainConfig, Weight

FAMILIES = ("track", "letters", "identical", "consecutive", "rows", "heights", "surface", "planner", "regions")
"""The value's table families (``agents.values.ntuple.FAMILIES``, named here so that reading a
config compiles nothing; a test keeps the two the same)."""


class NTupleLoop(Section):
    """The table value's self-play: rounds of games, TD(lambda) in seed order, a gate every ``gate_every``."""

    games: Positive = 200_000
    """Self-play games in all."""
    round_games: Positive = 512
    """Games of a round (played with the weights the round starts with)."""
    shards: Positive = 2
    """A round's games in this many shares (Ray tasks with backend ray, else one after another)."""
    parallel: Positive = 64
    """Games a share packs at once."""
    seed: Count = 6_000_000
    """Seed of the first self-play game (game ``i`` of the run plays seed ``seed + i``)."""
    limit: Positive = 128
    """Candidates valued a turn: the planner's best-ranked."""
    width: Positive = 12
    """The planner's tetromino writings kept per sheet."""
    families: Annotated[list[Literal[FAMILIES]], Field(min_length=1)] = list(FAMILIES)
    stages: Positive = 5
    planner_share: Weight = 1.0
    """Share of the planner's value added to the tables' (1: the tables learn a correction)."""
    alpha: Annotated[float, Field(gt=0, le=1)] = 1.0
    """Share of each TD error corrected (with temporal coherence, before each weight's own rate)."""
    lam: Share = 0.5
    epsilon: Annotated[float, Field(ge=0, lt=1)] = 0.0
    """Share of turns played by a drawn candidate."""
    coherence: bool = True
    """Temporal coherence: a step size per weight."""
    gate_every: Positive = 20_000
    """Self-play games between gates (and checkpoints)."""
    keep: Literal["not_worse", "better"] = "not_worse"
    """``not_worse``: the newest value unless the gate shows it worse than the best (a plateau's noise would
    freeze an early lucky gate); ``better``: only a value the gate shows better."""
    gate_games: Positive = 300
    gate_seed: Count = 3_000_000
    threads: Count = 0
    """Threads that value candidates (0: one per core)."""


class NTupleFinalEval(FinalEval):
    agents: list[str] = ["ntuple", "greedy"]
    top: Count = 0
    """Above 0, a second row: the value's expectimax over ``rolls`` next rolls of its ``top`` best candidates."""
    rolls: Int = 32


class NTupleConfig(TrainConfig):
    """An afterstate value of table lookups (n-tuple style), learned by TD(lambda) from self-play."""

    trainer_entry = "agents.training.ntuple:train"
    resume_entry = "agents.training.ntuple:find_state"
    model_agent = "ntuple"
    length = "ntuple.games"
    backend: Literal["local", "ray"] = "local"
    """``ray``: each round's shares are Ray tasks (``ray.address``); the games are the same."""
    algorithm: Literal["ntuple"] = "ntuple"
    experiment: Name = "ntuple"
    init_from: str | None = None
    """Weights (.npz) to start from, whose families and stages win; null: tables at 0."""
    ship_to: str | None = None
    """Copy the best weights here at the end."""
    ntuple: NTupleLoop = NTupleLoop()
    ray: RayCluster = RayCluster()
    final_eval: NTupleFinalEval = NTupleFinalEval()

    def rules(self) -> list[Rule]:
        n, local = self.ntuple, self.backend == "local"
        return [
            self.agents("final_eval.agents", model="ntuple"),
            self.init_file("weights .npz"),
            (n.round_games >= n.shards, "ntuple.round_games", "must be at least ntuple.shards"),
            (not (local and self.ray.address), "ray.address", "needs backend 'ray' (its shares as Ray tasks)"),
        ]
