"""The schema of ``agents.training.sb3``: MaskablePPO (Stable-Baselines3) on Number Drop, solo or
in one seat of a table (``PPOConfig``), and on Lucky Numbers (``LuckyConfig``); ``backend: sb3``,
``algorithm: ppo``. Its PPO and network sections serve the RLlib trainer and Q-iteration too."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .config import (
    Checkpoint,
    Count,
    Env,
    Eval,
    Int,
    LookaheadFinalEval,
    LuckyEval,
    Name,
    Positive,
    Rate,
    Rule,
    Section,
    Share,
    TrainConfig,
    Weight,
    Widths,
)


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


class Pretrain(Section):
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
    workers: Count = 0
    """Processes that play the demonstrations; 0 means one per CPU."""


class PPORun(TrainConfig):
    """The PPO trainers: environment steps, updates, periodic evaluations and checkpoints."""

    trainer_entry = "agents.training.sb3:train [train]"
    resume_entry = "agents.training.resume:find_checkpoint [train]"
    total_timesteps: Count = 1_000_000
    """Environment steps of PPO; 0 with ``pretrain.games`` > 0: behaviour cloning alone."""
    n_envs: Positive = 8
    ppo: PPO = PPO()
    checkpoint: Checkpoint = Checkpoint()

    def rules(self) -> list[Rule]:
        clones = getattr(self, "pretrain", Pretrain()).games > 0
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


class PPOConfig(PPORun):
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
            self.agents("env.opponents"),
            self.agents("pretrain.agent"),
            self.agents("final_eval.agents", model="ppo"),
            self.init_file(),
        ]


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


class LuckyNetwork(Section):
    pi: list[Positive] = [256, 256]
    """Hidden layers of the policy MLP."""
    vf: list[Positive] = [256, 256]
    """Hidden layers of the value MLP."""
    activation: Literal["relu", "tanh"] = "relu"
    torch_threads: Positive = 1


class LuckyFinalEval(Section):
    """The closing tables: one per opponent, the model in one seat."""

    games: Count = 250
    """Seeds of each table (each under every rotation of seats; 0 skips them)."""
    seed: Count = 1_000_000
    opponents: list[str] = ["random", "greedy"]
    workers: Count = 0
    """Worker processes; 0 means one per CPU."""


class LuckyConfig(PPORun):
    """MaskablePPO on Lucky Numbers, one seat of a table."""

    game: Literal["luckynumbers"] = "luckynumbers"
    experiment: Name = "lucky_ppo"
    total_timesteps: Count = 300_000
    vec_env: Literal["dummy", "subproc"] = "dummy"
    ship_to: str | None = None
    env: LuckyEnv = LuckyEnv()
    pretrain: Pretrain = Pretrain()
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
            self.agents("env.opponents", "luckynumbers"),
            self.agents("pretrain.agent", "luckynumbers"),
            self.agents("final_eval.opponents", "luckynumbers"),
        ]


SB3Config = PPOConfig | LuckyConfig
"""The configs the SB3 trainer runs."""
