"""Masked PPO wholly in JAX (``algorithm: jax_ppo``, ``backend: jax``): ``ppo.num_envs`` games of
the functional engine vmapped, ``ppo.num_steps`` decisions each sampled from the masked policy,
GAE and epochs of clipped-PPO minibatches, all one jitted update (PureJaxRL's shape). Between
updates: the periodic evaluation (argmax play on fixed keys, in JAX), checkpoints of the whole
carry (parameters, Adam state, the games in progress, the key) and Ctrl-C; a resumed run's
parameters are bit for bit a straight run's. See ``docs/research/jax-ppo.md``."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from ..networks import jax_policy
from . import common
from .checkpoints import Boundaries, Interrupted, atomic_path, keep_up_to, pick_checkpoint, read_arrays
from .jax_ppo_config import JaxPPOConfig
from .scalars import ScalarWriter

PREFIX = "jax_ppo"
KEEP = 2
"""Numbered checkpoints kept (the newest)."""


class Env(NamedTuple):
    """What the learner needs of a game: pure functions of its ``State``."""

    name: str
    num_actions: int
    obs_size: int
    init: Any
    step: Any
    observe: Any
    layout: Any = None
    """What the ``cells`` network reads of the rules (Number Drop only)."""


def make_env(name: str) -> Env:
    """The functional Number Drop, or pgx's 2048 (the learner checked on another stochastic game)."""
    if name == "pgx_2048":
        import pgx

        game = pgx.make("2048")

        def observe(state: Any) -> jax.Array:
            return state.observation.reshape(-1).astype(jnp.float32)

        size = int(np.prod(game.observation_shape))
        return Env(name, game.num_actions, size, game.init, game.step, observe)
    from numberdrop_env.functional import NumberDrop

    game = NumberDrop()
    size = int(np.prod(game.observation_shape))
    return Env(name, game.num_actions, size, game.init, game.step, game.observe, jax_policy.layout(game.rules))


class Carry(NamedTuple):
    """Everything an update reads and writes: a checkpoint is its leaves."""

    params: Any
    opt_state: Any
    games: Any
    key: jax.Array
    returns: jax.Array
    """Each game's points so far."""
    lengths: jax.Array


class Batch(NamedTuple):
    obs: jax.Array
    mask: jax.Array
    action: jax.Array
    logp: jax.Array
    value: jax.Array
    reward: jax.Array
    done: jax.Array


def batch_size(cfg: JaxPPOConfig) -> int:
    return cfg.ppo.num_envs * cfg.ppo.num_steps


