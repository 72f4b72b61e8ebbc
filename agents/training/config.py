"""Training configuration: one YAML file = one experiment, validated before anything runs.

One schema for every run: ``game:`` (``numberdrop``, the default, or ``luckynumbers``),
``backend:`` (``sb3``, the default, or ``rllib``: Number Drop on Ray) and ``algorithm:``
(``ppo``, the default; ``expert_iteration``: Number Drop's turn-level network trained on
its own search's choices, section ``expert``; ``rerank``: a re-ranker of a value network's best
candidates, section ``rerank``) choose what trains, and the sections are the
same for all of them. A key that does not apply to the chosen game and
backend is refused (:data:`KEYS`), and the few defaults that differ are in :data:`DEFAULTS`.

``load_config("configs/ppo_turn.yaml")`` returns a :class:`TrainConfig`. Every section is a
plain dataclass; an unknown key anywhere, a wrong type or an out-of-range value raises a
``ValueError``/``TypeError`` that names the offending key by its dotted path
(``ppo.learning_rate``), so a typo never silently falls back to a default.
"""

from __future__ import annotations

import copy
import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union

import yaml

from ..registry import AGENTS, LUCKY_AGENTS, require_extra


@dataclass
class EnvConfig:
    interface: Literal["decision", "turn"] = "decision"
    """(Number Drop) ``turn``: ``NumberDropTurn-v0``, one step per turn over candidate afterstates, scored
    by the candidate policy; ``decision``: ``NumberDrop-v0``, one step per decision, with the CNN policy."""
    auto_forced: bool = True
    """(decision) Apply decisions with a single legal action inside the env (the agent never sees them)."""
    candidates: int = 32
    """(turn) Candidate slots per turn: the best-ranked distinct outcomes are offered."""
    width: int = 12
    """(turn) Tetromino drops the enumerator values exactly (each with every combination)."""
    afterstates: bool = False
    """(turn, solo) Also observe the grid each candidate leaves; the candidate network reads it
    with a small convolution shared by the candidates."""
    players: int = 1
    """Number Drop: 1 solo games, 2..6 one seat of a table (``NumberDropTable-v0``, turn interface);
    Lucky Numbers: 2..4 (``LuckyNumbers-v0``, default 4)."""
    opponents: list[str] = field(default_factory=lambda: ["greedy"])
    """(players > 1) Registry agents of the other seats, cycled round the table."""
    setup: Literal["standard", "michael"] = "standard"
    """(Lucky Numbers) the diagonal dealt ascending, or Michael's variant."""
    bruno: bool = False
    """(Lucky Numbers) Bruno's variant."""
    shaping: float = 0.0
    """(Lucky Numbers) Reward per cell the learner fills (potential-based; 0 = the tournament score alone)."""


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
    """(decision) Width of the linear layer after the flattened convolutions."""
    vector_hidden: list[int] = field(default_factory=lambda: [128])
    """(decision) MLP over the concatenated vector observations (dice, shape die, track, board, phase, pending)."""
    pi: list[int] = field(default_factory=lambda: [128])
    """(decision, Lucky Numbers) Hidden layers of the policy MLP."""
    vf: list[int] = field(default_factory=lambda: [128])
    """(decision, Lucky Numbers) Hidden layers of the value MLP."""
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
    grid_channels: list[int] = field(default_factory=lambda: [16, 16])
    """(turn, ``env.afterstates``) Output channels of the 3x3 convolutions over each candidate's grid."""
    torch_threads: int = 1
    """``torch.set_num_threads`` of the training process."""


@dataclass
class EvalConfig:
    every_steps: int = 50_000
    """Evaluate the current policy every this many environment steps (0 disables); the best
    evaluation is kept as ``best_model.zip`` (Lucky Numbers: the win rate, the mean score breaking ties)."""
    games: int = 100
    seed: int = 10_000
    """Game ``i`` of each evaluation uses seed ``seed + i`` (the same games every time)."""
    greedy_baseline: bool = True
    """(Number Drop) Also log the greedy agent's mean on the same seeds (computed once, cached)."""


