"""Training configuration: one YAML file = one experiment, validated before anything runs.

``game:`` (``numberdrop``, the default, or ``luckynumbers``), ``backend:`` (``sb3``, the default;
``rllib``: Number Drop on Ray; ``local`` or ``ray`` for ``ntuple``) and ``algorithm:`` (``ppo``, the
default, ``q_iteration``, ``rerank`` or ``ntuple``) choose the trainer's schema (``SCHEMAS``), a pydantic
model built from the sections it reads, with its own defaults. ``load_config(path)`` returns it; a key
the trainer does not read, a wrong type (no ``"3"`` and no ``true`` for an int) or an out-of-range value
raises a ``ValueError``/``TypeError`` naming the key's dotted path (``ppo.learning_rate``), so a typo
never silently falls back to a default.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import yaml
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from ..registry import AGENTS, LUCKY_AGENTS, require_extra
from ..values.ntuple import FAMILIES


def _whole(value: Any) -> Any:
    """YAML reads ``1.0e6`` as a float: a whole one of 1000 or more counts as an int."""
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) >= 1000 else value


def _rule(test: Callable[[Any], Any], what: str) -> AfterValidator:
    """A check of one value: ``what`` it must be when ``test`` fails."""

    def check(value: Any) -> Any:
        if not test(value):
            raise ValueError(what)
        return value

    return AfterValidator(check)


Int = Annotated[int, BeforeValidator(_whole)]
Name = Annotated[str, _rule(lambda v: v and "/" not in v, "must be a non-empty name without '/'")]
Count = Annotated[Int, Field(ge=0)]
Positive = Annotated[Int, Field(ge=1)]
OffOrTwo = Annotated[Count, _rule(lambda v: v != 1, "must be 0 (off) or >= 2")]
Rate = Annotated[float, Field(gt=0)]
Weight = Annotated[float, Field(ge=0)]
Share = Annotated[float, Field(ge=0, le=1)]
Widths = Annotated[list[Positive], Field(min_length=1)]
"""One or more positive layer widths or channel counts."""


class Section(BaseModel):
    """A part of a config: unknown keys and loose types are refused."""

    model_config = ConfigDict(extra="forbid", strict=True, use_attribute_docstrings=True)


# ---------------------------------------------------------------- sections
class Env(Section):
    """Number Drop's training environment."""

    interface: Literal["decision", "turn"] = "decision"
    """``turn``: ``NumberDropTurn-v0``, a step per turn over candidate afterstates; ``decision``: ``NumberDrop-v0``."""
    auto_forced: bool = True
    """(decision) Apply decisions with a single legal action inside the env."""
    candidates: Positive = 32
    """(turn) Candidate slots per turn: the best-ranked distinct outcomes are offered."""
    width: Positive = 12
    """(turn) Tetromino drops the enumerator values exactly (each with every combination)."""
    afterstates: bool = False
    """(turn, solo, sb3) Also observe the grid each candidate leaves, read by a small convolution."""
    players: Annotated[Int, Field(ge=1, le=6)] = 1
    """1: solo games; 2..6: one seat of a table (``NumberDropTable-v0``, turn interface)."""
    opponents: list[str] = ["greedy"]
    """(players > 1) Registry agents of the other seats, cycled round the table."""


class LuckyEnv(Section):
    """Lucky Numbers' training environment: one seat of a table."""

    players: Annotated[Int, Field(ge=2, le=4)] = 4
    opponents: list[str] = ["greedy"]
    """Registry agents of the other seats."""
    setup: Literal["standard", "michael"] = "standard"
    """The diagonal dealt ascending, or Michael's variant."""
    bruno: bool = False
    """Bruno's variant."""
    shaping: Weight = 0.0
    """Reward per cell the learner fills (potential-based; 0 = the tournament score alone)."""


class PPO(Section):
    learning_rate: Rate = 3e-4
    lr_schedule: Literal["constant", "linear"] = "constant"
    """``linear`` decays the learning rate to 0 over ``total_timesteps``."""
    n_steps: Positive = 512
    """Rollout length per environment."""
    batch_size: Positive = 256
    n_epochs: Positive = 4
    gamma: Annotated[float, Field(gt=0, le=1)] = 0.995
    gae_lambda: Share = 0.95
    clip_range: Rate = 0.2
    ent_coef: Weight = 0.01
    vf_coef: Weight = 0.5
    max_grad_norm: Rate = 0.5
    target_kl: Rate | None = None
    normalize_advantage: bool = True
    actor_warmup_steps: Count = 0
    """(turn) Train only the value head during the first this many environment steps."""


