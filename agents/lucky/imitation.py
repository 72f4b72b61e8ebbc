"""Behaviour cloning before PPO: the policy learns a scripted agent's choices, the value head
the returns those games gave, so PPO starts from the scripted agent instead of from chance.

Demonstrations are whole tables of the scripted agent (every seat recorded); the return of a
decision is the seat's tournament score plus ``shaping`` per cell it filled from then on,
which is what ``LuckyNumbersEnv`` pays.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np

from luckynumbers_env import Game, Rules
from luckynumbers_env.observe import observe

from .registry import make_policy


def demonstrations(agent: str, rules: Rules, games: int, seed: int, shaping: float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(observations, masks, actions, returns) of every decision of ``games`` seeded tables."""
    obs, masks, actions, returns = [], [], [], []
    policies = [make_policy(agent) for _ in range(rules.players)]
    for g in range(games):
        game = Game(rules, seed=seed + g)
        for p, policy in enumerate(policies):
            policy.reset((seed + g) * 8 + p)
        seats, empties = [], []
        while not game.over:
            p, mask = game.player, game.legal_mask()
            action = policies[p].act(game, mask)
            obs.append(observe(game, p))
            masks.append(mask)
            actions.append(action)
            seats.append(p)
            empties.append(game.empty_cells(p))
            game.step(action)
        final = game.scores()
        returns += [final[p] + shaping * (e - game.empty_cells(p)) for p, e in zip(seats, empties)]
    return (np.array(obs, np.float32), np.array(masks, bool), np.array(actions, np.int64),
            np.array(returns, np.float32))


def behaviour_cloning(model: Any, agent: str, rules: Rules, games: int, seed: int, shaping: float,
                      epochs: int, batch_size: int, learning_rate: float, value_coef: float = 0.5) -> dict[str, float]:
    """Fit ``model.policy`` to the demonstrations; returns the final losses and the accuracy."""
    import torch

    start = time.perf_counter()
    obs, masks, actions, returns = demonstrations(agent, rules, games, seed, shaping)
    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    o, a, r = torch.as_tensor(obs), torch.as_tensor(actions), torch.as_tensor(returns)
    for _ in range(epochs):
        order = rng.permutation(len(obs))
        for i in range(0, len(order), batch_size):
            idx = order[i:i + batch_size]
            values, log_prob, _ = policy.evaluate_actions(o[idx], a[idx], action_masks=torch.as_tensor(masks[idx]))
            loss = -log_prob.mean() + value_coef * torch.nn.functional.smooth_l1_loss(values.flatten(), r[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        dist = policy.get_distribution(o[:5000], action_masks=masks[:5000])
        accuracy = float((dist.distribution.probs.argmax(-1) == a[:5000]).float().mean())
    out = {"decisions": float(len(obs)), "accuracy": accuracy, "seconds": time.perf_counter() - start}
    print(f"behaviour cloning of {agent}: {len(obs)} decisions, accuracy {accuracy:.3f}, "
          f"{out['seconds']:.0f} s", file=sys.stderr, flush=True)
    return out