@dataclass
class CheckpointConfig:
    every_steps: int = 100_000
    """Save ``checkpoints/ppo_<steps>_steps.zip`` every this many environment steps (0 disables)."""


@dataclass
class FinalEvalConfig:
    games: int = 300
    """Games per agent of the closing table (Lucky Numbers: seeds of each table; 0 skips it)."""
    seed: int = 1_000_000
    agents: list[str] = field(default_factory=lambda: ["ppo", "random", "greedy"])
    """(Number Drop, solo) Registry agents of the closing table; ``ppo`` (``rllib`` on Ray) is the trained model."""
    opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])
    """(Lucky Numbers) One closing table per name: the model in one seat, that agent in the others."""
    workers: int = 0
    """Worker processes of the closing evaluation; 0 means one per CPU."""
    lookahead: int = 0
    """(Number Drop, solo) Also play the trained network with its look-ahead over its this many
    most likely candidates (the ``ppo`` agent's ``lookahead``; 0: not)."""
    samples: int = 4
    """(lookahead) Sampled next rolls per candidate."""
    refine: int = 3
    """(lookahead) The best candidates valued again on new rolls (0: not)."""


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
    """Weight of the value head's Huber loss on the demonstrated returns."""
    workers: int = 0
    """Processes that play the demonstrations; 0 means one per CPU."""


@dataclass
class ExpertConfig:
    targets: Literal["search", "q"] = "search"
    """``search``: the best network plays with Gumbel search at every turn and the newest learns
    the search's improved policy (expert iteration). ``q``: afterstate Q-iteration: the newest
    network plays alone (``epsilon``-greedy over its logits, ``envs`` games at once in the native
    vector env) and the newest fits each played candidate's logit over ``network.planner_scale``
    (its value in points) to the λ-return: the turn's points, then ``1 - td_lambda`` of the
    network's best value of the next turn and ``td_lambda`` of the next λ-return. The value head
    fits the same targets, so the look-ahead's critic learns with it."""
    generations: int = 10
    """Generations of self-play, training and the paired gate."""
    games: int = 400
    """Self-play games per generation."""
    seed: int = 4_000_000
    """Self-play game ``i`` of generation ``g`` uses seed ``seed + g * games + i``."""
    lookahead: int = 8
    """Candidates the search samples (Gumbel top-k) and halves down to one."""
    samples: int = 4
    """Sampled next rolls per candidate and round of halving."""
    c_visit: float = 50.0
    """``sigma``: values added to the logits scale by ``(c_visit + rounds) * c_scale``."""
    c_scale: float = 0.1
    value_target: Literal["return", "nstep"] = "return"
    """``return``: the points the game still scored; ``nstep``: ``nstep`` turns of points plus
    the critic's value of the position after them."""
    nstep: int = 4
    window: int = 4
    """Generations of self-play data the network trains on (the newest)."""
    epochs: int = 2
    batch_size: int = 256
    learning_rate: float = 1.0e-4
    value_coef: float = 0.5
    """Weight of the value head's Huber loss."""
    gate_games: int = 300
    """Paired games of the gate: the new network alone against the best on the same seeds."""
    gate_seed: int = 3_000_000
    workers: int = 0
    """(search) Self-play processes; (q) above 1, the gate plays in a second process beside the
    next generation's self-play (the same data). 0 means one per CPU."""
    epsilon: float = 0.05
    """(q) Share of self-play turns that play a uniformly drawn candidate instead of the best."""
    td_lambda: float = 0.7
    """(q) How far the targets look along the game's own turns before trusting the network's values."""
    envs: int = 32
    """(q) Self-play games at once in the native vector env (it plans their turns on every core)."""
    slots: int | None = None
    """(q) Candidates the network chooses among in self-play, the gate and the closing table (null:
    its own number of slots). It learns on its own slots and the candidate it played; each
    generation's model is saved with this number, which the ``ppo`` agent then offers it."""