class TurnNetwork(Section):
    """The candidate-scoring network of ``NumberDropTurn-v0``."""

    candidate_hidden: Widths = [64, 64]
    """MLP embedding each candidate's feature row (shared by all candidates)."""
    state_hidden: Widths = [64]
    """MLP embedding the state before the turn."""
    scorer_hidden: list[Positive] = [64]
    """Hidden layers of the residual scorer over (candidate, state) embeddings."""
    value_hidden: list[Positive] = [64]
    """Hidden layers of the value head."""
    planner_scale: Rate = 2.0
    """Initial logit per point of planner value (the residual starts at zero)."""
    activation: Literal["relu", "tanh"] = "relu"
    torch_threads: Positive = 1
    """``torch.set_num_threads`` of the training process."""


class Network(TurnNetwork):
    """Number Drop's networks: the candidate scorer (turn) or the CNN over the grid planes (decision)."""

    cnn_channels: Widths = [32, 64]
    """(decision) Output channels of the 3x3 convolutions over the (19, 14, 7) grid planes."""
    cnn_hidden: Positive = 256
    """(decision) Width of the linear layer after the flattened convolutions."""
    vector_hidden: list[Positive] = [128]
    """(decision) MLP over the concatenated vector observations."""
    pi: list[Positive] = [128]
    """(decision) Hidden layers of the policy MLP."""
    vf: list[Positive] = [128]
    """(decision) Hidden layers of the value MLP."""
    grid_channels: Widths = [16, 16]
    """(turn, ``env.afterstates``) Output channels of the 3x3 convolutions over each candidate's grid."""


class LuckyNetwork(Section):
    pi: list[Positive] = [256, 256]
    """Hidden layers of the policy MLP."""
    vf: list[Positive] = [256, 256]
    """Hidden layers of the value MLP."""
    activation: Literal["relu", "tanh"] = "relu"
    torch_threads: Positive = 1


class LuckyPretrain(Section):
    """Behaviour cloning of a scripted agent before PPO."""

    games: Count = 0
    """Games of demonstrations to clone (0 disables behaviour cloning)."""
    agent: str = "greedy"
    """The scripted agent to clone."""
    seed: Count = 2_000_000
    """Demonstration game ``i`` uses seed ``seed + i`` (kept apart from evaluation seeds)."""
    epochs: Positive = 10
    batch_size: Positive = 256
    learning_rate: Rate = 1e-3
    value_coef: Weight = 0.5
    """Weight of the value head's Huber loss on the demonstrated returns."""


class Pretrain(LuckyPretrain):
    workers: Count = 0
    """Processes that play the demonstrations; 0 means one per CPU."""


class LuckyEval(Section):
    every_steps: Count = 50_000
    """Evaluate every this many steps (0 disables), keeping the best as ``best_model.zip`` (Lucky: by win rate)."""
    games: Positive = 100
    seed: Count = 10_000
    """Game ``i`` of each evaluation uses seed ``seed + i`` (the same games every time)."""


class Eval(LuckyEval):
    greedy_baseline: bool = True
    """Also log the greedy agent's mean on the same seeds (computed once, cached)."""


class Checkpoint(Section):
    every_steps: Count = 100_000
    """Save ``checkpoints/ppo_<steps>_steps.zip`` every this many environment steps (0 disables)."""


class LuckyFinalEval(Section):
    """The closing tables: one per opponent, the model in one seat."""

    games: Count = 250
    """Seeds of each table (each under every rotation of seats; 0 skips them)."""
    seed: Count = 1_000_000
    opponents: list[str] = ["random", "greedy"]
    workers: Count = 0
    """Worker processes; 0 means one per CPU."""


class FinalEval(Section):
    """The closing table of solo Number Drop (a table run seats the model among ``env.opponents``)."""

    games: Count = 300
    """Games per agent (0 skips it)."""
    seed: Count = 1_000_000
    agents: list[str] = ["ppo", "random", "greedy"]
    """Registry agents; ``ppo`` (``rllib`` on Ray) is the trained model."""
    workers: Count = 0
    """Worker processes; 0 means one per CPU."""


class RLlibFinalEval(FinalEval):
    agents: list[str] = ["rllib", "random", "greedy"]


