"""Soak test of saved states: random games played to the end through the PettingZoo environments,
each final state saved as JSON and reloaded, every observation checked against its space.

The tests play 30 tables and 24 Lucky Numbers games; the long run is
``python -m tests.gamekit.test_state_soak [--tables 2000] [--lucky 2000] [--seed 0]``. Tables have 2
to 6 players in turn; half of them are played by a uniformly random legal policy, half by one
that scores a combination whenever it can (so letters get circled and games end on block
turns). Lucky Numbers games rotate 2, 3 and 4 players, the standard and Michael's setup, with
and without Bruno's variant. A *refused round trip* is a final state that ``from_dict`` refuses
or rebuilds differently, or that the environment cannot be reset to; an *observation outside
its space* is one that ``observation_space(agent).contains`` rejects (during play, and after
the reload). Both must be 0: the command exits with status 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from luckynumbers_env import Game, lucky_numbers_v0
from luckynumbers_env import Rules as LuckyRules
from numberdrop_env import Phase, multiplayer_v0
from numberdrop_env.engine.table import Table

LUCKY_VARIANTS = [
    LuckyRules(players=p, setup=s, bruno=b) for s in ("standard", "michael") for b in (False, True) for p in (2, 3, 4)
]


@dataclass
class Tally:
    """What one engine's soak found."""

    games: int = 0
    decisions: int = 0
    observations: int = 0
    outside: int = 0
    refused: int = 0
    examples: list[str] = field(default_factory=list)
    endings: Counter = field(default_factory=Counter)

    def note(self, problem: str) -> None:
        if len(self.examples) < 5:
            self.examples.append(problem)


def _check(tally: Tally, env: Any, observations: dict[str, Any], where: str) -> None:
    for agent, obs in observations.items():
        tally.observations += 1
        if not env.observation_space(agent).contains(obs):
            tally.outside += 1
            values = obs["observation"]
            tally.note(
                f"{where} {agent}: observation outside its space at indices "
                f"{np.flatnonzero((values < 0) | (values > 1))[:8].tolist()}, max {values.max():.3f}"
            )


def _eager(mask: np.ndarray, seat: Any, rng: np.random.Generator) -> int:
    """A legal decision that scores a combination whenever it can."""
    legal = np.flatnonzero(mask)
    if seat.phase is Phase.COMBO:
        layout = seat.layout
        if mask[layout.confirm]:
            return layout.confirm
        select = legal[(legal >= layout.select) & (legal < layout.pass_)]
        if len(select):
            return int(rng.choice(select))
    return int(rng.choice(legal))


def soak_tables(games: int, seed: int) -> Tally:
    tally = Tally()
    envs = {n: multiplayer_v0.parallel_env(num_players=n) for n in range(2, 7)}
    reloads = {n: multiplayer_v0.raw_env(num_players=n) for n in range(2, 7)}
    for g in range(games):
        n, eager = 2 + g % 5, g % 2 == 1
        env, rng = envs[n], np.random.default_rng(seed + g)
        observations, _ = env.reset(seed=seed + g)
        _check(tally, env, observations, f"table {g}")
        block_turn = False
        while env.agents:
            block_turn = env.table.block_letter is not None
            actions = {}
            for agent, obs in observations.items():
                mask = obs["action_mask"].astype(bool)[: env.wait_action]
                if mask.any():  # a waiting seat is left out
                    seat = env.table.seats[env.agent_seat[agent]]
                    actions[agent] = _eager(mask, seat, rng) if eager else int(rng.choice(np.flatnonzero(mask)))
            observations, _, _, _, _ = env.step(actions)
            tally.decisions += len(actions)
            _check(tally, env, observations, f"table {g}")
        tally.games += 1
        tally.endings["ended on a block turn" if block_turn else "ended on a tetromino turn"] += 1
        _round_trip(tally, env.get_state(), Table.from_dict, reloads[n], f"table {g}")
    return tally


def soak_lucky(games: int, seed: int) -> Tally:
    tally = Tally()
    envs = [lucky_numbers_v0.raw_env(rules=rules) for rules in LUCKY_VARIANTS]
    for g in range(games):
        env, rng = envs[g % len(envs)], np.random.default_rng(seed + g)
        env.reset(seed=seed + g)
        while not env.game.over:
            _check(tally, env, {a: env.observe(a) for a in env.agents}, f"lucky {g}")
            env.step(int(rng.choice(env.game.legal_actions())))
            tally.decisions += 1
        _check(tally, env, {a: env.observe(a) for a in env.agents}, f"lucky {g}")
        tally.games += 1
        tally.endings[f"ended by {env.game.ended_by}"] += 1
        _round_trip(tally, env.get_state(), Game.from_dict, env, f"lucky {g}")
    return tally


def _round_trip(tally: Tally, state: dict[str, Any], load: Callable[[Any], Any], env: Any, where: str) -> None:
    """Save the final state as JSON, load it back, and reset an environment to it."""
    data = json.loads(json.dumps(state))
    try:
        same = load(data).to_dict() == state
        env.reset(options={"state": json.loads(json.dumps(state))})
    except (ValueError, TypeError) as err:
        tally.refused += 1
        tally.note(f"{where}: final state refused: {err}")
        return
    if not same:
        tally.refused += 1
        tally.note(f"{where}: final state reloaded differently")
        return
    _check(tally, env, {a: env.observe(a) for a in env.possible_agents}, f"{where} reloaded")


def report(name: str, tally: Tally, seconds: float) -> str:
    lines = [
        f"{name}: {tally.games} games, {tally.decisions} decisions, {seconds:.0f} s",
        f"  refused round trips: {tally.refused}",
        f"  observations outside their space: {tally.outside} of {tally.observations}",
        "  " + ", ".join(f"{k}: {v}" for k, v in sorted(tally.endings.items())),
    ]
    return "\n".join(lines + [f"  e.g. {e}" for e in tally.examples])


@pytest.mark.parametrize("soak,games", [(soak_tables, 30), (soak_lucky, 24)], ids=["tables", "lucky"])
def test_final_states_reload_and_observations_stay_in_their_spaces(soak: Callable[[int, int], Tally], games: int):
    tally = soak(games, 0)
    assert tally.games == games
    assert (tally.refused, tally.outside) == (0, 0), tally.examples
    assert len(tally.endings) >= 2, tally.endings  # both kinds of ending (or more) are reached


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=2000, help="random 2-6 player tables")
    parser.add_argument("--lucky", type=int, default=2000, help="random Lucky Numbers games")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    failed = False
    for name, soak, games in (("tables", soak_tables, args.tables), ("lucky", soak_lucky, args.lucky)):
        start = time.perf_counter()
        tally = soak(games, args.seed)
        print(report(name, tally, time.perf_counter() - start), flush=True)
        failed |= bool(tally.refused or tally.outside)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
