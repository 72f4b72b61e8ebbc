"""Training configuration: one YAML file = one experiment, validated before anything runs.

``load_config("configs/ppo_solo.yaml")`` returns a :class:`TrainConfig`. Every section is a
plain dataclass; an unknown key anywhere, a wrong type or an out-of-range value raises a
``ValueError``/``TypeError`` that names the offending key by its dotted path
(``ppo.learning_rate``), so a typo never silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union

import yaml

from .registry import AGENTS


@dataclass
class EnvConfig:
    interface: Literal["decision", "turn"] = "decision"
    """``turn``: ``NumberDropTurn-v0``, one step per turn over candidate afterstates, scored by the
    candidate policy; ``decision``: ``NumberDrop-v0``, one step per decision, with the CNN policy."""
    auto_forced: bool = True
    """(decision) Apply decisions with a single legal action inside the env (the agent never sees them)."""
    candidates: int = 32
    """(turn) Candidate slots per turn: the best-ranked distinct outcomes are offered."""
    width: int = 12
    """(turn) Tetromino drops the enumerator values exactly (each with every combination)."""
    players: int = 1
    """(turn) 1: solo games; 2..6: one seat of a multiplayer table (``NumberDropTable-v0``)."""
    opponents: list[str] = field(default_factory=lambda: ["greedy"])
    """(players > 1) Registry agents of the other seats, cycled round the table."""


@dataclass
class PPOConfig:
    learning_rate: float = 3e-4
    lr_schedule: Literal["constant", "linear"] = "constant"
    """``linear`` decays the learning rate to 0 over ``total_timesteps``."""
    n_steps: int = 512
    """Rollout length per environment."""
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    normalize_advantage: bool = True
    actor_warmup_steps: int = 0
    """(turn) Train only the value head during the first this many environment steps."""


@dataclass
class NetworkConfig:
    cnn_channels: list[int] = field(default_factory=lambda: [32, 64])
    """(decision) Output channels of the 3x3 convolutions over the (19, 14, 7) grid planes."""
    cnn_hidden: int = 256
    """Width of the linear layer after the flattened convolutions."""
    vector_hidden: list[int] = field(default_factory=lambda: [128])
    """MLP over the concatenated vector observations (dice, shape die, track, board, phase, pending)."""
    pi: list[int] = field(default_factory=lambda: [128])
    vf: list[int] = field(default_factory=lambda: [128])
    activation: Literal["relu", "tanh"] = "relu"
    candidate_hidden: list[int] = field(default_factory=lambda: [64, 64])
    """(turn) MLP embedding each candidate's feature row (shared by all candidates)."""
    state_hidden: list[int] = field(default_factory=lambda: [64])
    """(turn) MLP embedding the state before the turn."""
    scorer_hidden: list[int] = field(default_factory=lambda: [64])
    """(turn) Hidden layers of the residual scorer over (candidate, state) embeddings."""
    value_hidden: list[int] = field(default_factory=lambda: [64])
    """(turn) Hidden layers of the value head."""
    planner_scale: float = 2.0
    """(turn) Initial logit per point of planner value (the residual starts at zero)."""
    torch_threads: int = 1
    """``torch.set_num_threads`` of the training process."""


@dataclass
class EvalConfig:
    every_steps: int = 50_000
    """Evaluate the current policy every this many environment steps (0 disables)."""
    games: int = 100
    seed: int = 10_000
    """Game ``i`` of each evaluation uses seed ``seed + i`` (the same games every time)."""
    greedy_baseline: bool = True
    """Also log the greedy agent's mean on the same seeds (computed once, cached)."""


@dataclass
class CheckpointConfig:
    every_steps: int = 100_000
    """Save ``checkpoints/ppo_<steps>_steps.zip`` every this many environment steps (0 disables)."""


@dataclass
class FinalEvalConfig:
    games: int = 300
    """Games per agent of the closing table (0 skips it)."""
    seed: int = 1_000_000
    agents: list[str] = field(default_factory=lambda: ["ppo", "random", "greedy"])
    workers: int = 0
    """Worker processes of the closing evaluation; 0 means one per CPU."""


@dataclass
class PretrainConfig:
    games: int = 0
    """Games of demonstrations to clone before PPO (0 disables behaviour cloning)."""
    agent: str = "greedy"
    """The scripted agent to clone."""
    seed: int = 2_000_000
    """Demonstration game ``i`` uses seed ``seed + i`` (kept apart from evaluation seeds)."""
    epochs: int = 10
    batch_size: int = 256
    learning_rate: float = 1e-3
    value_coef: float = 0.5
    """Weight of the value head's Huber loss on the demonstrated discounted returns."""
    workers: int = 0
    """Processes that play the demonstrations; 0 means one per CPU."""