class LookaheadFinalEval(FinalEval):
    lookahead: OffOrTwo = 0
    """Also play the network with its look-ahead (the ``ppo`` agent's) over this many likeliest candidates (0: not)."""
    samples: Positive = 4
    """(lookahead) Sampled next rolls per candidate."""
    refine: OffOrTwo = 3
    """(lookahead) The best candidates valued again on new rolls (0: not)."""


class RayCluster(Section):
    address: Annotated[str, _rule(str.strip, "must be a non-empty address or null")] | None = None
    """Cluster to join (``auto``, ``HOST:6379``, ``ray://HOST:10001``); null: ``RAY_ADDRESS``, else a local Ray."""
    num_cpus: Positive | None = None
    """(local Ray) CPUs Ray may use; null: all of this machine's."""


class Ray(RayCluster):
    env_runners: Count = 1
    """Remote env runners (actors that step ``n_envs`` environments each); 0 samples in the driver."""
    cpus_per_env_runner: Positive = 1
    learners: Count = 0
    """Remote learner actors (data-parallel PPO updates); 0 updates in the driver process."""
    cpus_per_learner: Positive = 1
    sample_timeout_s: Rate = 600.0
    """An env runner that returns no samples for this long fails the iteration."""


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


class RerankLoop(Section):
    """The re-ranker's generations: recording, fit and the paired gate."""

    generations: Positive = 1
    games: Positive = 1000
    """Games recorded per generation by ``init_from`` (with the best re-ranker after the first)."""
    seed: Count = 900_000
    """Game ``i`` of generation ``g`` uses seed ``seed + g * games + i``."""
    top: Annotated[Int, Field(ge=2)] = 16
    """The network's best candidates the re-ranker weighs at each turn."""
    samples: Positive = 16
    """Sampled next rolls of the look-ahead that values them (its targets)."""
    window: Positive = 2
    """Generations of recordings the fit reads (the newest)."""
    hidden: Widths = [128, 128]
    epochs: Positive = 3
    batch_size: Positive = 256
    """Turns per gradient step."""
    learning_rate: Rate = 1.0e-3
    holdout: Annotated[float, Field(ge=0, lt=1)] = 0.1
    """Share of a generation's recorded games held out of the fit, to measure it."""
    gate_games: Positive = 1000
    """Paired games of the gate: the network with the new re-ranker against the best so far."""
    gate_seed: Count = 3_000_000
    workers: Count = 0
    """Processes that record and play the gate; 0 means one per CPU."""


# ---------------------------------------------------------------- the trainers' schemas
Rule = tuple[bool, str, str]
"""A check of a config: whether it holds, the key it refuses and what that key must be."""


class TrainConfig(Section):
    """What every trainer reads; each trainer's schema adds its own keys."""

    game: Literal["numberdrop"] = "numberdrop"
    """(Each schema allows its own ``game``, ``backend`` and ``algorithm``, see ``SCHEMAS``.)"""
    backend: Literal["sb3"] = "sb3"
    algorithm: Literal["ppo"] = "ppo"
    experiment: Name
    seed: Count = 0
    output_dir: str | None = None
    """Run directory; default ``runs/<experiment>/``."""
    progress_bar: bool = True

    @property
    def trainer(self) -> str:
        """The trainer that runs this config (a key of ``agents.training.TRAINERS``)."""
        return self.backend if self.algorithm == "ppo" else self.algorithm

    @property
    def run_dir(self) -> Path:
        return Path(self.output_dir) if self.output_dir else Path("runs") / self.experiment

    def to_dict(self) -> dict[str, Any]:
        """Every key of the config (the run's ``config.yaml``)."""
        return self.model_dump()

    @model_validator(mode="after")
    def _fits(self) -> TrainConfig:
        for ok, key, what in self.rules():
            if not ok:
                raise ValueError(f"config key {key!r} {what}, got {attrgetter(key)(self)!r}")
        return self

    def rules(self) -> list[Rule]:
        """The checks that read more than one key, in order: the first that fails is reported."""
        return []

    def agents(self, key: str, among: dict[str, Any], model: str | None = None) -> Rule:
        """The agents at ``key`` are registry agents: distinct ones including ``model``, or scripted ones."""
        names = attrgetter(key)(self)
        names = [names] if isinstance(names, str) else names
        if model is None:
            scripted = sorted(set(among) - {"ppo", "rllib"})
            return bool(names) and set(names) <= set(scripted), key, f"must list scripted agents among {scripted}"
        ok = len(names) == len(set(names)) and model in names and set(names) <= set(among)
        return ok, key, f"must be distinct agents among {sorted(among)}, including {model!r}"

    def init_file(self, what: str = "model .zip") -> Rule:
        path = self.init_from  # type: ignore[attr-defined]
        return path is None or Path(path).is_file(), "init_from", f"must name an existing {what}"