@dataclass
class RerankConfig:
    generations: int = 1
    """Generations of recording, fitting and the paired gate."""
    games: int = 1000
    """Games recorded per generation, played by ``init_from`` (with the best re-ranker so far
    after the first generation)."""
    seed: int = 900_000
    """Game ``i`` of generation ``g`` uses seed ``seed + g * games + i``."""
    top: int = 16
    """The network's best candidates the re-ranker weighs at each turn."""
    samples: int = 16
    """Sampled next rolls of the look-ahead that values them (its targets)."""
    window: int = 2
    """Generations of recordings the fit reads (the newest)."""
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    epochs: int = 3
    batch_size: int = 256
    """Turns per gradient step."""
    learning_rate: float = 1.0e-3
    holdout: float = 0.1
    """Share of a generation's recorded games held out of the fit, to measure it."""
    gate_games: int = 1000
    """Paired games of the gate: the network with the new re-ranker against the best so far."""
    gate_seed: int = 3_000_000
    workers: int = 0
    """Processes that record and play the gate; 0 means one per CPU."""


@dataclass
class RayConfig:
    address: str | None = None
    """Cluster to join (``auto``, ``HOST:6379``, ``ray://HOST:10001``); null: ``RAY_ADDRESS`` if set,
    else a local Ray started for the run and stopped after it."""
    num_cpus: int | None = None
    """(local Ray) CPUs Ray may use; null: all of this machine's."""
    env_runners: int = 1
    """Remote env runners (actors that step ``n_envs`` environments each); 0 samples in the driver."""
    cpus_per_env_runner: int = 1
    learners: int = 0
    """Remote learner actors (data-parallel PPO updates); 0 updates in the driver process."""
    cpus_per_learner: int = 1
    """(learners > 0) CPUs per learner actor."""
    sample_timeout_s: float = 600.0
    """An env runner that returns no samples for this long fails the iteration."""


@dataclass
class TrainConfig:
    game: Literal["numberdrop", "luckynumbers"] = "numberdrop"
    backend: Literal["sb3", "rllib"] = "sb3"
    """``sb3``: MaskablePPO (Stable-Baselines3); ``rllib``: PPO on Ray (Number Drop, solo), where
    ``n_envs`` counts the environments of each env runner and ``ray`` says where the run happens."""
    algorithm: Literal["ppo", "expert_iteration", "rerank"] = "ppo"
    """``expert_iteration`` (Number Drop, ``backend: sb3``): generations of search-guided
    self-play that the network of ``init_from`` learns from (section ``expert``). ``rerank``: a
    re-ranker of the best candidates of the value network ``init_from``, fitted to its
    look-ahead's values (section ``rerank``)."""
    experiment: str = "ppo_solo"
    seed: int = 0
    total_timesteps: int = 1_000_000
    """Environment steps of PPO; 0 with ``pretrain.games`` > 0: behaviour cloning alone."""
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
    ray: RayConfig = field(default_factory=RayConfig)
    expert: ExpertConfig = field(default_factory=ExpertConfig)
    rerank: RerankConfig = field(default_factory=RerankConfig)

    @property
    def trainer(self) -> str:
        """What trains: ``sb3``, ``rllib``, ``expert`` or ``rerank`` (the keys of :data:`KEYS`)."""
        return trainer_of(self.backend, self.algorithm)

    @property
    def run_dir(self) -> Path:
        return Path(self.output_dir) if self.output_dir else Path("runs") / self.experiment

    @property
    def train_batch_size(self) -> int:
        """(rllib) Environment steps per PPO iteration, over all env runners."""
        return self.ppo.n_steps * self.n_envs * max(1, self.ray.env_runners)

    def model_config(self) -> dict[str, Any]:
        """(rllib) What the RL module is built from: the interface, its environment settings and the network."""
        e = self.env
        return {
            "interface": e.interface,
            "auto_forced": e.auto_forced,
            "candidates": e.candidates,
            "width": e.width,
            **dataclasses.asdict(self.network),
        }

    def to_dict(self) -> dict[str, Any]:
        """The keys that apply to this game and backend (the run's ``config.yaml``)."""
        full, keys = dataclasses.asdict(self), KEYS[self.game, self.trainer]
        return {k: ({s: v[s] for s in keys[k]} if isinstance(v, dict) else v) for k, v in full.items() if k in keys}


