"""A small CNN + MLP features extractor for ``NumberDrop-v0``: 3x3 convolutions without pooling (the
14x7 sheet is small) beside an MLP over the flat vectors."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

GRID_KEY = "grid"
VECTOR_KEYS = ("dice", "shape_die", "track", "solo_board", "phase", "pending")
ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}
"""The activations a network's config may name (its ``activation``)."""


def mlp(sizes: Sequence[int], activation: type[nn.Module], last_activation: bool = True) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(a, b))
        if last_activation or i < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)


def convolutions(planes: int, channels: Sequence[int], activation: type[nn.Module]) -> tuple[list[nn.Module], int]:
    """3x3 convolutions of ``channels`` without pooling (the sheet is small and every cell counts),
    and the planes they leave."""
    layers: list[nn.Module] = []
    for out in channels:
        layers += [nn.Conv2d(planes, out, 3, padding=1), activation()]
        planes = out
    return layers, planes


class GridVectorExtractor(BaseFeaturesExtractor):
    """CNN over ``observation["grid"]`` concatenated with an MLP over the vector keys."""

    def __init__(
        self,
        observation_space: spaces.Dict,
        cnn_channels: Sequence[int] = (32, 64),
        cnn_hidden: int = 256,
        vector_hidden: Sequence[int] = (128,),
        activation: str = "relu",
    ) -> None:
        act = ACTIVATIONS[activation]
        grid_shape = observation_space[GRID_KEY].shape
        # the documented vector keys first, then any other flat key (sorted), so a richer
        # observation still works; the order is fixed by the space, not by the data
        others = sorted(k for k in observation_space.spaces if k != GRID_KEY and k not in VECTOR_KEYS)
        vector_keys = [k for k in VECTOR_KEYS if k in observation_space.spaces] + others
        vector_dim = sum(int(observation_space[k].shape[0]) for k in vector_keys)
        vector_out = vector_hidden[-1] if vector_hidden else vector_dim
        super().__init__(observation_space, features_dim=cnn_hidden + vector_out)
        self.vector_keys = vector_keys

        layers, channels = convolutions(grid_shape[0], cnn_channels, act)
        self.cnn = nn.Sequential(*layers, nn.Flatten())
        self.grid_head = nn.Sequential(nn.Linear(channels * grid_shape[1] * grid_shape[2], cnn_hidden), act())
        self.vector_mlp = mlp([vector_dim, *vector_hidden], act)

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        grid = self.grid_head(self.cnn(observations[GRID_KEY]))
        vec = torch.cat([observations[k].flatten(1) for k in self.vector_keys], dim=1)
        return torch.cat([grid, self.vector_mlp(vec)], dim=1)