@dataclass
class TrainConfig:
    backend: Literal["sb3"] = "sb3"
    """``sb3`` (these configs); ``rllib`` configs are read by ``agents.rllib_config``."""
    experiment: str = "ppo_solo"
    seed: int = 0
    total_timesteps: int = 1_000_000
    n_envs: int = 8
    vec_env: Literal["dummy", "subproc", "native"] = "dummy"
    """How the ``n_envs`` training envs run: ``dummy`` one after the other in this process,
    ``subproc`` one process each, ``native`` (turn interface, solo) all games in one native
    vector env (``numberdrop_env.vector_env``) that enumerates their turns together on every core."""
    output_dir: str | None = None
    """Run directory; default ``runs/<experiment>/``."""
    ship_to: str | None = None
    """Copy the best model here at the end (e.g. ``agents/models/ppo_solo.zip``)."""
    progress_bar: bool = True
    init_from: str | None = None
    """Start from this model's weights (same spaces and network), e.g. ``agents/models/ppo_turn.zip``;
    unlike ``--resume`` the step count starts at 0."""
    env: EnvConfig = field(default_factory=EnvConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)
    final_eval: FinalEvalConfig = field(default_factory=FinalEvalConfig)

    @property
    def run_dir(self) -> Path:
        return Path(self.output_dir) if self.output_dir else Path("runs") / self.experiment

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# ---------------------------------------------------------------- building
def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin is Literal:
        return " | ".join(repr(a) for a in typing.get_args(tp))
    if origin in (Union, types.UnionType):
        return " | ".join(_type_name(a) for a in typing.get_args(tp))
    if origin is list:
        return f"list[{_type_name(typing.get_args(tp)[0])}]"
    return "null" if tp is type(None) else getattr(tp, "__name__", str(tp))


def _convert(value: Any, tp: Any, path: str) -> Any:
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise TypeError(f"config key {path!r} must be a mapping (section {tp.__name__}), got {type(value).__name__}")
        return _build(tp, value, path + ".")
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None:
            if type(None) in args:
                return None
        else:
            for arg in args:
                if arg is type(None):
                    continue
                try:
                    return _convert(value, arg, path)
                except (TypeError, ValueError):
                    pass
        raise TypeError(f"config key {path!r} must be {_type_name(tp)}, got {value!r} ({type(value).__name__})")
    if origin is Literal:
        if value not in typing.get_args(tp):
            raise ValueError(f"config key {path!r} must be one of {_type_name(tp)}, got {value!r}")
        return value
    if origin is list:
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"config key {path!r} must be {_type_name(tp)}, got {value!r} ({type(value).__name__})")
        (item,) = typing.get_args(tp)
        return [_convert(v, item, f"{path}[{i}]") for i, v in enumerate(value)]
    if tp is bool:
        if not isinstance(value, bool):
            raise TypeError(f"config key {path!r} must be a bool, got {value!r} ({type(value).__name__})")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer() and abs(value) >= 1000:
                return int(value)  # YAML reads 1e6 as a float
            raise TypeError(f"config key {path!r} must be an int, got {value!r} ({type(value).__name__})")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"config key {path!r} must be a float, got {value!r} ({type(value).__name__})")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise TypeError(f"config key {path!r} must be a string, got {value!r} ({type(value).__name__})")
        return value
    raise TypeError(f"config key {path!r}: unsupported field type {tp!r}")  # pragma: no cover


def _build(cls: type, data: dict[str, Any], prefix: str = "") -> Any:
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    unknown = [k for k in data if k not in fields]
    if unknown:
        where = f"section {prefix[:-1]!r}" if prefix else "the top level"
        raise ValueError(f"unknown config key(s) {', '.join(repr(prefix + str(k)) for k in unknown)} "
                         f"in {where}; known keys: {', '.join(sorted(fields))}")
    return cls(**{k: _convert(v, hints[k], prefix + k) for k, v in data.items()})