class _PPORun(TrainConfig):
    """The PPO trainers: environment steps, updates, periodic evaluations and checkpoints."""

    total_timesteps: Count = 1_000_000
    """Environment steps of PPO; 0 with ``pretrain.games`` > 0: behaviour cloning alone."""
    n_envs: Positive = 8
    ppo: PPO = PPO()
    checkpoint: Checkpoint = Checkpoint()

    def rules(self) -> list[Rule]:
        clones = getattr(self, "pretrain", LuckyPretrain()).games > 0
        limit, what = self.batch_limit()
        return [
            (
                self.total_timesteps > 0 or clones,
                "total_timesteps",
                "must be > 0 (or 0 with pretrain.games > 0: behaviour cloning alone)",
            ),
            (self.ppo.batch_size <= limit, "ppo.batch_size", f"must be at most {what}"),
        ]

    def batch_limit(self) -> tuple[int, str]:
        """The largest ``ppo.batch_size``: the steps of a rollout."""
        return self.ppo.n_steps * self.n_envs, "n_steps * n_envs"


class PPOConfig(_PPORun):
    """MaskablePPO (Stable-Baselines3) on Number Drop, solo or in one seat of a table."""

    experiment: Name = "ppo_solo"
    vec_env: Literal["dummy", "subproc", "native"] = "dummy"
    """``dummy``: the envs one after the other; ``subproc``: a process each; ``native`` (turn, solo): one vector env."""
    ship_to: str | None = None
    """Copy the best model here at the end (e.g. ``agents/models/ppo_turn.zip``)."""
    init_from: str | None = None
    """Start from this model's weights (same spaces and network); unlike ``--resume`` the steps start at 0."""
    env: Env = Env()
    pretrain: Pretrain = Pretrain()
    network: Network = Network()
    eval: Eval = Eval()
    final_eval: LookaheadFinalEval = LookaheadFinalEval()

    def rules(self) -> list[Rule]:
        e, turn, solo = self.env, self.env.interface == "turn", self.env.players == 1
        turn_solo = "needs env.interface 'turn' and env.players 1"
        return [
            *super().rules(),
            (solo or turn, "env.players", "needs env.interface 'turn'"),
            (self.vec_env != "native" or (turn and solo), "vec_env", f"'native' {turn_solo}"),
            (
                not turn or self.pretrain.games == 0,
                "pretrain.games",
                "must be 0 with env.interface 'turn' (the candidate policy starts from the planner instead)",
            ),
            (not e.afterstates or (turn and solo), "env.afterstates", turn_solo),
            (
                self.final_eval.lookahead == 0 or (turn and solo),
                "final_eval.lookahead",
                "needs a turn-level model of solo games (env.interface 'turn', env.players 1)",
            ),
            self.agents("env.opponents", AGENTS),
            self.agents("pretrain.agent", AGENTS),
            self.agents("final_eval.agents", AGENTS, "ppo"),
            self.init_file(),
        ]


class RLlibConfig(_PPORun):
    """PPO on RLlib (Ray): solo Number Drop, ``n_envs`` environments per env runner."""

    backend: Literal["rllib"] = "rllib"
    experiment: Name = "rllib_ppo"
    env: Env = Env()
    network: Network = Network()
    eval: Eval = Eval()
    final_eval: RLlibFinalEval = RLlibFinalEval()
    ray: Ray = Ray()

    @property
    def train_batch_size(self) -> int:
        """Environment steps per PPO iteration, over all env runners."""
        return self.ppo.n_steps * self.n_envs * max(1, self.ray.env_runners)

    def module_config(self) -> dict[str, Any]:
        """What the RL module is built from: the interface, its environment settings and the network."""
        env = self.env.model_dump(include={"interface", "auto_forced", "candidates", "width"})
        return {**env, **self.network.model_dump()}

    def rules(self) -> list[Rule]:
        p = self.ppo
        return [
            *super().rules(),
            (self.env.players == 1, "env.players", "must be 1 with backend 'rllib' (solo games)"),
            (not self.env.afterstates, "env.afterstates", "needs backend 'sb3'"),
            (p.target_kl is None, "ppo.target_kl", "must be null with backend 'rllib' (RLlib has no early stop)"),
            (
                p.normalize_advantage,
                "ppo.normalize_advantage",
                "must be true with backend 'rllib' (RLlib always standardises advantages)",
            ),
            self.agents("final_eval.agents", AGENTS, "rllib"),
        ]

    def batch_limit(self) -> tuple[int, str]:
        """Each learner's share of an iteration's steps."""
        what = "n_steps * n_envs * max(1, ray.env_runners) / max(1, ray.learners)"
        return self.train_batch_size // max(1, self.ray.learners), what


