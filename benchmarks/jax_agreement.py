"""Random legal games and the golden games played by the engine and the JAX engine in lock-step,
the engine's dice given to the JAX engine: the decisions at which anything disagrees (the mask,
the reward, a field of the game, the score by its parts, the end, the observation), counted and
written to a results/ JSON. ``python -m benchmarks.jax_agreement --games 2000``."""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import jax
import numpy as np

from agents.numberdrop.greedy import GreedyPolicy
from numberdrop_env.engine.rules import X
from numberdrop_env.engine.sheet import SCORE_PARTS
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.envs.observe import observe as decision_observation
from numberdrop_env.functional import NumberDrop, from_game, game_fields
from tests.golden.golden_playthrough import GOLDEN, SEEDS

ENV = NumberDrop()


def faces_of(game: SoloGame) -> np.ndarray:
    """The face indices of the game's roll (zeros before the first roll)."""
    r = game.rules
    if game.dice is None:
        return np.zeros(len(r.number_dice) + 1, np.int32)
    return np.array([*(d.index(v) for d, v in zip(r.number_dice, game.dice)), r.shape_die.index(game.shape_face)])


def _step(state, action, faces):
    state = ENV.step_with_faces(state, action, faces)
    return state, ENV.breakdown(state), ENV.observe(state)


BATCHED = jax.jit(jax.vmap(_step))


def disagreements(game: SoloGame, state, i: int, reward: float, parts, observation) -> list[str]:
    """What differs between game and the batch's ``i``-th state after one decision."""
    found = [name for name, want in game_fields(game).items() if not np.array_equal(getattr(state, name)[i], want)]
    if not np.array_equal(state.legal_action_mask[i], game.legal_mask()):
        found.append("mask")
    if state.rewards[i, 0] != reward:
        found.append("reward")
    if [int(parts[k][i]) for k in SCORE_PARTS] != list(game.sheet.score_breakdown().values()):
        found.append("breakdown")
    if bool(state.terminated[i]) != game.is_over:
        found.append("end")
    shown = np.concatenate([p.reshape(-1) for p in decision_observation(game).values()])
    if not np.allclose(observation[i], shown, atol=1e-6):
        found.append("observation")
    return found


def choose(game: SoloGame, rng: np.random.Generator, combos: bool) -> int:
    """A random legal action; with ``combos`` a combination is grown and confirmed whenever one can
    be (the boxes, letters, bonus and column bonuses then come into play)."""
    mask = game.legal_mask()
    if combos and game.phase.value == "combo":
        layout = game.layout
        if mask[layout.confirm]:
            return layout.confirm
        if mask[layout.select : layout.confirm].any():
            mask = mask.copy()
            mask[layout.pass_] = False
    return int(rng.choice(np.flatnonzero(mask)))


def stacked_states(games: list[SoloGame]):
    """The JAX engine's states of ``games``, one leading axis for the batch."""
    return jax.tree.map(lambda *xs: np.stack(xs), *[from_game(g) for g in games])


def engine_moves(games: list[SoloGame], pick: Callable[[int, SoloGame], int]) -> tuple[np.ndarray, np.ndarray]:
    """Each unfinished game plays ``pick(i, game)`` on the engine: the actions and the engine's
    rewards, 0 for the finished games, to give the JAX engine the same decisions."""
    actions = np.zeros(len(games), np.int32)
    rewards = np.zeros(len(games), np.float32)
    for i, game in enumerate(games):
        if not game.is_over:
            actions[i] = pick(i, game)
            rewards[i] = game.step(int(actions[i]))
    return actions, rewards