_SECTIONS = {
    "env": EnvConfig,
    "pretrain": PretrainConfig,
    "ppo": PPOConfig,
    "network": NetworkConfig,
    "eval": EvalConfig,
    "checkpoint": CheckpointConfig,
    "final_eval": FinalEvalConfig,
    "ray": RayConfig,
    "expert": ExpertConfig,
    "rerank": RerankConfig,
}
_ALL = {name: {f.name for f in dataclasses.fields(cls)} for name, cls in _SECTIONS.items()}
_ND_ENV = {"interface", "auto_forced", "candidates", "width", "afterstates", "players", "opponents"}
_ND_NET = _ALL["network"]
_LUCKY_NET = {"pi", "vf", "activation", "torch_threads"}


def _keys(top: set[str], **sections: set[str]) -> dict[str, set[str] | None]:
    return {**{k: None for k in top}, **sections}


_TOP = {"game", "backend", "experiment", "seed", "total_timesteps", "n_envs", "output_dir", "progress_bar"}
KEYS: dict[tuple[str, str], dict[str, set[str] | None]] = {
    ("numberdrop", "sb3"): _keys(
        _TOP | {"vec_env", "ship_to", "init_from"},
        env=_ND_ENV,
        pretrain=_ALL["pretrain"],
        ppo=_ALL["ppo"],
        network=_ND_NET,
        eval=_ALL["eval"],
        checkpoint=_ALL["checkpoint"],
        final_eval={"games", "seed", "agents", "workers", "lookahead", "samples", "refine"},
    ),
    ("numberdrop", "rllib"): _keys(
        _TOP,
        env=_ND_ENV,
        ppo=_ALL["ppo"],
        network=_ND_NET,
        eval=_ALL["eval"],
        checkpoint=_ALL["checkpoint"],
        final_eval={"games", "seed", "agents", "workers"},
        ray=_ALL["ray"],
    ),
    ("numberdrop", "expert"): _keys(
        {"game", "backend", "algorithm", "experiment", "seed", "output_dir", "progress_bar", "ship_to", "init_from"},
        env={"afterstates"},
        network=_ND_NET,
        expert=_ALL["expert"],
        final_eval={"games", "seed", "agents", "workers", "lookahead", "samples", "refine"},
    ),
    ("numberdrop", "rerank"): _keys(
        {"game", "backend", "algorithm", "experiment", "seed", "output_dir", "progress_bar", "ship_to", "init_from"},
        rerank=_ALL["rerank"],
        final_eval={"games", "seed", "agents", "workers"},
    ),
    ("luckynumbers", "sb3"): _keys(
        _TOP | {"vec_env", "ship_to"},
        env={"players", "opponents", "setup", "bruno", "shaping"},
        pretrain=_ALL["pretrain"] - {"workers"},
        ppo=_ALL["ppo"],
        network=_LUCKY_NET,
        eval={"every_steps", "games", "seed"},
        checkpoint=_ALL["checkpoint"],
        final_eval={"games", "seed", "opponents", "workers"},
    ),
}
"""The keys each game and trainer (:attr:`TrainConfig.trainer`) reads, per section (None: a top-level key)."""

