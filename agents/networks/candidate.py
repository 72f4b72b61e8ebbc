"""A MaskablePPO policy for ``NumberDropTurn-v0`` scoring each candidate with one shared network:
``logit_i = sum_j w_j * term_ij + residual(candidate_i, state)`` over the planner value's terms,
initialised so the untrained policy's argmax is the greedy's choice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.preprocessing import preprocess_obs
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from numberdrop_env.envs.turn import PLANNER_TERMS, VALUE_SCALE

from .grid import ACTIVATIONS, convolutions, mlp


class CandidateEncoder(BaseFeaturesExtractor):
    """Embeds the state and, with shared weights, every candidate."""

    def __init__(
        self,
        observation_space: Any,
        candidate_hidden: Sequence[int] = (64, 64),
        state_hidden: Sequence[int] = (64,),
        activation: str = "relu",
        grid_channels: Sequence[int] = (16, 16),
    ) -> None:
        spaces, act = observation_space.spaces, ACTIVATIONS[activation]
        super().__init__(observation_space, features_dim=candidate_hidden[-1] + state_hidden[-1])
        self.candidate_dim, self.state_dim = candidate_hidden[-1], state_hidden[-1]
        self.grid_net = None
        if "afterstates" in spaces:
            self.grid_net = grid_net(spaces["afterstates"].shape[1:], act, grid_channels)
        extra = GRID_EMBEDDING if self.grid_net is not None else 0
        self.candidate_net = mlp([spaces["candidates"].shape[1] + extra, *candidate_hidden], act)
        self.state_net = mlp([spaces["state"].shape[0], *state_hidden], act)

    def forward(self, obs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(state embedding (B, S), candidate embeddings (B, K, C), raw candidate rows (B, K, F))."""
        cands = obs["candidates"]
        rows = cands
        if self.grid_net is not None:
            grids = obs["afterstates"]
            b, k = grids.shape[:2]
            rows = torch.cat([cands, self.grid_net(grids.flatten(0, 1)).view(b, k, -1)], dim=-1)
        return self.state_net(obs["state"]), self.candidate_net(rows), cands


GRID_EMBEDDING = 32


def grid_net(shape: Sequence[int], activation: type[nn.Module], channels: Sequence[int] = (16, 16)) -> nn.Sequential:
    """(N, planes, rows, cols) grids to (N, GRID_EMBEDDING): ``convolutions`` and a linear layer."""
    layers, planes = convolutions(shape[0], channels, activation)
    rows, cols = shape[1:]
    return nn.Sequential(*layers, nn.Flatten(), nn.Linear(planes * rows * cols, GRID_EMBEDDING), activation())


def build_heads(
    encoder: CandidateEncoder,
    scorer_hidden: Sequence[int],
    value_hidden: Sequence[int],
    planner_scale: float,
    activation: str,
) -> tuple[nn.Sequential, nn.Parameter, nn.Sequential]:
    """(residual scorer, planner-term weights, value head), initialised so that the logits are
    ``planner_scale`` times the planner value. Shared by the SB3 policy and the RLlib module."""
    act = ACTIVATIONS[activation]
    scorer = mlp([encoder.candidate_dim + encoder.state_dim, *scorer_hidden, 1], act, last_activation=False)
    nn.init.zeros_(scorer[-1].weight)
    nn.init.zeros_(scorer[-1].bias)
    # logit per point of each part of the planner value
    term_weights = nn.Parameter(torch.full((len(PLANNER_TERMS),), float(planner_scale)))
    value_head = mlp([encoder.state_dim + 2 * encoder.candidate_dim, *value_hidden, 1], act, last_activation=False)
    return scorer, term_weights, value_head


