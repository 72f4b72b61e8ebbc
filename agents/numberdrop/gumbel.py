"""Gumbel search at the root of a turn: the look-ahead that expert iteration learns from.

Danihelka et al. (Gumbel AlphaZero, ICLR 2022) choose among a policy's actions with few
evaluations and still improve on the policy: sample ``m`` actions without replacement by
adding Gumbel noise to the logits (the top ``m`` of ``logits + g``), then spend the budget by
*sequential halving*: every round values the actions still in play and keeps the better half
by ``g + logits + sigma(q)``, until one is left. Here an action is a candidate of
``NumberDropTurn-v0`` and a valuation is the one-turn look-ahead of the search agent: the
candidate's points plus the critic's value of the sampled next turn, over ``samples`` rolls
(the same rolls for every candidate of a round).

The improved policy, the training target, is ``softmax(logits + sigma(completed q))``: a
candidate that was valued keeps its mean look-ahead value, the others get the critic's
value of the position (its expected points to come). ``sigma`` scales the min-max normalised
values by ``(c_visit + most rounds) * c_scale``. Without noise (``g = 0``) the search is a
deterministic look-ahead for play.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SearchResult:
    """One root search: the chosen slot, the improved policy over every slot, and what it saw."""

    choice: int
    policy: np.ndarray
    """(slots,) the improved policy, 0 on illegal slots."""
    q: np.ndarray
    """(slots,) the completed values (NaN on illegal slots)."""
    visits: np.ndarray
    """(slots,) rounds in which each slot was valued."""
    prior_choice: int
    """The network's own most likely slot."""


def gumbel_top_k(scores: np.ndarray, legal: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` legal slots of highest ``scores`` (logits plus Gumbel noise), best first, ties by slot."""
    slots = np.flatnonzero(legal)
    return slots[np.argsort(-scores[slots], kind="stable")][:k]


def sigma(q: np.ndarray, legal: np.ndarray, max_visits: int, c_visit: float, c_scale: float) -> np.ndarray:
    """The monotone transform of completed values added to the logits: min-max normalised over
    the legal slots, then scaled by ``(c_visit + max_visits) * c_scale`` (0 where all are equal)."""
    out = np.zeros(len(q))
    values = q[legal]
    lo, hi = float(values.min()), float(values.max())
    if hi > lo:
        out[legal] = (values - lo) / (hi - lo) * (c_visit + max_visits) * c_scale
    return out


def completed_q(q_sum: np.ndarray, visits: np.ndarray, legal: np.ndarray, value: float) -> np.ndarray:
    """Mean look-ahead value where a slot was valued, ``value`` (the critic's) where it was not,
    NaN on illegal slots."""
    q = np.where(visits > 0, q_sum / np.maximum(visits, 1), value)
    return np.where(legal, q, np.nan)


def improved_policy(
    logits: np.ndarray, q: np.ndarray, legal: np.ndarray, max_visits: int, c_visit: float, c_scale: float
) -> np.ndarray:
    """``softmax(logits + sigma(q))`` over the legal slots (0 elsewhere)."""
    z = np.where(legal, logits + sigma(np.nan_to_num(q), legal, max_visits, c_visit, c_scale), -np.inf)
    z = np.exp(z - z[legal].max())
    return z / z.sum()


def sequential_halving(
    logits: np.ndarray,
    legal: np.ndarray,
    value: float,
    evaluate: Callable[[Sequence[int]], Sequence[float]],
    m: int,
    gumbel: np.ndarray,
    c_visit: float = 50.0,
    c_scale: float = 0.1,
) -> SearchResult:
    """Search the legal slots: ``evaluate(slots)`` values some slots once (one round, common
    rolls); ``gumbel`` is the noise (zeros for a deterministic search)."""
    legal = np.asarray(legal, bool)
    n_legal = int(legal.sum())
    if n_legal == 0:
        raise ValueError("no legal candidate to search")
    slots = len(logits)
    q_sum, visits = np.zeros(slots), np.zeros(slots, np.int64)
    scores = np.where(legal, logits + gumbel, -np.inf)
    remaining = gumbel_top_k(scores, legal, max(1, min(m, n_legal)))
    prior_choice = int(gumbel_top_k(np.where(legal, logits, -np.inf), legal, 1)[0])
    rounds = math.ceil(math.log2(len(remaining))) if len(remaining) > 1 else 0
    for _ in range(rounds):
        q_sum[remaining] += np.asarray(evaluate(remaining.tolist()), float)
        visits[remaining] += 1
        q = completed_q(q_sum, visits, legal, value)
        ranked = scores[remaining] + sigma(q, legal, int(visits.max()), c_visit, c_scale)[remaining]
        remaining = remaining[np.argsort(-ranked, kind="stable")][: math.ceil(len(remaining) / 2)]
    q = completed_q(q_sum, visits, legal, value)
    policy = improved_policy(logits, q, legal, int(visits.max()), c_visit, c_scale)
    return SearchResult(int(remaining[0]), policy, q, visits, prior_choice)
