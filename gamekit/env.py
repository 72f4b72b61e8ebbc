"""Gymnasium plumbing both games' environments share: the action space that samples legal
moves, the ``action_mask`` observation entry, the illegal-action options and the opponents of
a seat environment."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import load_env_creator

ILLEGAL_ACTIONS = ("raise", "penalize")


def mask_space(n: int) -> spaces.Box:
    """The ``action_mask`` entry of an observation ``Dict`` (1 = legal), as PettingZoo's games have it."""
    return spaces.Box(0, 1, (n,), np.int8)


def check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {value!r}")
    return bool(value)


class UnsupportedRenderMode(TypeError, ValueError):
    """A ``render_mode`` the environment cannot draw.

    A ``TypeError`` because that is what Stable-Baselines3's ``make_vec_env`` catches before
    retrying without ``render_mode``; also a ``ValueError`` for callers that catch the
    usual bad-value error.
    """


def check_illegal_options(illegal_action: Any, illegal_reward: Any, max_illegal: Any) -> None:
    """Refuse bad ``illegal_action`` / ``illegal_reward`` / ``max_illegal`` arguments (every
    environment with a *penalize* mode takes them)."""
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action must be one of {list(ILLEGAL_ACTIONS)}, got {illegal_action!r}")
    if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)) or illegal_reward > 0:
        raise ValueError(f"illegal_reward must be a number <= 0, got {illegal_reward!r}")
    if isinstance(max_illegal, bool) or not isinstance(max_illegal, (int, np.integer)) or max_illegal < 2:
        raise ValueError(f"max_illegal must be an int >= 2, got {max_illegal!r}")


class LegalDiscrete(spaces.Discrete):
    """``Discrete`` whose ``sample()`` without a mask draws among the legal actions.

    Generic tools (env checkers, quick scripts) then play legal moves. The space asks its
    environment for the mask; a copied or unpickled environment binds its own space to
    itself again, while a space pickled on its own samples like a plain ``Discrete``.
    """

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray] | None = None) -> None:
        super().__init__(n)
        self.legal_mask = legal_mask

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None and self.legal_mask is not None:
            legal = self.legal_mask()
            if legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["legal_mask"] = None  # never drag an environment into a saved model's spaces
        return state


def rebind_mask(env: Any) -> None:
    """After a copy or unpickling: the environment's ``LegalDiscrete`` asks *it* for the mask again."""
    if isinstance(env.__dict__.get("action_space"), LegalDiscrete):
        env.action_space.legal_mask = env.action_masks


def seat_opponents(opponents: Any, count: int, factory: str | Callable[[str], Any]) -> tuple[list[str], list[Any]]:
    """The ``count`` opponents of a seat environment, cycled from ``opponents``, and their names.

    Each entry is a policy (an object with ``act`` and ``reset``) or a name that ``factory``
    turns into one. A factory given as ``"module:function"`` is loaded by name on first use,
    as Gymnasium loads entry points, so the environment imports no agent code itself. A policy
    object cycled to several seats plays all of them: give one object per seat to a policy that
    keeps a plan between its moves.
    """
    if isinstance(opponents, str) or not isinstance(opponents, Sequence) or not opponents:
        raise ValueError(f"opponents must be a non-empty list of agent names or policies, got {opponents!r}")
    chosen = [opponents[i % len(opponents)] for i in range(count)]
    make = None
    policies = []
    for entry in chosen:
        if isinstance(entry, str):
            make = make or (load_env_creator(factory) if isinstance(factory, str) else factory)
            policies.append(make(entry))  # unknown names fail here
        elif callable(getattr(entry, "act", None)) and callable(getattr(entry, "reset", None)):
            policies.append(entry)
        else:
            raise TypeError(f"an opponent is an agent name or a policy with act() and reset(), got {entry!r}")
    names = [e if isinstance(e, str) else getattr(e, "name", type(e).__name__) for e in chosen]
    return names, policies