DEFAULTS: dict[tuple[str, str], dict[str, Any]] = {
    ("numberdrop", "sb3"): {},
    ("numberdrop", "rllib"): {"experiment": "rllib_ppo", "final_eval": {"agents": ["rllib", "random", "greedy"]}},
    ("numberdrop", "expert"): {
        "experiment": "expert_iteration",
        "init_from": "agents/models/ppo_turn.zip",
        "env": {"interface": "turn"},
    },
    ("numberdrop", "rerank"): {
        "experiment": "q_rerank",
        "init_from": "agents/models/q_turn.zip",
        "env": {"interface": "turn"},
    },
    ("luckynumbers", "sb3"): {
        "experiment": "lucky_ppo",
        "total_timesteps": 300_000,
        "env": {"players": 4},
        "network": {"pi": [256, 256], "vf": [256, 256]},
        "final_eval": {"games": 250},
    },
}
"""The defaults that differ from the dataclasses' for a game and backend."""


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
            raise TypeError(
                f"config key {path!r} must be a mapping (section {tp.__name__}), got {type(value).__name__}"
            )
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
        raise ValueError(
            f"unknown config key(s) {', '.join(repr(prefix + str(k)) for k in unknown)} "
            f"in {where}; known keys: {', '.join(sorted(fields))}"
        )
    return cls(**{k: _convert(v, hints[k], prefix + k) for k, v in data.items()})