def num_updates(cfg: JaxPPOConfig) -> int:
    return -(-cfg.total_timesteps // batch_size(cfg))


def optimizer(cfg: JaxPPOConfig) -> optax.GradientTransformation:
    p = cfg.ppo
    per_update = p.update_epochs * p.num_minibatches
    rate = (
        optax.linear_schedule(p.learning_rate, 0.0, num_updates(cfg) * per_update) if p.anneal_lr else p.learning_rate
    )
    return optax.chain(optax.clip_by_global_norm(p.max_grad_norm), optax.adam(rate, eps=1e-5))


def new_carry(cfg: JaxPPOConfig, env: Env) -> Carry:
    """A run's start: fresh parameters and games, all from ``cfg.seed``."""
    key = jax.random.PRNGKey(cfg.seed)
    key, k_params, k_games = jax.random.split(key, 3)
    p = cfg.ppo
    params = jax_policy.init_params(k_params, env.obs_size, env.num_actions, p.hidden, p.network, p.channels)
    games = jax.vmap(env.init)(jax.random.split(k_games, cfg.ppo.num_envs))
    zeros = jnp.zeros(cfg.ppo.num_envs, jnp.float32)
    return Carry(params, optimizer(cfg).init(params), games, key, zeros, zeros.astype(jnp.int32))


def _where(done: jax.Array, fresh: Any, old: Any) -> Any:
    def pick(a: jax.Array, b: jax.Array) -> jax.Array:
        return jnp.where(done.reshape(done.shape + (1,) * (a.ndim - 1)), a, b)

    return jax.tree.map(pick, fresh, old)


def make_update(cfg: JaxPPOConfig, env: Env) -> Any:
    """The jitted update: a rollout of every game, GAE, the PPO epochs; returns the new carry and
    the update's means (losses, entropy, finished games' points)."""
    p, tx, net = cfg.ppo, optimizer(cfg), jax_policy.make_apply(env.layout)
    n, steps = p.num_envs, p.num_steps

    def rollout_step(c: Carry, _: Any) -> tuple[Carry, tuple[Batch, jax.Array, jax.Array]]:
        key, k_act, k_step, k_reset = jax.random.split(c.key, 4)
        obs, mask = jax.vmap(env.observe)(c.games), c.games.legal_action_mask
        logits, value = net(c.params, obs, mask)
        action = jax.random.categorical(k_act, logits).astype(jnp.int32)
        logp = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], 1)[:, 0]
        games = jax.vmap(env.step)(c.games, action, jax.random.split(k_step, n))
        reward = games.rewards[:, 0].astype(jnp.float32)
        done = games.terminated | games.truncated
        returns, lengths = c.returns + reward, c.lengths + 1
        fresh = jax.vmap(env.init)(jax.random.split(k_reset, n))
        games = _where(done, fresh, games)
        finished = (jnp.where(done, returns, 0.0).sum(), jnp.where(done, lengths, 0).sum(), done.sum())
        c = c._replace(games=games, key=key, returns=jnp.where(done, 0.0, returns), lengths=jnp.where(done, 0, lengths))
        return c, (Batch(obs, mask, action, logp, value, reward * p.reward_scale, done), finished)

    def advantages(batch: Batch, last_value: jax.Array) -> tuple[jax.Array, jax.Array]:
        def back(carry: tuple[jax.Array, jax.Array], t: tuple[jax.Array, ...]) -> tuple[Any, jax.Array]:
            gae, next_value = carry
            reward, value, done = t
            live = 1.0 - done.astype(jnp.float32)
            delta = reward + p.gamma * next_value * live - value
            gae = delta + p.gamma * p.gae_lambda * live * gae
            return (gae, value), gae

        _, adv = jax.lax.scan(
            back, (jnp.zeros_like(last_value), last_value), (batch.reward, batch.value, batch.done), reverse=True
        )
        return adv, adv + batch.value

    def loss_fn(params: Any, mb: Batch, adv: jax.Array, target: jax.Array) -> tuple[jax.Array, dict[str, jax.Array]]:
        logits, value = net(params, mb.obs, mb.mask)
        logps = jax.nn.log_softmax(logits)
        logp = jnp.take_along_axis(logps, mb.action[:, None], 1)[:, 0]
        ratio = jnp.exp(logp - mb.logp)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        pg = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - p.clip_eps, 1 + p.clip_eps) * adv).mean()
        clipped = mb.value + jnp.clip(value - mb.value, -p.clip_eps, p.clip_eps)
        v_loss = 0.5 * jnp.maximum((value - target) ** 2, (clipped - target) ** 2).mean()
        entropy = -(jnp.exp(logps) * jnp.where(mb.mask, logps, 0.0)).sum(-1).mean()
        total = pg + p.vf_coef * v_loss - p.ent_coef * entropy
        kl = ((ratio - 1) - (logp - mb.logp)).mean()
        clipfrac = (jnp.abs(ratio - 1) > p.clip_eps).mean()
        return total, {
            "loss": total,
            "pg_loss": pg,
            "v_loss": v_loss,
            "entropy": entropy,
            "approx_kl": kl,
            "clipfrac": clipfrac,
        }

    grad_fn = jax.grad(loss_fn, has_aux=True)

    def update(c: Carry) -> tuple[Carry, dict[str, jax.Array]]:
        c, (batch, finished) = jax.lax.scan(rollout_step, c, None, steps)
        _, last_value = net(c.params, jax.vmap(env.observe)(c.games), c.games.legal_action_mask)
        adv, target = advantages(batch, last_value)
        flat = jax.tree.map(lambda x: x.reshape((n * steps,) + x.shape[2:]), (batch, adv, target))

        def epoch(state: tuple[Any, Any, jax.Array], _: Any) -> tuple[Any, dict[str, jax.Array]]:
            params, opt_state, key = state
            key, k_perm = jax.random.split(key)
            order = jax.random.permutation(k_perm, n * steps).reshape(p.num_minibatches, -1)

            def minibatch(inner: tuple[Any, Any], idx: jax.Array) -> tuple[Any, dict[str, jax.Array]]:
                params, opt_state = inner
                mb, a, t = jax.tree.map(lambda x: x[idx], flat)
                grads, info = grad_fn(params, mb, a, t)
                updates, opt_state = tx.update(grads, opt_state, params)
                return (optax.apply_updates(params, updates), opt_state), info

            (params, opt_state), info = jax.lax.scan(minibatch, (params, opt_state), order)
            return (params, opt_state, key), info

        key, k_epochs = jax.random.split(c.key)
        (params, opt_state, _), info = jax.lax.scan(epoch, (c.params, c.opt_state, k_epochs), None, p.update_epochs)
        points, lengths, games = (x.sum() for x in finished)
        metrics = {k: v.mean() for k, v in info.items()}
        metrics.update(games=games, points=points, decisions_per_game=lengths / jnp.maximum(games, 1))
        metrics["value_mean"] = batch.value.mean() / p.reward_scale
        return c._replace(params=params, opt_state=opt_state, key=key), metrics

    return jax.jit(update, donate_argnums=0)


