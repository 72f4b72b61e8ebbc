"""Decisions per second of random legal play in the JAX engine (``numberdrop_env.functional``) on
the CPU at several batch sizes, beside ``NumberDrop-v0``, the native vector environment and
CartPole-v1 (the floor of Python environment overhead) in the same run, and the CPU seconds of the
first jit of the batched step in a fresh process, with JAX's persistent compilation cache empty and
then filled. XLA runs on one thread (one core) unless ``--threads`` says otherwise.
``python -m benchmarks.jax_speed`` (``make bench-jax``); ``--json`` writes the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _one_thread() -> None:
    """XLA's CPU client on one thread: set before jax is imported."""
    flags = os.environ.get("XLA_FLAGS", "")
    if "intra_op_parallelism_threads" not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1".strip()


FIRST_JIT = """
import sys, time
cpu = time.process_time()
import jax
if sys.argv[1]:
    jax.config.update("jax_compilation_cache_dir", sys.argv[1])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
from numberdrop_env.functional import NumberDrop
env = NumberDrop()
imported = time.process_time()
keys = jax.random.split(jax.random.PRNGKey(0), int(sys.argv[2]))
states = jax.jit(jax.vmap(env.init))(keys)
actions = jax.numpy.zeros(len(keys), jax.numpy.int32)
start = time.process_time()
step = jax.jit(jax.vmap(env.step)).lower(states, actions, keys).compile()
jax.block_until_ready(step(states, actions, keys))
print(imported - cpu, time.process_time() - start)
"""


def first_jit(batch: int) -> dict[str, float]:
    """CPU-s of the first jit of the batched step in fresh processes: no cache, an empty cache
    (filled by that run), then the filled cache."""
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        for name, where in (("no_cache", ""), ("cache_empty", cache), ("cache_filled", cache)):
            done = subprocess.run(
                [sys.executable, "-c", FIRST_JIT, where, str(batch)], capture_output=True, text=True, check=True
            )
            imported, compiled = (float(x) for x in done.stdout.split())
            out[name] = round(compiled, 2)
            out[f"{name}_import"] = round(imported, 2)
    return out


def jax_rate(batch: int, seconds: float, scan: int) -> dict[str, float]:
    """Random legal play at one batch size: each call plays ``scan`` steps of every game (a finished
    game starts again), so one decision is one step of one game."""
    import jax
    import jax.numpy as jnp

    from numberdrop_env.functional import NumberDrop
    from numberdrop_env.functional.play import select_tree

    env = NumberDrop()

    def one(state, key):
        pick, roll, fresh = jax.random.split(key, 3)
        legal = jnp.cumsum(state.legal_action_mask)  # a uniform legal action from one uniform number
        action = jnp.argmax(legal > jnp.floor(jax.random.uniform(pick) * legal[-1]))
        state = env.step(state, action, roll)
        return select_tree(state.terminated, env.init(fresh), state), state.terminated

    def play(state, key):
        keys = jax.random.split(key, (scan, batch))
        state, ended = jax.lax.scan(jax.vmap(one), state, keys)
        return state, ended.sum()

    play = jax.jit(play)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), batch))
    key = jax.random.PRNGKey(1)
    state, _ = play(state, key)  # compiled outside the timing
    jax.block_until_ready(state)
    calls = games = 0
    wall, cpu = time.perf_counter(), time.process_time()
    while calls == 0 or time.perf_counter() - wall < seconds:
        key, sub = jax.random.split(key)
        state, ended = play(state, sub)
        games += int(ended)
        calls += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    decisions = calls * scan * batch
    return {"decisions_per_s": decisions / wall, "decisions_per_cpu_s": decisions / cpu, "games_per_s": games / wall}


def python_rates(seconds: float, vector_envs: int) -> dict[str, dict[str, float]]:
    """The Python loops of ``benchmarks.throughput``, per second and per CPU-second of this process."""
    from benchmarks.throughput import env_loop, vector_loop

    out = {}
    for name, loop in (
        ("NumberDrop-v0", env_loop("NumberDrop-v0", masked=True)),
        (f"NumberDropTurn-v0 native vector, {vector_envs} games (turns)", vector_loop(vector_envs)),
        ("CartPole-v1", env_loop("CartPole-v1", masked=False)),
    ):
        loop(time.perf_counter() + 0.2)  # compiled code loaded outside the timing
        wall, cpu = time.perf_counter(), time.process_time()
        steps, games = loop(wall + seconds)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        out[name] = {"decisions_per_s": steps / wall, "decisions_per_cpu_s": steps / cpu, "games_per_s": games / wall}
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser("python -m benchmarks.jax_speed", description=__doc__)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--batches", default="1,64,1024,8192", help="batch sizes, comma-separated")
    parser.add_argument("--scan", type=int, default=16, help="steps of every game per compiled call")
    parser.add_argument("--vector-envs", type=int, default=16)
    parser.add_argument("--threads", action="store_true", help="let XLA use every core")
    parser.add_argument("--json", type=Path, default=None, help="write the numbers here")
    args = parser.parse_args(argv)
    if not args.threads:
        _one_thread()
    rows = python_rates(args.seconds, args.vector_envs)
    for batch in (int(b) for b in args.batches.split(",")):
        rows[f"JAX engine, batch {batch}"] = jax_rate(batch, args.seconds, args.scan)
    floor = rows["CartPole-v1"]["decisions_per_cpu_s"]
    single = rows["NumberDrop-v0"]["decisions_per_cpu_s"]
    print("decisions per CPU-second of this process (the machine's load moves the per-second rates)")
    print(f"{'loop':<52} {'decisions/s':>12} {'per CPU-s':>10} {'vs NumberDrop-v0':>17} {'vs CartPole':>12}")
    for name, row in rows.items():
        rate, per_cpu = row["decisions_per_s"], row["decisions_per_cpu_s"]
        print(f"{name:<52} {rate:>12,.0f} {per_cpu:>10,.0f} {per_cpu / single:>16.2f}x {per_cpu / floor:>11.2%}")
    jit = first_jit(1024)
    print(
        f"first jit of the batched step (batch 1024), fresh process: {jit['no_cache']:.1f} CPU-s; "
        f"persistent cache empty {jit['cache_empty']:.1f} CPU-s, filled {jit['cache_filled']:.1f} CPU-s "
        f"(importing the package {jit['no_cache_import']:.1f} CPU-s)"
    )
    if args.json:
        import jax

        result = {
            "command": "python -m benchmarks.jax_speed " + " ".join(argv if argv is not None else sys.argv[1:]),
            "xla_flags": os.environ.get("XLA_FLAGS", ""),
            "jax": jax.__version__,
            "rates": rows,
            "first_jit_cpu_s": jit,
        }
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
