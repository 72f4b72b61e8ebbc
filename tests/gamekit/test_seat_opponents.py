"""The seat environments take their opponents as agent names (made by a factory loaded by name)
or as policy objects, so the game packages import no agent code."""

from __future__ import annotations

import numpy as np
import pytest

from luckynumbers_env.envs.seat import LuckyNumbersEnv
from numberdrop_env.envs.table import NumberDropTableEnv


class FirstLegal:
    """Plays the lowest legal action; counts its resets."""

    def __init__(self) -> None:
        self.resets = 0

    def reset(self, seed: int | None = None) -> None:
        self.resets += 1

    def act(self, game, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask)[0])


def test_number_drop_seat_plays_policy_objects_to_the_end():
    policy = FirstLegal()
    env = NumberDropTableEnv(num_players=2, opponents=[policy])
    assert env.opponents == [policy] and env.opponent_names == ["FirstLegal"]
    env.reset(seed=0)
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(0)
    assert policy.resets == 1 and info["scores"].shape == (2,)


def test_lucky_seat_makes_named_opponents_with_the_given_factory():
    made = []

    def factory(name: str) -> FirstLegal:
        made.append(name)
        return FirstLegal()

    env = LuckyNumbersEnv(num_players=3, opponents=["a", "b"], policy_factory=factory)
    assert made == ["a", "b"] and env.opponent_names == ["a", "b"]
    _, info = env.reset(seed=1)
    assert info["action_mask"].any()


def test_opponents_that_are_neither_names_nor_policies_are_refused():
    with pytest.raises(TypeError, match="act\\(\\) and reset\\(\\)"):
        NumberDropTableEnv(num_players=2, opponents=[object()])
    with pytest.raises(ValueError, match="non-empty list"):
        LuckyNumbersEnv(opponents="greedy")
