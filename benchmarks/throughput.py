"""Steps and games per second of a random masked policy, next to CartPole-v1 (the floor of Python
environment overhead), in one process; below, the native vector environment's rate over the
single environment's (alternating windows) and the CPU-s per game of the shipped agent with its
strongest look-ahead (``train`` extra). ``docs/speed.md`` reads the table.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

from agents.cli.common import HelpFormatter, plain_text
from agents.evaluation.solo import advance, play_game
from agents.numberdrop.greedy import GreedyPolicy
from agents.registry import make_policy
from numberdrop_env import multiplayer_v0  # importing the package registers the environment ids
from numberdrop_env.engine.solo import SoloGame


def _window(run: Callable[[float], tuple[int, int]], seconds: float) -> np.ndarray:
    start = time.perf_counter()
    steps, games = run(start + seconds)
    return np.array([steps, games, time.perf_counter() - start])


def _timed(run: Callable[[float], tuple[int, int]], seconds: float) -> tuple[float, float]:
    run(time.perf_counter() + 0.2)  # compiles what the loop needs (cached after a first run) outside the timing
    steps, games, elapsed = _window(run, seconds)
    return steps / elapsed, games / elapsed


def _paired(
    first: Callable[[float], tuple[int, int]], second: Callable[[float], tuple[int, int]], seconds: float, windows: int
) -> tuple[tuple[float, float], tuple[float, float], float]:
    """Both loops' rates over alternating windows, and the median of second's over first's: a pair
    measured back to back shares the machine's load, which moves a lone window's rate up to 3x."""
    first(time.perf_counter() + 0.2), second(time.perf_counter() + 0.2)  # compiled outside the timing
    pairs = np.array([[_window(run, seconds / windows) for run in (first, second)] for _ in range(windows)])
    rates = pairs[:, :, 0] / pairs[:, :, 2]
    (s1, g1, t1), (s2, g2, t2) = pairs.sum(axis=0)
    return (s1 / t1, g1 / t1), (s2 / t2, g2 / t2), float(np.median(rates[:, 1] / rates[:, 0]))


def env_loop(env_id: str, masked: bool, **kwargs) -> Callable[[float], tuple[int, int]]:
    def run(deadline: float) -> tuple[int, int]:
        env = gym.make(env_id, **kwargs)
        rng = np.random.default_rng(0)
        _, info = env.reset(seed=0)
        steps = episodes = 0
        while steps == 0 or time.perf_counter() < deadline:
            if masked:
                legal = np.flatnonzero(info["action_mask"])
                action = legal[rng.integers(len(legal))]
            else:
                action = rng.integers(env.action_space.n)
            _, _, terminated, truncated, info = env.step(action)
            steps += 1
            if terminated or truncated:
                episodes += 1
                _, info = env.reset()
        return steps, episodes

    return run


def vector_loop(num_envs: int) -> Callable[[float], tuple[int, int]]:
    def run(deadline: float) -> tuple[int, int]:
        envs = gym.make_vec("NumberDropTurn-v0", num_envs=num_envs, vectorization_mode="vector_entry_point")
        rng = np.random.default_rng(0)
        _, info = envs.reset(seed=0)
        steps = episodes = 0
        while steps == 0 or time.perf_counter() < deadline:
            masks = info["action_mask"]
            picks = rng.random(num_envs) * masks.sum(axis=1)  # a uniform legal slot of each game, all at once
            actions = np.argmax(masks.cumsum(axis=1) > picks[:, None], axis=1)
            _, _, terminated, _, info = envs.step(actions)
            steps += num_envs
            episodes += int(terminated.sum())
        envs.close()
        return steps, episodes

    return run


def lookahead_seconds(games: int = 3) -> float:
    """CPU seconds of one core per game of the shipped agent with its strongest look-ahead."""
    policy = make_policy("ppo", {"lookahead": 8, "samples": 4, "refine": 3})  # needs the train extra
    play_game(policy, 10_000)  # compiled code and the network warm up outside the measurement
    start = time.thread_time()
    for seed in range(games):
        play_game(policy, seed)
    return (time.thread_time() - start) / games


def engine_loop(deadline: float) -> tuple[int, int]:
    rng = np.random.default_rng(0)
    steps = episodes = 0
    game = SoloGame(seed=0)
    while time.perf_counter() < deadline:
        legal = np.flatnonzero(game.legal_mask())
        game.step(int(legal[rng.integers(len(legal))]))
        steps += 1
        if game.is_over:
            episodes += 1
            game = SoloGame(seed=episodes)
    return steps, episodes


def greedy_loop(deadline: float) -> tuple[int, int]:
    policy = GreedyPolicy()
    turns = episodes = 0
    game = SoloGame(seed=0)
    while time.perf_counter() < deadline:
        advance(policy, game)
        if game.is_over:
            turns += game.turn
            episodes += 1
            game = SoloGame(seed=episodes)
            policy.reset(episodes)
    return turns + game.turn, episodes


def table_loop(players: int) -> Callable[[float], tuple[int, int]]:
    def run(deadline: float) -> tuple[int, int]:
        env = multiplayer_v0.env(num_players=players)
        rng = np.random.default_rng(0)
        env.reset(seed=0)
        steps = episodes = 0
        while steps == 0 or time.perf_counter() < deadline:
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                episodes += 1
                env.reset(seed=episodes)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        return steps, episodes

    return run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser("python -m benchmarks.throughput", description=plain_text(__doc__))
    parser.formatter_class = HelpFormatter
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    parser.add_argument("--vector-envs", type=int, default=16, help="games of the native vector environment")
    parser.add_argument("--lookahead-games", type=int, default=3, help="games timed for the look-ahead agent (0: none)")
    args = parser.parse_args(argv)
    single, vector, vector_ratio = _paired(
        env_loop("NumberDropTurn-v0", masked=True), vector_loop(args.vector_envs), 2 * args.seconds, windows=5
    )
    rows = [
        ("NumberDropTurn-v0 turns (K=32)", *single),
        (f"NumberDropTurn-v0 vector, {args.vector_envs} games", *vector),
        ("greedy agent, turns planned", *_timed(greedy_loop, args.seconds)),
        ("NumberDrop-v0 (gymnasium.make)", *_timed(env_loop("NumberDrop-v0", masked=True), args.seconds)),
        ("NumberDrop-v0 auto_forced=True", *_timed(env_loop("NumberDrop-v0", True, auto_forced=True), args.seconds)),
        ("SoloGame engine only", *_timed(engine_loop, args.seconds)),
        ("multiplayer_v0 AEC, 6 players", *_timed(table_loop(6), args.seconds)),
        ("CartPole-v1 (gymnasium.make)", *_timed(env_loop("CartPole-v1", masked=False), args.seconds)),
    ]
    floor = rows[-1][1]
    print(f"{'loop':<34} {'steps/s':>12} {'games/s':>9} {'vs CartPole':>12}")
    for name, steps, games in rows:
        print(f"{name:<34} {steps:>12,.0f} {games:>9,.1f} {steps / floor:>11.2%}")
    print(
        f"native vector environment: {vector_ratio:.2f}x the single environment's one-core rate"
        " (median of 5 windows, each next to one of the single environment)"
    )
    if args.lookahead_games > 0:
        seconds = lookahead_seconds(args.lookahead_games)
        print(f"look-ahead agent (ppo 8x4r3): {seconds:.2f} CPU-s per game (seeds 0..{args.lookahead_games - 1})")


if __name__ == "__main__":
    main()
