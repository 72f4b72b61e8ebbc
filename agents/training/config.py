"""Training configuration, one YAML file an experiment: the shared sections and the loader
(each trainer's schema is beside it, ``SCHEMAS``). A bad key, type or value is refused by its
dotted path before anything runs; reading a config imports neither torch nor the planner."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import yaml
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from ..registry import agents_of, load, require_extra


def _whole(value: Any) -> Any:
    """YAML reads ``1.0e6`` as a float: a whole one of 1000 or more counts as an int."""
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) >= 1000 else value


def rule(test: Callable[[Any], Any], what: str) -> AfterValidator:
    """A check of one value: ``what`` it must be when ``test`` fails."""

    def check(value: Any) -> Any:
        if not test(value):
            raise ValueError(what)
        return value

    return AfterValidator(check)


Int = Annotated[int, BeforeValidator(_whole)]
Name = Annotated[str, rule(lambda v: v and "/" not in v, "must be a non-empty name without '/'")]
Count = Annotated[Int, Field(ge=0)]
Positive = Annotated[Int, Field(ge=1)]
OffOrTwo = Annotated[Count, rule(lambda v: v != 1, "must be 0 (off) or >= 2")]
Rate = Annotated[float, Field(gt=0)]
Weight = Annotated[float, Field(ge=0)]
Share = Annotated[float, Field(ge=0, le=1)]
Widths = Annotated[list[Positive], Field(min_length=1)]
"""One or more positive layer widths or channel counts."""


class Section(BaseModel):
    """A part of a config: unknown keys and loose types are refused."""

    model_config = ConfigDict(extra="forbid", strict=True, use_attribute_docstrings=True)


class Env(Section):
    """Number Drop's training environment (the PPO trainers)."""

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


class FinalEval(Section):
    """The closing table of solo Number Drop (a table run seats the model among ``env.opponents``)."""

    games: Count = 300
    """Games per agent (0 skips it)."""
    seed: Count = 1_000_000
    agents: list[str] = ["ppo", "random", "greedy"]
    """Registry agents; the trained model plays as its trainer's agent (``ppo``, ``rllib``, ``q``, ``ntuple``)."""
    workers: Count = 0
    """Worker processes; 0 means one per CPU."""


class LookaheadFinalEval(FinalEval):
    lookahead: OffOrTwo = 0
    """Also play the network with its look-ahead over this many likeliest candidates (0: not)."""
    samples: Positive = 4
    """(lookahead) Sampled next rolls per candidate."""
    refine: OffOrTwo = 3
    """(lookahead) The best candidates valued again on new rolls (0: not)."""


class RayCluster(Section):
    address: Annotated[str, rule(str.strip, "must be a non-empty address or null")] | None = None
    """Cluster to join (``auto``, ``HOST:6379``, ``ray://HOST:10001``); null: ``RAY_ADDRESS``, else a local Ray."""
    num_cpus: Positive | None = None
    """(local Ray) CPUs Ray may use; null: all of this machine's."""


Rule = tuple[bool, str, str]
"""A check of a config: whether it holds, the key it refuses and what that key must be."""


class TrainConfig(Section):
    """What every trainer reads; each trainer's schema adds its own keys."""

    trainer_entry: ClassVar[str]
    """The trainer's ``train`` function and the extra it needs (``agents.registry.load``'s form)."""
    resume_entry: ClassVar[str]
    """What finds the checkpoint or run state ``--resume PATH`` continues from."""
    model_agent: ClassVar[str] = "ppo"
    """The registry agent that plays the trained model in the closing table."""
    length: ClassVar[str] = "total_timesteps"
    """The key that says how long a run is (``--total-steps`` sets only ``total_timesteps``)."""
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
        """The trainer that runs this config: the backend of PPO, else the algorithm."""
        return self.backend if self.algorithm == "ppo" else self.algorithm

    @property
    def run_dir(self) -> Path:
        return Path(self.output_dir) if self.output_dir else Path("runs") / self.experiment

    @model_validator(mode="after")
    def _fits(self) -> TrainConfig:
        for ok, key, what in self.rules():
            if not ok:
                raise ValueError(f"config key {key!r} {what}, got {attrgetter(key)(self)!r}")
        return self

    def rules(self) -> list[Rule]:
        """The checks that read more than one key, in order: the first that fails is reported."""
        return []

    def agents(self, key: str, game: str = "numberdrop", model: str | None = None) -> Rule:
        """The agents at ``key`` are ``game``'s registry agents: distinct ones including ``model``,
        or scripted ones."""
        among = agents_of(game)
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


SCHEMAS: dict[tuple[str, str, str], str] = {
    ("numberdrop", "sb3", "ppo"): "agents.training.sb3_config:PPOConfig",
    ("numberdrop", "rllib", "ppo"): "agents.training.rllib.config:RLlibConfig",
    ("luckynumbers", "sb3", "ppo"): "agents.training.sb3_config:LuckyConfig",
    ("numberdrop", "local", "q_iteration"): "agents.training.q_iteration_config:QIterationConfig",
    ("numberdrop", "local", "ntuple"): "agents.training.ntuple_config:NTupleConfig",
    ("numberdrop", "ray", "ntuple"): "agents.training.ntuple_config:NTupleConfig",
    ("numberdrop", "jax", "jax_ppo"): "agents.training.jax_ppo_config:JaxPPOConfig",
}
"""Each trainer's schema, by ``(game, backend, algorithm)``: the module beside its trainer."""


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
        return load(SCHEMAS[chosen])
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
    if (data.get("algorithm"), data.get("backend")) == ("q_iteration", "sb3"):  # as earlier configs said
        data = {**data, "backend": "local"}  # Q-iteration runs no SB3 algorithm
    chosen = schema_of(data)
    try:
        return chosen.model_validate(data)
    except ValidationError as err:
        raise _refusal(err.errors()[0], chosen) from None


CONFIGS = Path(__file__).resolve().parents[1] / "configs"
"""The shipped configs: the checkout's ``configs/`` (``agents/configs`` links to it), in the package
of an install."""


def shipped_configs() -> list[str]:
    """The names of the shipped configs (``ntuple`` for ``configs/ntuple.yaml``)."""
    return sorted(path.stem for path in CONFIGS.glob("*.yaml"))


def find_config(config: str | Path) -> Path:
    """The YAML file ``config`` names: a path to one, else a shipped config's name (``ntuple`` or
    ``ntuple.yaml``), found from any folder; ``FileNotFoundError`` listing the names otherwise."""
    path = Path(config)
    if path.is_file():
        return path
    if path.parent == Path(".") and path.suffix in ("", ".yaml") and (CONFIGS / f"{path.stem}.yaml").is_file():
        return CONFIGS / f"{path.stem}.yaml"
    names = ", ".join(shipped_configs()) or "none"
    raise FileNotFoundError(f"config file {str(path)!r} not found; the shipped configs, by name: {names}")


def load_config(config: str | Path) -> TrainConfig:
    """The validated config of a YAML file or of a shipped config's name (``find_config``)."""
    path = find_config(config)
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
