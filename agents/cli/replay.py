"""Recorded games, a small JSON file: the start (a seed or a saved position) and the actions,
played back exactly (every roll comes from the game's own generator); ``frames`` and
``save_gif`` turn a replay into pictures."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gamekit.checks import expect_keys
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.render.draw import draw_game
from numberdrop_env.render.text import decision_words

FORMAT = "numberdrop-record"
VERSION = 1


@dataclass
class Record:
    """One game as its start and its actions. ``seed`` starts a new game, ``state`` a saved one."""

    actions: list[int] = field(default_factory=list)
    seed: int | None = 0
    state: dict[str, Any] | None = None
    player: str = ""
    """Who chose the actions (an agent's name, ``human``): for people reading the file."""
    score: int | None = None
    """The score after the last action, checked on replay."""

    def __post_init__(self) -> None:
        if (self.seed is None) == (self.state is None):
            raise ValueError("a record starts from exactly one of seed and state")
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0):
            raise ValueError(f"record seed must be a non-negative int, got {self.seed!r}")
        if not isinstance(self.actions, list) or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in self.actions
        ):
            raise TypeError("record actions must be a list of ints")

    def start(self) -> SoloGame:
        """The game before the first recorded action (a fresh object each time)."""
        return SoloGame(seed=self.seed) if self.state is None else SoloGame.from_dict(self.state)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "player": self.player,
            "seed": self.seed,
            "state": self.state,
            "actions": list(self.actions),
            "score": self.score,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Record:
        if not isinstance(data, dict):
            raise TypeError(f"a record is a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT or data.get("version") != VERSION:
            raise ValueError(
                f"not a {FORMAT} version {VERSION} file (format {data.get('format')!r}, "
                f"version {data.get('version')!r})"
            )
        expect_keys(data, {"format", "version", "player", "seed", "state", "actions", "score"}, "record")
        score = data["score"]
        if score is not None and (isinstance(score, bool) or not isinstance(score, int)):
            raise TypeError(f"record score must be an int or null, got {score!r}")
        return cls(
            actions=data["actions"], seed=data["seed"], state=data["state"], player=str(data["player"]), score=score
        )

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict()) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Record:
        try:
            data = json.loads(Path(path).read_text())
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}: not a JSON record ({err})") from err
        return cls.from_dict(data)


def replay(record: Record) -> Iterator[tuple[SoloGame, str, int]]:
    """Play the record's actions one by one (a ValueError when it does not fit its game): after
    each, the game, the decision in words and its points. The game is the same live object
    every time, moved on: copy what you keep."""
    game = record.start()
    for i, action in enumerate(record.actions):
        if game.is_over or not 0 <= action < game.layout.size or not game.legal_mask()[action]:
            raise ValueError(
                f"action {i} ({action}) is not legal in the replayed game (phase "
                f"{game.phase.value}): the record does not belong to this game"
            )
        words = decision_words(game, action)
        yield game, words, game.step(action)
    if record.score is not None and game.score() != record.score:
        raise ValueError(f"the replay scores {game.score()}, the record says {record.score}")


def final_game(record: Record) -> SoloGame:
    """The game after all the record's actions."""
    steps = list(replay(record))
    return steps[-1][0] if steps else record.start()


def frames(record: Record, per_turn: bool = False) -> Iterator[Any]:
    """Pictures of the replay (PIL images): the start, then one per decision, or with
    ``per_turn`` one at each new roll and one at the end. Cells written since the
    previous picture are highlighted; the caption says what was played."""
    who = f"{record.player}: " if record.player else ""

    def picture(game: SoloGame, before: np.ndarray, caption: str) -> Any:
        fresh = [(int(r), int(c)) for r, c in zip(*np.nonzero(game.sheet.values != before))]
        return draw_game(game, fresh=fresh, caption=who + caption)

    game = record.start()
    yield draw_game(game, caption=f"{who}the game starts")
    before, turn, played, points = game.sheet.values.copy(), game.turn, [], 0
    for n, (game, words, gained) in enumerate(replay(record), 1):
        played.append(words)
        points += gained
        if per_turn and game.turn == turn and not game.is_over:
            continue
        # numbered, so no two pictures are alike (a GIF writer merges identical frames)
        yield picture(game, before, _turn_caption(turn, played, points) if per_turn else f"{n}. {words}")
        before, turn, played, points = game.sheet.values.copy(), game.turn, [], 0
    if played:  # a record that stops inside a turn (a game left unfinished) ends on its last decision
        yield picture(game, before, _turn_caption(turn, played, points) + " (unfinished)")


def _turn_caption(turn: int, played: list[str], points: int) -> str:
    """What a turn did: its drops and its combination, without the slides and the writing."""
    if turn == 0:
        return played[0]
    kept = [w for w in played if w.startswith(("drop", "score", "pass"))]
    return f"turn {turn}: " + "; ".join(kept) + f" ({points:+d} points)"


def save_gif(images: list[Any], path: str | Path, frame_ms: int, last_ms: int = 3000) -> int:
    """Write an animated GIF that loops, the last picture held ``last_ms``; returns the frame count."""
    if not images:
        raise ValueError("a GIF needs at least one picture")
    durations = [frame_ms] * (len(images) - 1) + [last_ms]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=True)
    return len(images)