class LuckyConfig(_PPORun):
    """MaskablePPO on Lucky Numbers, one seat of a table."""

    game: Literal["luckynumbers"] = "luckynumbers"
    experiment: Name = "lucky_ppo"
    total_timesteps: Count = 300_000
    vec_env: Literal["dummy", "subproc"] = "dummy"
    ship_to: str | None = None
    env: LuckyEnv = LuckyEnv()
    pretrain: LuckyPretrain = LuckyPretrain()
    network: LuckyNetwork = LuckyNetwork()
    eval: LuckyEval = LuckyEval()
    final_eval: LuckyFinalEval = LuckyFinalEval()

    def rules(self) -> list[Rule]:
        return [
            *super().rules(),
            (
                self.ppo.actor_warmup_steps == 0,
                "ppo.actor_warmup_steps",
                "is a Number Drop turn-level setting; leave it 0",
            ),
            self.agents("env.opponents", LUCKY_AGENTS),
            self.agents("pretrain.agent", LUCKY_AGENTS),
            self.agents("final_eval.opponents", LUCKY_AGENTS),
        ]


class _Generations(TrainConfig):
    """The trainers that run in generations on Number Drop's turn-level network, each closed by a gate."""

    section: ClassVar[str]
    """The section of the generations' settings."""
    ship_to: str | None = None
    """Copy the best generation's model here at the end."""

    def rules(self) -> list[Rule]:
        return [self.agents("final_eval.agents", AGENTS, "ppo"), self.init_file()]


class QIterationConfig(_Generations):
    """Afterstate Q-iteration: the candidate network's logits learn each candidate's value in points."""

    section: ClassVar[str] = "q"
    algorithm: Literal["q_iteration"] = "q_iteration"
    experiment: Name = "q_iteration"
    init_from: str | None = None
    """The turn-level model to start from; null: a new network (``network``) whose logits are the planner's values."""
    network: TurnNetwork = TurnNetwork()
    q: QLoop = QLoop()
    final_eval: LookaheadFinalEval = LookaheadFinalEval()


class RerankConfig(_Generations):
    """A re-ranker of the value network ``init_from``'s best candidates, fitted to its look-ahead."""

    section: ClassVar[str] = "rerank"
    algorithm: Literal["rerank"] = "rerank"
    experiment: Name = "q_rerank"
    init_from: str | None = "agents/models/q_turn.zip"
    """The value network (.zip) whose candidates are re-ranked."""
    rerank: RerankLoop = RerankLoop()
    final_eval: FinalEval = FinalEval()

    def rules(self) -> list[Rule]:
        named = self.init_from is not None
        return [
            (named, "init_from", "must name the value network (.zip) whose candidates are re-ranked"),
            *super().rules(),
        ]


class NTupleConfig(TrainConfig):
    """An afterstate value of table lookups (n-tuple style), learned by TD(lambda) from self-play."""

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
            self.agents("final_eval.agents", AGENTS, "ntuple"),
            self.init_file("weights .npz"),
            (n.round_games >= n.shards, "ntuple.round_games", "must be at least ntuple.shards"),
            (not (local and self.ray.address), "ray.address", "needs backend 'ray' (its shares as Ray tasks)"),
        ]


SCHEMAS: dict[tuple[str, str, str], type[TrainConfig]] = {
    ("numberdrop", "sb3", "ppo"): PPOConfig,
    ("numberdrop", "rllib", "ppo"): RLlibConfig,
    ("luckynumbers", "sb3", "ppo"): LuckyConfig,
    ("numberdrop", "sb3", "q_iteration"): QIterationConfig,
    ("numberdrop", "sb3", "rerank"): RerankConfig,
    ("numberdrop", "local", "ntuple"): NTupleConfig,
    ("numberdrop", "ray", "ntuple"): NTupleConfig,
}
"""Each trainer's schema, by ``(game, backend, algorithm)``."""


