"""Behaviour cloning for both games (PPO from scratch spends a million steps learning not to cross
the Game Over line), and the fit Q-iteration shares (``pretrain``); demonstrations are cached."""

from __future__ import annotations

import os
import sys
from itertools import accumulate
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from luckynumbers_env import Game, Rules
from luckynumbers_env.envs.observe import observe as observe_lucky
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.decision import observe

from ..evaluation.runner import Progress, pool
from ..registry import make_policy
from .checkpoints import atomic_path, read_arrays, write_json
from .sb3_config import LuckyConfig, PPOConfig


def _record_games(task: tuple[str, list[int], float]) -> dict[str, np.ndarray]:
    """Number Drop: ``agent``'s decisions with a choice (as ``auto_forced`` shows them, a forced
    move's reward added to the one before) and their returns by ``gamma``."""
    agent, seeds, gamma = task
    policy = make_policy(agent)
    obs: list[dict[str, np.ndarray]] = []
    masks, actions, returns = [], [], []
    for seed in seeds:
        game = SoloGame(seed=seed)
        policy.reset(seed)
        rewards: list[float] = []
        while not game.is_over:
            mask = game.legal_mask()
            action = policy.act(game, mask)
            if mask.sum() > 1:
                obs.append(observe(game))
                masks.append(mask.copy())
                actions.append(action)
                rewards.append(0.0)
            reward = game.step(action)
            if rewards:
                rewards[-1] += reward
        discounted = accumulate(reversed(rewards), lambda later, reward: reward + gamma * later)
        returns.append(np.array(list(discounted)[::-1], np.float32))
    data = {f"obs/{k}": np.stack([o[k] for o in obs]) for k in obs[0]}
    data["obs/grid"] = data["obs/grid"].astype(np.uint8)  # 0/1 planes: a quarter of the memory
    data.update(masks=np.stack(masks), actions=np.array(actions, np.int64), returns=np.concatenate(returns))
    return data


def _record_lucky(task: tuple[str, list[int], Rules, float]) -> dict[str, np.ndarray]:
    """Lucky Numbers: every seat's decisions, returns the seat's score plus ``shaping`` per cell filled."""
    agent, seeds, rules, shaping = task
    obs, masks, actions, returns = [], [], [], []
    policies = [make_policy(agent, game="luckynumbers") for _ in range(rules.players)]
    for seed in seeds:
        game = Game(rules, seed=seed)
        for p, policy in enumerate(policies):
            policy.reset(seed * 8 + p)
        seats, empties = [], []
        while not game.over:
            p, mask = game.player, game.legal_mask()
            action = policies[p].act(game, mask)
            obs.append(observe_lucky(game, p))
            masks.append(mask)
            actions.append(action)
            seats.append(p)
            empties.append(game.empty_cells(p))
            game.step(action)
        final = game.scores()
        returns += [final[p] + shaping * (e - game.empty_cells(p)) for p, e in zip(seats, empties)]
    return {
        "obs": np.array(obs, np.float32),
        "masks": np.array(masks, bool),
        "actions": np.array(actions, np.int64),
        "returns": np.array(returns, np.float32),
    }


def collect_demonstrations(
    agent: str, games: int, seed: int, gamma: float = 1.0, workers: int = 1, progress: bool = True, lucky: Any = None
) -> dict[str, np.ndarray]:
    """Decisions of ``agent`` on seeds ``seed .. seed + games - 1`` (the same for any ``workers``);
    ``lucky``: Lucky Numbers' ``(rules, shaping)``."""
    seeds = list(range(seed, seed + games))
    chunks = [seeds[i : i + 10] for i in range(0, games, 10)]
    bar = Progress(games, progress, f"{agent} demonstrations")
    work, more = (_record_lucky, tuple(lucky)) if lucky else (_record_games, (gamma,))
    with pool(workers) as where:
        parts = where.map(work, [(agent, chunk, *more) for chunk in chunks], bar, lambda task: len(task[1]))
    bar.close()
    return concatenate(parts)