def _check(cfg: TrainConfig) -> None:
    def need(ok: bool, key: str, what: str) -> None:
        if not ok:
            value = cfg
            for part in key.split("."):
                value = getattr(value, part)
            raise ValueError(f"config key {key!r} {what}, got {value!r}")

    need(bool(cfg.experiment) and "/" not in cfg.experiment, "experiment", "must be a non-empty name without '/'")
    need(cfg.seed >= 0, "seed", "must be >= 0")
    need(cfg.total_timesteps > 0, "total_timesteps", "must be > 0")
    need(cfg.n_envs >= 1, "n_envs", "must be >= 1")
    p = cfg.ppo
    need(p.learning_rate > 0, "ppo.learning_rate", "must be > 0")
    need(p.n_steps >= 1, "ppo.n_steps", "must be >= 1")
    need(1 <= p.batch_size <= p.n_steps * cfg.n_envs, "ppo.batch_size", "must be between 1 and n_steps * n_envs")
    need(p.n_epochs >= 1, "ppo.n_epochs", "must be >= 1")
    need(0 < p.gamma <= 1, "ppo.gamma", "must be in (0, 1]")
    need(0 <= p.gae_lambda <= 1, "ppo.gae_lambda", "must be in [0, 1]")
    need(p.clip_range > 0, "ppo.clip_range", "must be > 0")
    need(p.ent_coef >= 0, "ppo.ent_coef", "must be >= 0")
    need(p.vf_coef >= 0, "ppo.vf_coef", "must be >= 0")
    need(p.max_grad_norm > 0, "ppo.max_grad_norm", "must be > 0")
    need(p.target_kl is None or p.target_kl > 0, "ppo.target_kl", "must be > 0 or null")
    n = cfg.network
    need(len(n.cnn_channels) >= 1 and all(c >= 1 for c in n.cnn_channels), "network.cnn_channels",
         "must list one or more positive channel counts")
    need(n.cnn_hidden >= 1, "network.cnn_hidden", "must be >= 1")
    for key in ("vector_hidden", "pi", "vf"):
        need(all(h >= 1 for h in getattr(n, key)), f"network.{key}", "must list positive layer widths")
    need(n.torch_threads >= 1, "network.torch_threads", "must be >= 1")
    for key in ("candidate_hidden", "state_hidden"):
        need(len(getattr(n, key)) >= 1 and all(h >= 1 for h in getattr(n, key)), f"network.{key}",
             "must list one or more positive layer widths")
    need(n.planner_scale > 0, "network.planner_scale", "must be > 0")
    need(cfg.env.candidates >= 1, "env.candidates", "must be >= 1")
    need(cfg.env.width >= 1, "env.width", "must be >= 1")
    need(cfg.init_from is None or Path(cfg.init_from).is_file(), "init_from", "must name an existing model .zip")
    need(1 <= cfg.env.players <= 6, "env.players", "must be 1..6")
    need(cfg.env.players == 1 or cfg.env.interface == "turn", "env.players", "needs env.interface 'turn'")
    need(cfg.vec_env != "native" or (cfg.env.interface == "turn" and cfg.env.players == 1), "vec_env",
         "'native' needs env.interface 'turn' and env.players 1")
    need(bool(cfg.env.opponents) and all(a in AGENTS for a in cfg.env.opponents), "env.opponents",
         f"must list agents among {sorted(AGENTS)}")
    need(p.actor_warmup_steps >= 0, "ppo.actor_warmup_steps", "must be >= 0")
    need(cfg.env.interface == "decision" or cfg.pretrain.games == 0, "pretrain.games",
         "must be 0 with env.interface 'turn' (the candidate policy starts from the planner instead)")
    need(cfg.eval.every_steps >= 0, "eval.every_steps", "must be >= 0")
    need(cfg.eval.games >= 1, "eval.games", "must be >= 1")
    need(cfg.eval.seed >= 0, "eval.seed", "must be >= 0")
    need(cfg.checkpoint.every_steps >= 0, "checkpoint.every_steps", "must be >= 0")
    b = cfg.pretrain
    need(b.games >= 0, "pretrain.games", "must be >= 0")
    need(b.seed >= 0, "pretrain.seed", "must be >= 0")
    need(b.epochs >= 1, "pretrain.epochs", "must be >= 1")
    need(b.batch_size >= 1, "pretrain.batch_size", "must be >= 1")
    need(b.learning_rate > 0, "pretrain.learning_rate", "must be > 0")
    need(b.value_coef >= 0, "pretrain.value_coef", "must be >= 0")
    need(b.workers >= 0, "pretrain.workers", "must be >= 0")
    f = cfg.final_eval
    need(f.games >= 0, "final_eval.games", "must be >= 0")
    need(f.seed >= 0, "final_eval.seed", "must be >= 0")
    need(f.workers >= 0, "final_eval.workers", "must be >= 0")

    need(b.agent in AGENTS and b.agent != "ppo", "pretrain.agent", f"must be a scripted agent among {sorted(AGENTS)}")
    need(len(f.agents) == len(set(f.agents)) and "ppo" in f.agents and set(f.agents) <= set(AGENTS),
         "final_eval.agents", f"must be distinct agents among {sorted(AGENTS)}, including 'ppo'")


def config_from_dict(data: dict[str, Any] | None) -> TrainConfig:
    """Validate a plain mapping (e.g. parsed YAML) into a :class:`TrainConfig`."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise TypeError(f"a config must be a mapping at the top level, got {type(data).__name__}")
    cfg = _build(TrainConfig, data)
    _check(cfg)
    return cfg


def load_config(path: str | Path) -> TrainConfig:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"config file {str(path)!r} not found")
    with path.open() as fh:
        data = yaml.safe_load(fh)
    try:
        return config_from_dict(data)
    except (TypeError, ValueError) as err:
        raise type(err)(f"{path}: {err}") from None
