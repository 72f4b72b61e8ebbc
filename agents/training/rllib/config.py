"""The schema of ``agents.training.rllib.train``: PPO on RLlib (Ray), solo Number Drop
(``backend: rllib``, ``algorithm: ppo``); ``n_envs`` environments per env runner."""

from __future__ import annotations

from typing import Literal

from ..config import Count, Env, Eval, FinalEval, Name, Positive, Rate, RayCluster, Rule
from ..sb3_config import Network, PPORun


class Ray(RayCluster):
    env_runners: Count = 1
    """Remote env runners (actors that step ``n_envs`` environments each); 0 samples in the driver."""
    cpus_per_env_runner: Positive = 1
    learners: Count = 0
    """Remote learner actors (data-parallel PPO updates); 0 updates in the driver process."""
    cpus_per_learner: Positive = 1
    sample_timeout_s: Rate = 600.0
    """An env runner that returns no samples for this long fails the iteration."""


class RLlibFinalEval(FinalEval):
    agents: list[str] = ["rllib", "random", "greedy"]


class RLlibConfig(PPORun):
    """PPO on RLlib (Ray): solo Number Drop, ``n_envs`` environments per env runner."""

    trainer_entry = "agents.training.rllib.train:train [rllib]"
    resume_entry = "agents.training.checkpoints:find_folder_checkpoint"
    model_agent = "rllib"
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
            self.agents("final_eval.agents", model="rllib"),
        ]

    def batch_limit(self) -> tuple[int, str]:
        """Each learner's share of an iteration's steps."""
        what = "n_steps * n_envs * max(1, ray.env_runners) / max(1, ray.learners)"
        return self.train_batch_size // max(1, self.ray.learners), what