# ---------------------------------------------------------------- reading a config
def schema_of(data: dict[str, Any]) -> type[TrainConfig]:
    """The schema a mapping's ``game``, ``backend`` and ``algorithm`` choose."""
    algorithm = data.get("algorithm", "ppo")
    first = next((k[1] for k in SCHEMAS if k[2] == algorithm), "sb3")  # the algorithm's first backend
    chosen = data.get("game", "numberdrop"), data.get("backend", first), algorithm
    for i, key in enumerate(("game", "backend", "algorithm")):
        known = list(dict.fromkeys(k[i] for k in SCHEMAS))
        if chosen[i] not in known:
            raise ValueError(f"config key {key!r} must be one of {' | '.join(map(repr, known))}, got {chosen[i]!r}")
    if chosen in SCHEMAS:
        return SCHEMAS[chosen]
    game, backend, algorithm = chosen
    if algorithm != "ppo":
        backends = " or ".join(repr(k[1]) for k in SCHEMAS if k[2] == algorithm)
        raise ValueError(
            f"config key 'algorithm': {algorithm!r} trains Number Drop with backend {backends}, "
            f"got game {game!r} and backend {backend!r}"
        )
    raise ValueError(f"config key 'backend' must be 'sb3' with game {game!r}, got {backend!r}")


_TYPES = {"int": "an int", "float": "a number", "bool": "a bool", "string": "a string", "list": "a list"}
_SAYS = {
    "literal_error": "must be one of {expected}",
    "too_short": "must list one or more",
    "greater_than_equal": "must be >= {ge}",
    "greater_than": "must be > {gt}",
    "less_than_equal": "must be <= {le}",
    "less_than": "must be < {lt}",
}
"""What a value must be, by the type of pydantic's error (``_TYPES``: of a wrong type, ``<type>_type``)."""


def _refusal(error: Any, schema: type[TrainConfig]) -> Exception:
    """The ``ValueError``/``TypeError`` of one of pydantic's errors, naming the key by its dotted path."""
    loc, kind, value, ctx = error["loc"], error["type"], error.get("input"), error.get("ctx", {})
    key = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    if not loc:  # a rule of the whole config
        return ValueError(str(ctx.get("error", error["msg"])))
    if kind == "extra_forbidden":
        section: Any = schema
        for part in loc[:-1]:
            section = section.model_fields[part].annotation
        where = f"section {'.'.join(loc[:-1])!r}" if len(loc) > 1 else "the top level"
        which = ", ".join(f"{k} {schema.model_fields[k].default!r}" for k in ("game", "backend", "algorithm"))
        known = ", ".join(sorted(section.model_fields))
        return ValueError(f"unknown config key {key!r} for {which}; the keys of {where}: {known}")
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return TypeError(f"config key {key!r} must be a mapping (a section), got {type(value).__name__}")
    if what := _TYPES.get(kind.removesuffix("_type")):
        return TypeError(f"config key {key!r} must be {what}, got {value!r} ({type(value).__name__})")
    what = _SAYS[kind].format(**ctx) if kind in _SAYS else ctx.get("error", error["msg"])
    return ValueError(f"config key {key!r} {what}, got {value!r}")


def config_from_dict(data: dict[str, Any] | None) -> TrainConfig:
    """Validate a plain mapping (e.g. parsed YAML) into its trainer's config."""
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise TypeError(f"a config must be a mapping at the top level, got {type(data).__name__}")
    schema = schema_of(data)
    try:
        return schema.model_validate(data)
    except ValidationError as err:
        raise _refusal(err.errors()[0], schema) from None


def load_config(path: str | Path) -> TrainConfig:
    """The validated config of a YAML file (``FileNotFoundError`` when there is none)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"config file {str(path)!r} not found")
    with path.open() as fh:
        data = yaml.safe_load(fh)
    try:
        cfg = config_from_dict(data)
        if cfg.trainer == "rllib":
            require_extra("rllib", "backend 'rllib'")
    except (TypeError, ValueError) as err:
        raise type(err)(f"{path}: {err}") from None
    except ImportError as err:
        raise ValueError(str(err)) from None
    return cfg


load_lucky_config = load_config
"""(Lucky Numbers' configs are read as every other.)"""


def is_lucky_config(path: str | Path) -> bool:
    """Whether a YAML config trains Lucky Numbers (top-level ``game: luckynumbers``)."""
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and data.get("game") == "luckynumbers"