def play_batch(seeds: list[int], policy_seed: int, plans=None, greedy: bool = False) -> dict:
    """Play one batch of games to their ends in lock-step; ``plans`` (lists of actions, the golden
    games) or the greedy agent (long games: every tile down, column bonuses) replace the random policy."""
    games = [SoloGame(seed=s) for s in seeds]
    rng = np.random.default_rng(policy_seed)
    agents = [GreedyPolicy() for _ in games] if greedy else []
    for agent, seed in zip(agents, seeds):
        agent.reset(seed)
    state = stacked_states(games)
    decisions, kinds, bad = 0, Counter(), 0
    n = 0

    def pick(i: int, game: SoloGame) -> int:
        if plans:
            return plans[i][n]
        if greedy:
            return agents[i].act(game, game.legal_mask())
        return choose(game, rng, combos=i % 2 == 1)

    while not all(g.is_over for g in games):
        actions, rewards = engine_moves(games, pick)
        live = [not bool(t) for t in np.asarray(state.terminated)]
        out = BATCHED(state, actions, np.stack([faces_of(g) for g in games]))
        state, parts, observations = jax.tree.map(np.asarray, out)
        for i, game in enumerate(games):
            if live[i]:
                decisions += 1
                found = disagreements(game, state, i, rewards[i], parts, observations)
                kinds.update(found)
                bad += bool(found)
        n += 1
    return {"decisions": decisions, "disagreements": bad, "kinds": dict(kinds), "reached": reached(games)}


def reached(games: list[SoloGame]) -> dict[str, int]:
    """How many of the finished games reached each rarer part of the rules."""
    sheets = [g.sheet for g in games]
    return {
        "a combination scored": sum(bool(s.used.any()) for s in sheets),
        "a letter circled": sum(bool(s.circled.any()) for s in sheets),
        "the bonus": sum(bool(s.bonus) for s in sheets),
        "a column bonus": sum(bool(s.identical.all() or s.consecutive.all()) for s in sheets),
        "a line": sum(bool(s.lines.any()) for s in sheets),
        "a block dropped": sum(bool((s.values == X).any()) for s in sheets),
        "a penalty row": sum(bool(s.penalties.any()) for s in sheets),
        "every tile at its last notch": sum(bool((g.notches >= g.rules.last_notch).all()) for g in games),
    }


def golden() -> dict:
    plans = []
    for seed in SEEDS:
        records = [json.loads(line) for line in (GOLDEN / f"solo_seed{seed}.jsonl").read_text().splitlines()]
        plans.append([r["action"]["action"] for r in records])
    out = play_batch(list(SEEDS), 0, plans=plans)
    return {"games": len(SEEDS), **out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--greedy-games", type=int, default=200, help="games of the greedy agent (seeds from 100,000)")
    parser.add_argument(
        "--out", type=Path, default=None, help="results JSON (default results/jax_agreement_<games>.json)"
    )
    args = parser.parse_args()
    cpu, wall = time.process_time(), time.perf_counter()
    total = {"decisions": 0, "disagreements": 0, "kinds": Counter(), "reached": Counter()}
    for start in range(0, args.games, args.batch):
        seeds = list(range(start, min(start + args.batch, args.games)))
        out = play_batch(seeds, policy_seed=start)
        total["decisions"] += out["decisions"]
        total["disagreements"] += out["disagreements"]
        total["kinds"].update(out["kinds"])
        total["reached"].update(out["reached"])
        print(f"games {seeds[-1] + 1}: {total['decisions']} decisions, {total['disagreements']} disagreements")
    result = {
        "what": "random legal games (seeds 0..games-1, the policy seeded per batch; every other game grows "
        "and confirms a combination whenever one can be) and the golden games, played by SoloGame and "
        "numberdrop_env.functional in lock-step under jit(vmap); a disagreement is a decision after which "
        "the mask, reward, a to_dict field, the score breakdown, the end or the observation differ",
        "command": f"python -m benchmarks.jax_agreement --games {args.games} --batch {args.batch} "
        f"--greedy-games {args.greedy_games}",
        "games": args.games,
        "decisions": total["decisions"],
        "disagreements": total["disagreements"],
        "disagreement_kinds": dict(total["kinds"]),
        "games_reaching": dict(total["reached"]),
        "greedy": {
            "games": args.greedy_games,
            **play_batch(list(range(100_000, 100_000 + args.greedy_games)), 0, greedy=True),
        },
        "golden": golden(),
        "cpu_s": round(time.process_time() - cpu, 1),
        "wall_s": round(time.perf_counter() - wall, 1),
        "jax": jax.__version__,
    }
    out = args.out or Path("results") / f"jax_agreement_{args.games}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