def make_evaluate(env: Env, limit: int = 4000) -> Any:
    """Jitted argmax play of ``params`` on the games of ``keys`` to their end: each game's points
    and decisions (a game's rolls are drawn from its own key, the same for every ``params``)."""

    net = jax_policy.make_apply(env.layout)

    def evaluate(params: Any, keys: jax.Array) -> tuple[jax.Array, jax.Array]:
        games = jax.vmap(env.init)(keys)
        zeros = jnp.zeros(keys.shape[0], jnp.float32)

        def live(s: tuple[Any, ...]) -> jax.Array:
            games, _, _, t = s
            return ~jnp.all(games.terminated | games.truncated) & (t < limit)

        def body(s: tuple[Any, ...]) -> tuple[Any, ...]:
            games, points, decisions, t = s
            over = games.terminated | games.truncated
            logits, _ = net(params, jax.vmap(env.observe)(games), games.legal_action_mask)
            step_keys = jax.vmap(lambda k: jax.random.fold_in(k, t))(keys)
            games = jax.vmap(env.step)(games, jnp.argmax(logits, -1).astype(jnp.int32), step_keys)
            return games, points + jnp.where(over, 0.0, games.rewards[:, 0]), decisions + (~over), t + 1

        _, points, decisions, _ = jax.lax.while_loop(live, body, (games, zeros, zeros, jnp.int32(0)))
        return points, decisions

    return jax.jit(evaluate)


def meta(cfg: JaxPPOConfig, env: Env) -> dict[str, Any]:
    """What a saved network plays (read by the ``jax_ppo`` agent)."""
    p = cfg.ppo
    return {
        "env": env.name,
        "obs_size": env.obs_size,
        "num_actions": env.num_actions,
        "network": p.network,
        "hidden": list(p.hidden),
    }


def save_params(path: Path, params: Any, cfg: JaxPPOConfig, env: Env) -> Path:
    with atomic_path(path) as tmp:
        jax_policy.save(tmp, params, meta(cfg, env))
    return path


def _settings(cfg: JaxPPOConfig) -> dict[str, Any]:
    """What a resumed run must keep (the rest may change: the length, the evaluation, the closing table)."""
    return {"seed": cfg.seed, "env": cfg.engine, **cfg.ppo.model_dump()}


def save_checkpoint(
    path: Path, carry: Carry, steps: int, cfg: JaxPPOConfig, spent: tuple[float, float] = (0, 0)
) -> Path:
    """The carry's leaves, the step count, the settings and the run's CPU and wall seconds so far,
    written whole or not at all."""
    leaves = jax.tree.leaves(carry)
    arrays = {f"leaf_{i:04d}": np.asarray(x) for i, x in enumerate(leaves)}
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, steps=np.int64(steps), settings=np.array(repr(_settings(cfg))), spent=np.array(spent), **arrays)
    return path