def score_candidates(
    state: torch.Tensor, cands: torch.Tensor, raw: torch.Tensor, term_weights: torch.Tensor, scorer: nn.Module
) -> tuple[torch.Tensor, torch.Tensor]:
    """(logits (B, K), value-head input (B, S + 2C)): weighted planner terms plus the residual, and
    the state with a masked mean and max of the candidate embeddings."""
    present = raw[..., 0:1]  # (B, K, 1): 1 for offered candidates
    k = cands.shape[1]
    joined = torch.cat([cands, state.unsqueeze(1).expand(-1, k, -1)], dim=-1)
    terms = raw[..., list(PLANNER_TERMS)] * VALUE_SCALE
    logits = terms @ term_weights + scorer(joined).squeeze(-1)
    count = present.sum(dim=1)  # (B, 1); 0 only after the game is over
    mean = (cands * present).sum(dim=1) / count.clamp(min=1.0)
    peak = cands.masked_fill(present == 0, -1e4).max(dim=1).values * (count > 0.5)
    return logits, torch.cat([state, mean, peak], dim=-1)


class CandidateScorerPolicy(MaskableActorCriticPolicy):
    """Shared-weight candidate scorer (actor) and state value (critic) for ``NumberDropTurn-v0``."""

    def __init__(
        self,
        observation_space: Any,
        action_space: Any,
        lr_schedule: Any,
        candidate_hidden: Sequence[int] = (64, 64),
        state_hidden: Sequence[int] = (64,),
        scorer_hidden: Sequence[int] = (64,),
        value_hidden: Sequence[int] = (64,),
        planner_scale: float = 2.0,
        activation: str = "relu",
        grid_channels: Sequence[int] = (16, 16),
        **kwargs: Any,
    ) -> None:
        self.planner_scale = float(planner_scale)
        self.freeze_actor = False
        self.net_kwargs = dict(
            candidate_hidden=list(candidate_hidden),
            state_hidden=list(state_hidden),
            scorer_hidden=list(scorer_hidden),
            value_hidden=list(value_hidden),
            planner_scale=self.planner_scale,
            activation=activation,
            grid_channels=list(grid_channels),
        )
        """The constructor's network arguments, as ``_get_constructor_parameters`` gives them back."""
        encoder = {k: self.net_kwargs[k] for k in ("candidate_hidden", "state_hidden", "activation", "grid_channels")}
        kwargs.update(features_extractor_class=CandidateEncoder, ortho_init=False, features_extractor_kwargs=encoder)
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        for key in ("features_extractor_class", "features_extractor_kwargs", "ortho_init"):
            data.pop(key, None)
        return {**data, **self.net_kwargs}

    def _build(self, lr_schedule: Any) -> None:
        n = self.net_kwargs
        self.scorer, self.term_weights, self.value_head = build_heads(
            self.features_extractor, n["scorer_hidden"], n["value_hidden"], self.planner_scale, n["activation"]
        )
        self.action_dist = MaskableCategoricalDistribution(int(self.action_space.n))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def heads(self, obs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits (B, K), values (B, 1)) of preprocessed observations: the raw scores, before
        masking. Afterstate Q-iteration reads a logit over ``planner_scale`` as the candidate's
        value in points."""
        encoded = self.features_extractor(preprocess_obs(obs, self.observation_space))
        logits, value_input = score_candidates(*encoded, self.term_weights, self.scorer)
        if self.freeze_actor:
            logits = logits.detach()
        return logits, self.value_head(value_input)

    def _distribution(self, logits: torch.Tensor, action_masks: Any) -> MaskableCategoricalDistribution:
        dist = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            dist.apply_masking(action_masks)
        return dist

    def forward(self, obs: Any, deterministic: bool = False, action_masks: np.ndarray | None = None):
        logits, values = self.heads(obs)
        dist = self._distribution(logits, action_masks)
        actions = dist.get_actions(deterministic=deterministic)
        return actions, values, dist.log_prob(actions)

    def evaluate_actions(self, obs: Any, actions: torch.Tensor, action_masks: Any = None):
        logits, values = self.heads(obs)
        dist = self._distribution(logits, action_masks)
        return values, dist.log_prob(actions), dist.entropy()

    def get_distribution(self, obs: Any, action_masks: np.ndarray | None = None) -> MaskableCategoricalDistribution:
        return self._distribution(self.heads(obs)[0], action_masks)

    def predict_values(self, obs: Any) -> torch.Tensor:
        return self.heads(obs)[1]