def _merge(defaults: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(defaults)
    for key, value in data.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def trainer_of(backend: str, algorithm: str) -> str:
    """What trains a config: ``expert`` for expert iteration, ``rerank`` for a re-ranker, else the
    backend (``sb3``, ``rllib``)."""
    return {"expert_iteration": "expert", "rerank": "rerank"}.get(algorithm, backend)


def _check_keys(data: dict[str, Any], game: str, backend: str, algorithm: str) -> None:
    """Refuse a key that the game, backend and algorithm do not read (it would be silently ignored)."""
    if algorithm != "ppo" and (game, backend) != ("numberdrop", "sb3"):
        raise ValueError(
            f"config key 'algorithm': {algorithm!r} trains Number Drop with backend 'sb3', "
            f"got game {game!r} and backend {backend!r}"
        )
    keys = KEYS.get((game, trainer_of(backend, algorithm)))
    if keys is None:
        raise ValueError(f"config key 'backend' must be 'sb3' with game {game!r}, got {backend!r}")
    which = f"game {game!r} with backend {backend!r}" + (f" and algorithm {algorithm!r}" if algorithm != "ppo" else "")
    for key, value in data.items():
        if key in _ALL or key in _TOP or key in {f.name for f in dataclasses.fields(TrainConfig)}:
            if key not in keys:
                raise ValueError(f"config key {key!r} does not apply to {which}; its keys: {', '.join(sorted(keys))}")
            if keys[key] is not None and isinstance(value, dict):
                extra = [k for k in value if k not in keys[key] and k in _ALL[key]]
                if extra:
                    raise ValueError(
                        f"config key(s) {', '.join(repr(f'{key}.{k}') for k in extra)} do not apply "
                        f"to {which}; section {key!r} keys: {', '.join(sorted(keys[key]))}"
                    )


def _check(cfg: TrainConfig) -> None:
    def need(ok: bool, key: str, what: str) -> None:
        if not ok:
            value = cfg
            for part in key.split("."):
                value = getattr(value, part)
            raise ValueError(f"config key {key!r} {what}, got {value!r}")

    lucky, rllib = cfg.game == "luckynumbers", cfg.backend == "rllib"
    agents = LUCKY_AGENTS if lucky else AGENTS
    scripted = sorted(set(agents) - {"ppo", "rllib"})
    need(bool(cfg.experiment) and "/" not in cfg.experiment, "experiment", "must be a non-empty name without '/'")
    need(cfg.seed >= 0, "seed", "must be >= 0")
    need(
        cfg.total_timesteps > 0 or (cfg.total_timesteps == 0 and cfg.pretrain.games > 0),
        "total_timesteps",
        "must be > 0 (or 0 with pretrain.games > 0: behaviour cloning alone)",
    )
    need(cfg.n_envs >= 1, "n_envs", "must be >= 1")
    p = cfg.ppo
    need(p.learning_rate > 0, "ppo.learning_rate", "must be > 0")
    need(p.n_steps >= 1, "ppo.n_steps", "must be >= 1")
    if not rllib:
        need(1 <= p.batch_size <= p.n_steps * cfg.n_envs, "ppo.batch_size", "must be between 1 and n_steps * n_envs")
    need(p.n_epochs >= 1, "ppo.n_epochs", "must be >= 1")
    need(0 < p.gamma <= 1, "ppo.gamma", "must be in (0, 1]")
    need(0 <= p.gae_lambda <= 1, "ppo.gae_lambda", "must be in [0, 1]")
    need(p.clip_range > 0, "ppo.clip_range", "must be > 0")
    need(p.ent_coef >= 0, "ppo.ent_coef", "must be >= 0")
    need(p.vf_coef >= 0, "ppo.vf_coef", "must be >= 0")
    need(p.max_grad_norm > 0, "ppo.max_grad_norm", "must be > 0")
    need(p.target_kl is None or p.target_kl > 0, "ppo.target_kl", "must be > 0 or null")
    need(p.actor_warmup_steps >= 0, "ppo.actor_warmup_steps", "must be >= 0")
    n = cfg.network
    need(
        len(n.cnn_channels) >= 1 and all(c >= 1 for c in n.cnn_channels),
        "network.cnn_channels",
        "must list one or more positive channel counts",
    )
    need(n.cnn_hidden >= 1, "network.cnn_hidden", "must be >= 1")
    for key in ("vector_hidden", "pi", "vf"):
        need(all(h >= 1 for h in getattr(n, key)), f"network.{key}", "must list positive layer widths")
    need(n.torch_threads >= 1, "network.torch_threads", "must be >= 1")
    for key in ("candidate_hidden", "state_hidden"):
        need(
            len(getattr(n, key)) >= 1 and all(h >= 1 for h in getattr(n, key)),
            f"network.{key}",
            "must list one or more positive layer widths",
        )
    need(n.planner_scale > 0, "network.planner_scale", "must be > 0")
    need(
        len(n.grid_channels) >= 1 and all(c >= 1 for c in n.grid_channels),
        "network.grid_channels",
        "must list one or more positive channel counts",
    )
    e = cfg.env
    need(e.candidates >= 1, "env.candidates", "must be >= 1")
    need(e.width >= 1, "env.width", "must be >= 1")
    need(
        not e.afterstates or (e.interface == "turn" and e.players == 1 and not rllib),
        "env.afterstates",
        "needs env.interface 'turn', env.players 1 and backend 'sb3'",
    )
    need(e.shaping >= 0, "env.shaping", "must be >= 0")
    need(cfg.init_from is None or Path(cfg.init_from).is_file(), "init_from", "must name an existing model .zip")
    if lucky:
        need(2 <= e.players <= 4, "env.players", "must be 2..4")
        need(p.actor_warmup_steps == 0, "ppo.actor_warmup_steps", "is a Number Drop turn-level setting; leave it 0")
    else:
        need(1 <= e.players <= 6, "env.players", "must be 1..6")
        need(e.players == 1 or e.interface == "turn", "env.players", "needs env.interface 'turn'")
        need(
            cfg.vec_env != "native" or (e.interface == "turn" and e.players == 1),
            "vec_env",
            "'native' needs env.interface 'turn' and env.players 1",
        )
        need(
            e.interface == "decision" or cfg.pretrain.games == 0,
            "pretrain.games",
            "must be 0 with env.interface 'turn' (the candidate policy starts from the planner instead)",
        )
    need(
        bool(e.opponents) and all(a in scripted for a in e.opponents),
        "env.opponents",
        f"must list scripted agents among {scripted}",
    )
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
    need(b.agent in scripted, "pretrain.agent", f"must be a scripted agent among {scripted}")
    f = cfg.final_eval
    need(f.games >= 0, "final_eval.games", "must be >= 0")
    need(f.seed >= 0, "final_eval.seed", "must be >= 0")
    need(f.workers >= 0, "final_eval.workers", "must be >= 0")
    need(f.lookahead == 0 or f.lookahead >= 2, "final_eval.lookahead", "must be 0 (off) or >= 2")
    need(f.samples >= 1, "final_eval.samples", "must be >= 1")
    need(f.refine == 0 or f.refine >= 2, "final_eval.refine", "must be 0 (off) or >= 2")
    need(
        f.lookahead == 0
        or ((cfg.env.interface == "turn" or cfg.algorithm == "expert_iteration") and cfg.env.players == 1),
        "final_eval.lookahead",
        "needs a turn-level model of solo games (env.interface 'turn', env.players 1)",
    )
    need(all(a in scripted for a in f.opponents), "final_eval.opponents", f"must list scripted agents among {scripted}")
    model = "rllib" if rllib else "ppo"
    need(
        len(f.agents) == len(set(f.agents)) and model in f.agents and set(f.agents) <= set(AGENTS),
        "final_eval.agents",
        f"must be distinct agents among {sorted(AGENTS)}, including {model!r}",
    )
    if rllib:
        _check_rllib(cfg, need)
    if cfg.algorithm == "expert_iteration":
        _check_expert(cfg, need)
    if cfg.algorithm == "rerank":
        _check_rerank(cfg, need)


def _check_expert(cfg: TrainConfig, need: Any) -> None:
    x = cfg.expert
    need(
        cfg.init_from is not None or x.targets == "q",
        "init_from",
        "must name the turn-level model (.zip) that expert iteration improves (null: a new network, with targets 'q')",
    )
    for key in (
        "generations",
        "games",
        "lookahead",
        "samples",
        "nstep",
        "window",
        "epochs",
        "batch_size",
        "gate_games",
    ):
        need(getattr(x, key) >= 1, f"expert.{key}", "must be >= 1")
    for key in ("seed", "gate_seed", "workers"):
        need(getattr(x, key) >= 0, f"expert.{key}", "must be >= 0")
    for key in ("c_visit", "c_scale", "value_coef"):
        need(getattr(x, key) >= 0, f"expert.{key}", "must be >= 0")
    need(x.learning_rate > 0, "expert.learning_rate", "must be > 0")
    need(0 <= x.epsilon <= 1, "expert.epsilon", "must lie in [0, 1]")
    need(0 <= x.td_lambda <= 1, "expert.td_lambda", "must lie in [0, 1]")
    need(x.envs >= 1, "expert.envs", "must be >= 1")
    need(
        x.slots is None or (x.slots >= 1 and x.targets == "q"), "expert.slots", "must be null or >= 1, with targets 'q'"
    )
    need(
        not cfg.env.afterstates or (x.targets == "q" and cfg.init_from is None),
        "env.afterstates",
        "builds a new network that reads the candidates' grids: it needs targets 'q' and init_from null",
    )


def _check_rerank(cfg: TrainConfig, need: Any) -> None:
    x = cfg.rerank
    need(cfg.init_from is not None, "init_from", "must name the value network (.zip) whose candidates are re-ranked")
    for key in ("generations", "games", "samples", "window", "epochs", "batch_size", "gate_games"):
        need(getattr(x, key) >= 1, f"rerank.{key}", "must be >= 1")
    for key in ("seed", "gate_seed", "workers"):
        need(getattr(x, key) >= 0, f"rerank.{key}", "must be >= 0")
    need(x.top >= 2, "rerank.top", "must be >= 2")
    need(bool(x.hidden) and min(x.hidden) >= 1, "rerank.hidden", "must list one or more positive sizes")
    need(x.learning_rate > 0, "rerank.learning_rate", "must be > 0")
    need(0 <= x.holdout < 1, "rerank.holdout", "must lie in [0, 1)")


def _check_rllib(cfg: TrainConfig, need: Any) -> None:
    need(cfg.env.players == 1, "env.players", "must be 1 with backend 'rllib' (solo games)")
    need(cfg.ppo.target_kl is None, "ppo.target_kl", "must be null with backend 'rllib' (RLlib has no early stop)")
    need(
        cfg.ppo.normalize_advantage,
        "ppo.normalize_advantage",
        "must be true with backend 'rllib' (RLlib always standardises advantages)",
    )
    r = cfg.ray
    need(r.address is None or bool(r.address.strip()), "ray.address", "must be a non-empty address or null")
    need(r.num_cpus is None or r.num_cpus >= 1, "ray.num_cpus", "must be >= 1 or null")
    need(r.env_runners >= 0, "ray.env_runners", "must be >= 0")
    need(r.cpus_per_env_runner >= 1, "ray.cpus_per_env_runner", "must be >= 1")
    need(r.learners >= 0, "ray.learners", "must be >= 0")
    need(r.cpus_per_learner >= 1, "ray.cpus_per_learner", "must be >= 1")
    need(r.sample_timeout_s > 0, "ray.sample_timeout_s", "must be > 0")
    need(
        1 <= cfg.ppo.batch_size * max(1, r.learners) <= cfg.train_batch_size,
        "ppo.batch_size",
        "must be at most n_steps * n_envs * max(1, ray.env_runners) / max(1, ray.learners)",
    )


def config_from_dict(data: dict[str, Any] | None) -> TrainConfig:
    """Validate a plain mapping (e.g. parsed YAML) into a :class:`TrainConfig`."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise TypeError(f"a config must be a mapping at the top level, got {type(data).__name__}")
    game, backend, algorithm = data.get("game", "numberdrop"), data.get("backend", "sb3"), data.get("algorithm", "ppo")
    if game not in ("numberdrop", "luckynumbers"):
        raise ValueError(f"config key 'game' must be one of 'numberdrop' | 'luckynumbers', got {game!r}")
    if backend not in ("sb3", "rllib"):
        raise ValueError(f"config key 'backend' must be one of 'sb3' | 'rllib', got {backend!r}")
    if algorithm not in ("ppo", "expert_iteration", "rerank"):
        raise ValueError(
            f"config key 'algorithm' must be one of 'ppo' | 'expert_iteration' | 'rerank', got {algorithm!r}"
        )
    _check_keys(data, game, backend, algorithm)
    cfg = _build(TrainConfig, _merge(DEFAULTS[game, trainer_of(backend, algorithm)], data))
    _check(cfg)
    return cfg


def load_config(path: str | Path) -> TrainConfig:
    """The validated config of a YAML file (``FileNotFoundError`` when there is none)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"config file {str(path)!r} not found")
    with path.open() as fh:
        data = yaml.safe_load(fh)
    try:
        cfg = config_from_dict(data)
    except (TypeError, ValueError) as err:
        raise type(err)(f"{path}: {err}") from None
    if cfg.backend == "rllib":
        try:
            require_extra("rllib", "backend 'rllib'")
        except ImportError as err:
            raise ValueError(str(err)) from None
    return cfg


# the names of the previous release, where each trainer had its own schema
LuckyTrainConfig = RLlibTrainConfig = TrainConfig
load_lucky_config = load_rllib_config = load_config
rllib_config_from_dict = config_from_dict


def is_lucky_config(path: str | Path) -> bool:
    """Whether a YAML config trains Lucky Numbers (top-level ``game: luckynumbers``)."""
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and data.get("game") == "luckynumbers"
