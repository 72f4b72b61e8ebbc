"""One game of each kind the runner plays: a solo game, a Number Drop table, a Lucky Numbers
table, and a table's seed under every rotation of the seats.

A game depends only on its seed and its agents, never on the process that plays it, so the
runner (``agents.evaluation.runner``) may play any seed anywhere and the results stay the same.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from luckynumbers_env import Game, Rules
from numberdrop_env.engine.rules import DEFAULT_RULES
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.engine.table import Table

from ..base import TurnPlayer
from ..registry import cached_policy


@dataclass(frozen=True)
class GameResult:
    """One solo game, as the solo table reports it."""

    seed: int
    score: int
    turns: int
    decisions: int
    lines: int
    boxes: int
    game_over_line: bool
    seconds: float
    breakdown: dict[str, int]


def advance(policy: Any, game: SoloGame) -> int:
    """Play the pending decision, or the rest of the turn where the policy plays whole turns;
    returns the number of decisions played."""
    if isinstance(policy, TurnPlayer):
        played = policy.play_turn(game)
        if played:
            return played
    game.step(policy.act(game, game.legal_mask()))
    return 1


def play_game(policy: Any, seed: int) -> GameResult:
    """One full solo game; the policy is reset with the game's seed."""
    game = SoloGame(DEFAULT_RULES, seed=seed)
    policy.reset(seed)
    decisions = 0
    start = time.perf_counter()
    while not game.is_over:
        decisions += advance(policy, game)
    sheet = game.sheet
    return GameResult(
        seed=seed,
        score=game.score(),
        turns=game.turn,
        decisions=decisions,
        lines=int(sheet.lines.sum()),
        boxes=int(sheet.identical.sum() + sheet.consecutive.sum() + sheet.bonus),
        game_over_line=bool(sheet.penalties.any()),
        seconds=time.perf_counter() - start,
        breakdown=sheet.score_breakdown(),
    )


def lineup(agents: list[str], players: int) -> list[str]:
    """The agent of each seat before rotation: the agents cycled round the table."""
    return [agents[p % len(agents)] for p in range(players)]


def seat_policies(seats: list[str], seed: int, options: dict[str, dict[str, Any]], game: str) -> list[Any]:
    """One policy per seat (built once per process), reset for this game."""
    policies = []
    for p, name in enumerate(seats):
        policies.append(cached_policy(name, options.get(name), game, seat=p))
        policies[-1].reset(seed * 8 + p)
    return policies


def play_table(seats: list[str], seed: int, options: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One Number Drop game; ``seats[p]`` names the agent of seat ``p``."""
    table = Table(len(seats), seed=seed)
    policies = seat_policies(seats, seed, options, "numberdrop")
    while not table.over:
        p = table.to_act()[0]
        table.step(p, policies[p].act(table.seats[p], table.legal_mask(p)))
    return {"scores": table.scores().tolist(), "winners": table.winners(), "turns": table.turn}


def play_lucky_table(
    seats: list[str], seed: int, options: dict[str, dict[str, Any]], setup: str = "standard", bruno: bool = False
) -> dict[str, Any]:
    """One Lucky Numbers game; ``seats[p]`` names the agent of seat ``p``."""
    game = Game(Rules(players=len(seats), setup=setup, bruno=bruno), seed=seed)
    policies = seat_policies(seats, seed, options, "luckynumbers")
    decisions = 0
    start = time.perf_counter()
    while not game.over:
        p = game.player
        game.step(policies[p].act(game, game.legal_mask()))
        decisions += 1
    return {
        "scores": game.scores().tolist(),
        "winners": game.winners,
        "turns": game.turn,
        "empty": [game.empty_cells(p) for p in range(len(seats))],
        "ended_by": game.ended_by,
        "decisions": decisions,
        "seconds": time.perf_counter() - start,
    }


def play_rotations(
    play: Callable[..., dict[str, Any]], agents: list[str], players: int, seed: int, options: dict[str, dict[str, Any]]
) -> tuple[int, list[dict[str, Any]]]:
    """``seed`` played once per rotation of the seats, by ``play(seats, seed, options)``."""
    base = lineup(agents, players)
    games = []
    for r in range(players):
        seats = [base[(p + r) % players] for p in range(players)]
        games.append({"seats": seats, **play(seats, seed, options)})
    return seed, games