def check_checkpoint(path: Path) -> int:
    """A checkpoint's step count; ``ValueError`` naming a damaged one."""
    return int(read_arrays(path, {"steps", "settings"}, "JAX PPO checkpoint")["steps"])


def find_checkpoint(path: str | Path) -> Path:
    """What ``--resume PATH`` continues: the checkpoint named, or a run's newest good one."""
    return pick_checkpoint(path, check_checkpoint)


def load_checkpoint(path: Path, template: Carry, cfg: JaxPPOConfig) -> tuple[Carry, int, tuple[float, float]]:
    data = read_arrays(path, {"steps", "settings"}, "JAX PPO checkpoint")
    if str(data["settings"]) != repr(_settings(cfg)):
        raise ValueError(f"{path} was trained with other settings (seed, env or ppo): a resumed run must keep them")
    leaves, tree = jax.tree.flatten(template)
    saved = [data.get(f"leaf_{i:04d}") for i in range(len(leaves))]
    if any(s is None or s.shape != np.shape(x) for s, x in zip(saved, leaves)):
        raise ValueError(f"{path}: a carry of another layout than this run's")
    carry = jax.tree.unflatten(tree, [jnp.asarray(s, dtype=x.dtype) for s, x in zip(saved, leaves)])
    return carry, int(data["steps"]), tuple(float(v) for v in data.get("spent", (0.0, 0.0)))


def evaluation(cfg: JaxPPOConfig, env: Env, run_dir: Path, start: int, log: Any) -> tuple[common.Evaluation, Any]:
    """The periodic evaluation (``common.Evaluation``: the same games each time, the paired gate
    keeps ``best.npz``); ``holder[0]`` is the parameters it evaluates."""
    keys = jax.random.split(jax.random.PRNGKey(cfg.eval.seed), cfg.eval.games)
    evaluate = make_evaluate(env)

    def measure(params: Any, steps: int) -> tuple[dict[str, float], list[common.Result]]:
        points, decisions = (np.asarray(x) for x in evaluate(params, keys))
        results = [
            common.Result(cfg.eval.seed + i, float(s), float(d)) for i, (s, d) in enumerate(zip(points, decisions))
        ]
        scalars = common.score_scalars(results, None)
        print(
            f"step {steps:,}: eval mean {scalars['score_mean']:.2f} on {len(results)} games",
            file=sys.stderr,
            flush=True,
        )
        return {**scalars, "decisions": scalars.pop("turns")}, results

    def save_best(params: Any) -> None:
        save_params(run_dir / "best.npz", params, cfg, env)

    return common.Evaluation(cfg, start, measure, save_best, log, best_file="best.npz"), evaluate