def concatenate(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def pretrain(
    model: Any,
    demos: dict[str, np.ndarray],
    how: Any,
    seed: int,
    progress: bool = True,
    desc: str = "behaviour cloning",
) -> list[dict[str, float]]:
    """Fit the policy to the demonstrated actions (with ``q_targets``: the played logits to their
    values, as Q-iteration does) and the value head to the returns, by ``how`` (a ``pretrain`` or ``q``
    section); a record per epoch (the loss, on a held-out tenth the accuracy and cross-entropy or
    ``q_mae``, and the value's error)."""
    policy = model.policy
    n = len(demos["returns"])
    order = np.random.default_rng(seed).permutation(n)
    held, train = order[: max(1, n // 10)], order[max(1, n // 10) :]
    optimizer = torch.optim.Adam(policy.parameters(), lr=how.learning_rate)
    fit = (_ValueFit if "q_targets" in demos else _PolicyFit)(policy, demos, how.value_coef)
    history = []
    rng = np.random.default_rng(seed + 1)
    bar = Progress(how.epochs, progress, desc, unit="epoch")
    for epoch in range(how.epochs):
        policy.set_training_mode(True)
        losses = []
        shuffled = train[rng.permutation(len(train))]
        for start in range(0, len(shuffled), how.batch_size):
            loss = fit.loss(shuffled[start : start + how.batch_size])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            losses.append(loss.item())
        policy.set_training_mode(False)
        history.append({"epoch": epoch + 1, "loss": float(np.mean(losses)), **fit.held_out(held)})
        bar.update(1)
    bar.close()
    return history


class _PolicyFit:
    """Cross-entropy to the demonstrated actions, and the value head's Huber loss to the returns."""

    def __init__(self, policy: Any, demos: dict[str, np.ndarray], value_coef: float) -> None:
        self.policy, self.demos, self.value_coef = policy, demos, value_coef
        self.keys = [k[4:] for k in demos if k.startswith("obs/")]  # Number Drop's Dict observation; Lucky's "obs"

    def batch(self, idx: np.ndarray) -> tuple[Any, torch.Tensor, torch.Tensor, torch.Tensor]:
        d = self.demos
        if self.keys:
            obs: Any = {k: torch.as_tensor(d[f"obs/{k}"][idx], dtype=torch.float32) for k in self.keys}
        else:
            obs = torch.as_tensor(d["obs"][idx])
        return obs, *(torch.as_tensor(d[k][idx]) for k in ("actions", "masks", "returns"))

    def loss(self, idx: np.ndarray) -> torch.Tensor:
        obs, actions, masks, returns = self.batch(idx)
        values, log_prob, _ = self.policy.evaluate_actions(obs, actions, action_masks=masks)
        return -log_prob.mean() + self.value_coef * F.smooth_l1_loss(values.flatten(), returns)

    def held_out(self, held: np.ndarray) -> dict[str, float]:
        """Accuracy (the most likely action is the demonstrated one), value MAE and cross-entropy."""
        policy, n = self.policy, len(held)
        policy.set_training_mode(False)
        correct, value_err, nll = 0.0, 0.0, 0.0
        with torch.no_grad():
            for start in range(0, n, 1024):
                obs, actions, masks, returns = self.batch(held[start : start + 1024])
                values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
                chosen = policy.get_distribution(obs, action_masks=masks.numpy()).distribution.probs.argmax(dim=1)
                correct += float((chosen == actions).sum())
                value_err += float(F.l1_loss(values.flatten(), returns, reduction="sum"))
                nll += float(-log_prob.sum())
        return {"accuracy": correct / n, "value_mae": value_err / n, "nll": nll / n}


class _ValueFit:
    """Q-iteration's fit: the played candidate's logit over ``planner_scale`` and the value head to
    ``q_targets`` (Huber)."""

    def __init__(self, policy: Any, demos: dict[str, np.ndarray], value_coef: float) -> None:
        self.policy, self.demos, self.value_coef = policy, demos, value_coef
        self.scale = float(policy.planner_scale)

    def errors(self, idx: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        d = self.demos
        state = torch.as_tensor(d["obs/state"][idx])
        slots = {"state": state, "candidates": torch.as_tensor(d["obs/candidates"][idx])}
        # a candidate's logit depends on it and the state alone: score the played one by itself
        played = {"state": state, "candidates": torch.as_tensor(d["played"][idx])[:, None]}
        values = self.policy.heads(slots)[1]
        played = self.policy.heads(played)[0]
        targets = torch.as_tensor(d["q_targets"][idx])
        return played[:, 0] / self.scale - targets, values.flatten() - targets

    def loss(self, idx: np.ndarray) -> torch.Tensor:
        q_err, v_err = self.errors(idx)
        zero = torch.zeros_like(q_err)
        return F.smooth_l1_loss(q_err, zero, beta=5.0) + self.value_coef * F.smooth_l1_loss(v_err, zero, beta=5.0)

    def held_out(self, held: np.ndarray) -> dict[str, float]:
        with torch.no_grad():
            errors = [self.errors(held[i : i + 1024]) for i in range(0, len(held), 1024)]
        q_err, v_err = (torch.cat(parts) for parts in zip(*errors))
        return {"q_mae": float(q_err.abs().mean()), "value_mae": float(v_err.abs().mean())}


def behaviour_cloning(cfg: PPOConfig | LuckyConfig, model: Any, run_dir: Path, progress: bool) -> None:
    """Clone the configured scripted agent before PPO (``pretrain.json``, ``pretrain/*``)."""
    b, e = cfg.pretrain, cfg.env
    lucky = (Rules(players=e.players, setup=e.setup, bruno=e.bruno), e.shaping) if cfg.game == "luckynumbers" else None
    cache = run_dir / (
        f"demos_lucky_{b.agent}_seed{b.seed}_games{b.games}_shaping{e.shaping}.npz"
        if lucky
        else f"demos_{b.agent}_seed{b.seed}_games{b.games}_gamma{cfg.ppo.gamma}.npz"
    )
    try:
        demos = read_arrays(cache, (), "demonstrations") if cache.is_file() else None
    except ValueError as err:
        print(f"note: {err}; collecting the demonstrations again", file=sys.stderr)
        demos = None
    if demos is None:
        workers = b.workers or os.cpu_count() or 1
        demos = collect_demonstrations(b.agent, b.games, b.seed, cfg.ppo.gamma, workers, progress, lucky)
        with atomic_path(cache, ".npz") as tmp:
            np.savez_compressed(tmp, **demos)
    history = pretrain(model, demos, b, cfg.seed, progress=progress)
    for record in history:
        for key in ("loss", "accuracy", "value_mae", "nll"):
            model.logger.record(f"pretrain/{key}", record[key])
        model.logger.dump(record["epoch"])
    last = history[-1]
    write_json(run_dir / "pretrain.json", {"agent": b.agent, "decisions": len(demos["actions"]), **last})
    print(
        f"behaviour cloning of {b.agent} on {len(demos['actions'])} decisions: held-out accuracy "
        f"{last['accuracy']:.3f}, value MAE {last['value_mae']:.2f}",
        file=sys.stderr,
    )
