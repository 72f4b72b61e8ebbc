"""A second look at a value network's best candidates, learned from its look-ahead.

A Q-iteration network (``agents/models/q_turn.zip``) values each of a turn's candidates from
summary features of the sheet it leaves; its one-turn look-ahead values them through sampled
next rolls and plays about 6.6 points a game better. The re-ranker is a small MLP that reads
the network's ``top`` best candidates (their feature rows, the state, and the structures of
each candidate's sheet: ``numberdrop_env.planner.structures``) and adds a correction in
points to the network's values; the candidate with the highest corrected value is played.
It is trained on the look-ahead's values of the same candidates
(``agents.training.rerank``), with values centred per turn, as a choice only sees their
differences. Played on the network's best few only, it is never asked about candidates
unlike the ones it learned on.

Saved with ``save_reranker`` as a torch file of plain tensors and numbers (loaded with
``weights_only=True``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.candidates import Candidate
from numberdrop_env.planner.structures import structure_features

from .candidate import mlp

FORMAT = 1
"""Version of the file ``save_reranker`` writes."""


class Reranker(nn.Module):
    """Corrections in points for a turn's ``top`` best candidates, from their input rows."""

    def __init__(self, inputs: int, hidden: Sequence[int] = (128, 128), top: int = 8) -> None:
        super().__init__()
        if inputs < 1 or top < 2 or not hidden or min(hidden) < 1:
            raise ValueError(
                f"Reranker needs inputs >= 1, top >= 2 and positive hidden sizes, got {inputs}, {top}, {hidden}"
            )
        self.inputs, self.hidden, self.top = int(inputs), [int(h) for h in hidden], int(top)
        self.register_buffer("mean", torch.zeros(inputs))
        self.register_buffer("scale", torch.ones(inputs))
        self.net = mlp([inputs, *self.hidden, 1], nn.ReLU, last_activation=False)
        nn.init.zeros_(self.net[-1].weight)  # untrained: no correction, the network's own choice
        nn.init.zeros_(self.net[-1].bias)

    def normalise_to(self, rows: np.ndarray) -> None:
        """Standardise inputs as ``rows`` (n, inputs) are: every input weighs alike at the start.
        An input constant in ``rows`` keeps its own scale, so a value never seen there stays small."""
        flat = torch.as_tensor(rows.reshape(-1, self.inputs), dtype=torch.float32)
        spread = flat.std(0) if len(flat) > 1 else torch.zeros(self.inputs)
        self.mean.copy_(flat.mean(0))
        self.scale.copy_(torch.where(spread > 1e-3, spread, torch.ones_like(spread)))

    def forward(self, rows: torch.Tensor) -> torch.Tensor:
        """(..., inputs) -> (...) corrections in points."""
        return self.net((rows - self.mean) / self.scale).squeeze(-1)

    def choose(self, values: np.ndarray, rows: np.ndarray) -> int:
        """The index of the best of the candidates by value plus correction (ties: the first)."""
        with torch.no_grad():
            correction = self(torch.as_tensor(rows, dtype=torch.float32)).numpy()
        return int(np.argmax(np.asarray(values, np.float64) + correction))


def rerank_rows(game: SoloGame, plans: Sequence[Candidate], feature_rows: np.ndarray, state: np.ndarray) -> np.ndarray:
    """(len(plans), inputs) float32: each candidate's ``NumberDropTurn-v0`` feature row, the
    turn's state row and the structures of the sheet the candidate leaves (with the box it
    scores, if any, counted as scored)."""
    r, s = game.rules, game.sheet
    rows = []
    for plan, features in zip(plans, feature_rows):
        identical, consecutive, bonus = s.identical.copy(), s.consecutive.copy(), bool(s.bonus)
        if plan.combo is not None:
            kind, size = plan.combo
            if size == r.bonus_size:
                bonus = True
            else:
                (identical if kind == "identical" else consecutive)[r.box_sizes.index(size)] = True
        shapes = structure_features(plan.values, plan.used, plan.heights, identical, consecutive, bonus, r)
        rows.append(np.concatenate([features, state, shapes]))
    return np.asarray(rows, np.float32)


def save_reranker(reranker: Reranker, path: str | Path, about: dict[str, Any] | None = None) -> Path:
    """Write ``reranker`` (and ``about``: plain numbers and strings, e.g. what it was trained on)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "format": FORMAT,
            "inputs": reranker.inputs,
            "hidden": reranker.hidden,
            "top": reranker.top,
            "state_dict": reranker.state_dict(),
            "about": dict(about or {}),
        },
        path,
    )
    return path


def load_reranker(path: str | Path) -> Reranker:
    """A re-ranker saved by ``save_reranker`` (``ValueError`` naming the file when it is not one)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"re-ranker {str(path)!r} not found")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
        if saved.get("format") != FORMAT:
            raise ValueError(f"format {saved.get('format')!r}, expected {FORMAT}")
        reranker = Reranker(saved["inputs"], saved["hidden"], saved["top"])
        reranker.load_state_dict(saved["state_dict"])
    except Exception as err:  # a torch file of anything else, a damaged one, or wrong shapes
        raise ValueError(f"{path}: not a re-ranker file ({type(err).__name__}: {err})") from None
    reranker.about = saved.get("about", {})
    return reranker.eval()