def ship(best: Path, target: Path) -> None:
    """Copy a network for play only: the actor's parameters (the critic is half the file)."""
    params, meta = jax_policy.load(best)
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(target) as tmp:
        jax_policy.save(tmp, jax_policy.actor(params), {**meta, "critic": False})
    print(f"shipped {best} -> {target} ({target.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)


def train(cfg: JaxPPOConfig, args: argparse.Namespace) -> dict[str, Any]:
    """Updates until ``total_timesteps`` (from a checkpoint with ``--resume``), then the closing table;
    ``interrupted: True`` and the checkpoint when Ctrl-C stopped it."""
    run_dir, resume, progress = common.open_run(cfg, args)
    env = make_env(cfg.engine)
    carry, steps, before = new_carry(cfg, env), 0, (0.0, 0.0)
    if resume is not None:
        carry, steps, before = load_checkpoint(Path(resume), carry, cfg)
        keep_up_to(run_dir / "evals.jsonl", steps)
        print(f"resuming {resume} at step {steps:,}", file=sys.stderr)
    else:
        for stale in ("checkpoints", "best.npz", "best.json", "evals.jsonl", "final.npz"):
            target = run_dir / stale
            shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
    common.write_config(cfg, run_dir)
    update, per_update, total = make_update(cfg, env), batch_size(cfg), num_updates(cfg) * batch_size(cfg)
    start, cpu0, trained = time.perf_counter(), time.process_time(), 0
    said: dict[str, Any] = {}
    with ScalarWriter(run_dir) as writer:
        evals, _ = evaluation(cfg, env, run_dir, steps if resume else 0, writer.write)
        holder = {"carry": carry}

        def save(n: int) -> Path:
            spent = (before[0] + time.process_time() - cpu0, before[1] + time.perf_counter() - start)
            path = save_checkpoint(run_dir / "checkpoints" / f"{PREFIX}_{n}_steps", holder["carry"], n, cfg, spent)
            for old in sorted(
                (run_dir / "checkpoints").glob(f"{PREFIX}_*_steps"), key=lambda q: int(q.name.split("_")[-2])
            )[:-KEEP]:
                old.unlink()
            return path

        boundaries = Boundaries(
            save, cfg.checkpoint.every_steps, lambda n, final: evals(holder["carry"].params, n, final), steps, resume
        )
        bar = common.StepProgress(total, steps, progress)
        try:
            with boundaries:
                try:
                    if resume is None and cfg.eval.every_steps:
                        evals.evaluate(carry.params, 0)  # the untrained policy: the curve's first point
                    boundaries(steps)
                    while steps < total:
                        tick = time.perf_counter()
                        carry, metrics = update(holder["carry"])
                        metrics = {k: float(v) for k, v in jax.device_get(metrics).items()}
                        holder["carry"], steps, trained = carry, steps + per_update, trained + per_update
                        scalars = {
                            f"train/{k}": metrics[k]
                            for k in ("loss", "pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac", "value_mean")
                        }
                        if metrics["games"]:
                            scalars["game/score"] = metrics["points"] / metrics["games"]
                            scalars["game/decisions"] = metrics["decisions_per_game"]
                            scalars["game/episodes"] = metrics["games"]
                        scalars["time/decisions_per_s"] = per_update / max(time.perf_counter() - tick, 1e-9)
                        writer.write(steps, scalars)
                        said = scalars
                        bar.to(steps, scalars.get("game/score"), evals.latest)
                        boundaries(steps, final=steps >= total)
                except Interrupted as stopped:
                    return common.stopped_early(args.config, run_dir, stopped.checkpoint, stopped.steps)
        finally:
            bar.close()
    seconds, cpu_s = before[1] + time.perf_counter() - start, before[0] + time.process_time() - cpu0
    if boundaries.requested:
        return common.stopped_early(args.config, run_dir, boundaries.latest, steps)
    save_params(run_dir / "final.npz", holder["carry"].params, cfg, env)
    if not (run_dir / "best.npz").exists():
        shutil.copy2(run_dir / "final.npz", run_dir / "best.npz")
    text = (
        f"trained {trained:,} decisions ({steps:,} in all, {seconds:.0f} s and {cpu_s:.0f} CPU-s with the "
        "evaluations); "
        f"this sitting {trained:,} in {seconds - before[1]:.0f} s ({trained / max(seconds - before[1], 1e-9):.0f}/s); "
        f"last self-play mean {said.get('game/score', float('nan')):.2f}, best eval mean {evals.best:.2f}"
    )
    numbers = {
        "best": str(run_dir / "best.npz"),
        "steps": steps,
        "trained": trained,
        "seconds": seconds,
        "cpu_seconds": cpu_s,
        "best_eval": evals.best,
    }
    curve = f"{cfg.experiment}: mean score on {cfg.eval.games} evaluation games (argmax, JAX)"
    if cfg.engine != "numberdrop":
        print(f"{text}; run dir {run_dir}", file=sys.stderr)
        common.write_learning_curve(run_dir, curve, "decisions")
        return {"run_dir": str(run_dir), **numbers, "final_eval": None}
    return common.close_out(cfg, run_dir, run_dir / "best.npz", text, numbers, progress, ship, curve, "decisions")
