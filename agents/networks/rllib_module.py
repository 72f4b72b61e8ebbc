"""The project's networks as an RLlib RL module: ``model_config["interface"]`` picks the decision
CNN or the candidate scorer; masked actions get a finite ``-1e8`` logit (finite KL and entropy)."""

from __future__ import annotations

from functools import partial
from typing import Any

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

from . import MASK_KEY, OBS_KEY
from .candidate import CandidateEncoder, build_heads, score_candidates
from .grid import ACTIVATIONS, GridVectorExtractor

MASKED_LOGIT = -1e8


class GridVectorNet(nn.Module):
    """``NumberDrop-v0``: CNN + vectors, then separate policy and value MLPs (as the SB3 policy)."""

    def __init__(self, observation_space: Any, n_actions: int, config: dict[str, Any]) -> None:
        super().__init__()
        act = ACTIVATIONS[config["activation"]]
        keys = ("cnn_channels", "cnn_hidden", "vector_hidden", "activation")
        self.features = GridVectorExtractor(observation_space, **{k: config[k] for k in keys})
        self.mlp = MlpExtractor(self.features.features_dim, dict(pi=list(config["pi"]), vf=list(config["vf"])), act)
        self.action_net = nn.Linear(self.mlp.latent_dim_pi, n_actions)
        self.value_net = nn.Linear(self.mlp.latent_dim_vf, 1)
        init = ActorCriticPolicy.init_weights  # SB3's gains: features and MLPs sqrt(2), policy 0.01, value 1
        for module, gain in ((self.features, 2**0.5), (self.mlp, 2**0.5), (self.action_net, 0.01), (self.value_net, 1)):
            module.apply(partial(init, gain=gain))

    def forward(self, obs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits (B, A), value embedding (B, E))."""
        features = self.features(obs)
        return self.action_net(self.mlp.forward_actor(features)), self.mlp.forward_critic(features)

    def value(self, embedding: torch.Tensor) -> torch.Tensor:
        return self.value_net(embedding).squeeze(-1)


class CandidateNet(nn.Module):
    """``NumberDropTurn-v0``: the candidate scorer (shared encoder, planner terms, residual)."""

    def __init__(self, observation_space: Any, n_actions: int, config: dict[str, Any]) -> None:
        super().__init__()
        keys = ("candidate_hidden", "state_hidden", "activation")
        self.encoder = CandidateEncoder(observation_space, **{k: config[k] for k in keys})
        self.scorer, self.term_weights, self.value_head = build_heads(
            self.encoder, config["scorer_hidden"], config["value_hidden"], config["planner_scale"], config["activation"]
        )
        self.freeze_actor = False  # ppo.actor_warmup_steps: only the value head learns for a while

    def forward(self, obs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        logits, embedding = score_candidates(*self.encoder(obs), self.term_weights, self.scorer)
        return (logits.detach() if self.freeze_actor else logits), embedding

    def value(self, embedding: torch.Tensor) -> torch.Tensor:
        return self.value_head(embedding).squeeze(-1)


BODIES = {"decision": GridVectorNet, "turn": CandidateNet}


class NumberDropRLModule(TorchRLModule, ValueFunctionAPI):
    """Masked policy and value for PPO on RLlib; ``model_config`` holds ``interface`` and the
    ``network`` section of the training config."""

    def setup(self) -> None:
        config = dict(self.model_config or {})
        body = BODIES[config["interface"]]
        self.body = body(self.observation_space.spaces[OBS_KEY], int(self.action_space.n), config)

    def _masked(self, obs: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits with the illegal actions at ``MASKED_LOGIT``, value embedding)."""
        logits, embedding = self.body(obs[OBS_KEY])
        return torch.where(obs[MASK_KEY] > 0.5, logits, torch.full_like(logits, MASKED_LOGIT)), embedding

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._masked(batch[Columns.OBS])[0]}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits, embedding = self._masked(batch[Columns.OBS])
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: embedding}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self.body(batch[Columns.OBS][OBS_KEY])[1]
        return self.body.value(embeddings)

    def masked_argmax(self, obs: dict[str, Any]) -> torch.Tensor:
        """The highest-scoring legal action per row, from a batch of masked observations."""
        with torch.no_grad():
            return self._masked(obs)[0].argmax(dim=-1)
