"""The config of an RLlib run (``backend: rllib``), validated like the SB3 configs.

The ``env``, ``ppo``, ``network``, ``eval`` and ``checkpoint`` sections are the SB3 configs'
own (same keys, same checks); ``n_envs`` is the number of environments *per env runner*,
and a ``ray`` section says where the run happens and how wide it is. PPO settings map to
RLlib's one to one (``n_steps`` = rollout fragment per environment, so a training batch is
``n_steps * n_envs * max(1, ray.env_runners)`` steps; ``batch_size`` = minibatch;
``n_epochs`` = epochs per batch). No Ray import: a config is checked before Ray starts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from .config import (CheckpointConfig, EnvConfig, EvalConfig, NetworkConfig, PPOConfig, TrainConfig, _build,
                     _check)
from .registry import AGENTS


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
class RLlibFinalEvalConfig:
    games: int = 300
    """Games per agent of the closing table (0 skips it)."""
    seed: int = 1_000_000
    agents: list[str] = field(default_factory=lambda: ["rllib", "random", "greedy"])
    """Registry agents of the closing table; ``rllib`` is the trained module (best checkpoint)."""
    workers: int = 0
    """Unused by Ray tasks (one per free CPU); kept for the same shape as the SB3 section."""


@dataclass
class RLlibTrainConfig:
    backend: Literal["rllib"] = "rllib"
    experiment: str = "rllib_ppo"
    seed: int = 0
    total_timesteps: int = 1_000_000
    n_envs: int = 8
    """Environments per env runner (stepped as one vector)."""
    output_dir: str | None = None
    """Run directory; default ``runs/<experiment>/``."""
    progress_bar: bool = True
    env: EnvConfig = field(default_factory=EnvConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)
    final_eval: RLlibFinalEvalConfig = field(default_factory=RLlibFinalEvalConfig)
    ray: RayConfig = field(default_factory=RayConfig)

    @property
    def run_dir(self) -> Path:
        return Path(self.output_dir) if self.output_dir else Path("runs") / self.experiment

    @property
    def train_batch_size(self) -> int:
        """Environment steps per PPO iteration, over all env runners."""
        return self.ppo.n_steps * self.n_envs * max(1, self.ray.env_runners)

    def model_config(self) -> dict[str, Any]:
        """What the RL module is built from: the interface, its environment settings and the network."""
        e = self.env
        return {"interface": e.interface, "auto_forced": e.auto_forced, "candidates": e.candidates,
                "width": e.width, **dataclasses.asdict(self.network)}

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _check_rllib(cfg: RLlibTrainConfig) -> None:
    # the sections shared with the SB3 configs get the SB3 checks
    _check(TrainConfig(experiment=cfg.experiment, seed=cfg.seed, total_timesteps=cfg.total_timesteps,
                       n_envs=cfg.n_envs, env=cfg.env, ppo=cfg.ppo, network=cfg.network, eval=cfg.eval,
                       checkpoint=cfg.checkpoint))

    def need(ok: bool, key: str, what: str) -> None:
        if not ok:
            value: Any = cfg
            for part in key.split("."):
                value = getattr(value, part)
            raise ValueError(f"config key {key!r} {what}, got {value!r}")

    need(cfg.env.players == 1, "env.players", "must be 1 with backend 'rllib' (solo games)")
    need(cfg.ppo.target_kl is None, "ppo.target_kl", "must be null with backend 'rllib' (RLlib has no early stop)")
    need(cfg.ppo.normalize_advantage, "ppo.normalize_advantage",
         "must be true with backend 'rllib' (RLlib always standardises advantages)")
    r = cfg.ray
    need(r.address is None or bool(r.address.strip()), "ray.address", "must be a non-empty address or null")
    need(r.num_cpus is None or r.num_cpus >= 1, "ray.num_cpus", "must be >= 1 or null")
    need(r.env_runners >= 0, "ray.env_runners", "must be >= 0")
    need(r.cpus_per_env_runner >= 1, "ray.cpus_per_env_runner", "must be >= 1")
    need(r.learners >= 0, "ray.learners", "must be >= 0")
    need(r.cpus_per_learner >= 1, "ray.cpus_per_learner", "must be >= 1")
    need(r.sample_timeout_s > 0, "ray.sample_timeout_s", "must be > 0")
    need(cfg.ppo.batch_size * max(1, r.learners) <= cfg.train_batch_size, "ppo.batch_size",
         "must be at most n_steps * n_envs * max(1, ray.env_runners) / max(1, ray.learners)")
    f = cfg.final_eval
    need(f.games >= 0, "final_eval.games", "must be >= 0")
    need(f.seed >= 0, "final_eval.seed", "must be >= 0")
    need(f.workers >= 0, "final_eval.workers", "must be >= 0")
    need(len(f.agents) == len(set(f.agents)) and "rllib" in f.agents and set(f.agents) <= set(AGENTS),
         "final_eval.agents", f"must be distinct agents among {sorted(AGENTS)}, including 'rllib'")


def rllib_config_from_dict(data: dict[str, Any] | None) -> RLlibTrainConfig:
    """Validate a plain mapping (e.g. parsed YAML) into an :class:`RLlibTrainConfig`."""
    if not isinstance(data, dict):
        raise TypeError(f"a config must be a mapping at the top level, got {type(data).__name__}")
    cfg = _build(RLlibTrainConfig, data)
    _check_rllib(cfg)
    return cfg


def config_backend(path: str | Path) -> str:
    """The ``backend`` a YAML config asks for (``sb3`` when it names none)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"config file {str(path)!r} not found")
    data = yaml.safe_load(path.read_text())
    backend = data.get("backend", "sb3") if isinstance(data, dict) else "sb3"
    if backend not in ("sb3", "rllib"):
        raise ValueError(f"{path}: config key 'backend' must be one of 'sb3' | 'rllib', got {backend!r}")
    return backend


def require_ray() -> None:
    """A clear error, before anything runs, when the ``rllib`` extra is not installed."""
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise ValueError("backend 'rllib' needs Ray: pip install -e '.[rllib]'")


def load_rllib_config(path: str | Path) -> RLlibTrainConfig:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"config file {str(path)!r} not found")
    try:
        return rllib_config_from_dict(yaml.safe_load(path.read_text()))
    except (TypeError, ValueError) as err:
        raise type(err)(f"{path}: {err}") from None
