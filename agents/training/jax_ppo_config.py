"""The schema of ``agents.training.jax_ppo``: masked PPO whose rollouts and updates run together
in one jitted JAX step on the functional engine (``algorithm: jax_ppo``, ``backend: jax``;
section ``ppo``). The trained network plays as the ``jax_ppo`` agent in the closing table."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .config import Count, FinalEval, Name, Positive, Rate, Rule, Section, Share, TrainConfig, Weight, Widths


class JaxPPO(Section):
    """PureJaxRL-style PPO: ``num_envs`` games vmapped, ``num_steps`` decisions each, then epochs of minibatches."""

    num_envs: Positive = 512
    """Games played at once (vmapped); a finished game starts again at once."""
    num_steps: Positive = 64
    """Decisions of every game per update."""
    update_epochs: Positive = 4
    num_minibatches: Positive = 8
    learning_rate: Rate = 3.0e-4
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over ``total_timesteps``."""
    gamma: Share = 1.0
    """Discount; 1 makes the return of a game its final score."""
    gae_lambda: Share = 0.95
    clip_eps: Rate = 0.2
    ent_coef: Weight = 0.01
    vf_coef: Weight = 0.5
    max_grad_norm: Rate = 0.5
    reward_scale: Rate = 0.1
    """Rewards are multiplied by this for learning (the logged scores are in points)."""
    network: Literal["mlp", "cells"] = "mlp"
    """``mlp``: an MLP over the observation; ``cells``: plus logits of each action's consequence
    (``agents/networks/jax_policy.py``)."""
    hidden: Widths = [256, 256]
    """Widths of the actor's and the critic's MLP torsos."""
    channels: Positive = 32
    """(cells) Channels of the grid's convolution and of the consequence codes."""


class JaxEval(Section):
    every_steps: Count = 1_000_000
    """Evaluate every this many decisions (0: only at the end): greedy (argmax) play on fixed keys, in JAX."""
    games: Positive = 256
    seed: Count = 10_000
    """The evaluation's games are those of ``jax.random.key(seed)`` split ``games`` ways (the same every time)."""


class JaxCheckpoint(Section):
    every_steps: Count = 1_000_000
    """Save ``checkpoints/jax_ppo_<steps>_steps.npz`` every this many decisions (0: only at the end)."""


class JaxFinalEval(FinalEval):
    agents: list[str] = ["jax_ppo", "random", "greedy"]
    workers: Annotated[Count, Field(le=1)] = 1
    """1: the closing table plays in the trainer's process, beside its compiled JAX functions."""


class JaxPPOConfig(TrainConfig):
    """Masked PPO on the JAX engine, rollout and update jitted together."""

    trainer_entry = "agents.training.jax_ppo:train [jax]"
    resume_entry = "agents.training.jax_ppo:find_checkpoint [jax]"
    model_agent = "jax_ppo"
    backend: Literal["jax"] = "jax"
    algorithm: Literal["jax_ppo"] = "jax_ppo"
    experiment: Name = "jax_ppo"
    engine: Literal["numberdrop", "pgx_2048"] = "numberdrop"
    """``numberdrop``: the functional Number Drop; ``pgx_2048``: pgx's 2048 (a check of the learner alone)."""
    total_timesteps: Positive = 5_000_000
    """Decisions in all (``--total-steps``), rounded up to whole updates."""
    ship_to: str | None = None
    """Copy the best parameters here at the end."""
    ppo: JaxPPO = JaxPPO()
    eval: JaxEval = JaxEval()
    checkpoint: JaxCheckpoint = JaxCheckpoint()
    final_eval: JaxFinalEval = JaxFinalEval()

    def rules(self) -> list[Rule]:
        p = self.ppo
        batch = p.num_envs * p.num_steps
        return [
            (batch % p.num_minibatches == 0, "ppo.num_minibatches", "must divide ppo.num_envs * ppo.num_steps"),
            (
                self.final_eval.games == 0 or self.engine == "numberdrop",
                "final_eval.games",
                "must be 0 off Number Drop (engine)",
            ),
            (p.network == "mlp" or self.engine == "numberdrop", "ppo.network", "must be 'mlp' off Number Drop"),
            self.agents("final_eval.agents", model="jax_ppo"),
        ]
