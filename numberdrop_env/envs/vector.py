"""``NumberDropTurn-v0`` as a native vector environment: N games, each a packed row of the turn
planner inside a turn, stepped in one compiled call (``docs/envs/vector.md``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from gamekit.checks import positive_int

from ..engine.actions import Phase
from ..engine.rules import DEFAULT_RULES, Rules
from ..engine.solo import SoloGame, roll_faces, roll_of
from ..numba_cache import warn_if_not_compiled
from ..planner.turns import TurnCandidates, TurnPlanner, batch_arrays
from ..render.draw import picture
from .base import BREAKDOWN_KEYS, breakdown_info, check_render_and_rules, game_from_options
from .turn import (
    CANDIDATE_FEATURES,
    afterstate_planes,
    boxes_scored,
    check_slots,
    check_turn_start,
    observe_turn,
    packed_states,
    state_size,
    turn_spaces,
)

N_FEATURES = len(CANDIDATE_FEATURES)
INFO_KEYS = ("action_mask", "score", "score_breakdown", "turn", "candidate_count", "boxes", "illegal_action")
_NONE = TurnCandidates.from_candidates([])
ROLLS_AHEAD = 32
"""Rolls each packed game draws from its generator at once."""


class NumberDropTurnVectorEnv(VectorEnv):
    """``num_envs`` games of ``NumberDropTurn-v0`` stepped together, each as one ``NumberDropTurnEnv``
    would play it; autoreset is ``NEXT_STEP`` (``docs/envs/vector.md``)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2, "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int = 1,
        render_mode: str | None = None,
        rules: Rules = DEFAULT_RULES,
        candidates: int = 32,
        width: int = 12,
        block_width: int = 3,
        afterstates: bool = False,
    ) -> None:
        self.num_envs = positive_int(num_envs, "num_envs")
        check_render_and_rules(self.metadata, render_mode, rules)
        self.render_mode = render_mode
        self.rules = rules
        self.slots = check_slots(candidates, rules)
        self.planner = TurnPlanner(width=width, block_width=block_width)
        warn_if_not_compiled("NumberDropTurn-v0 vector")  # one log line if the first steps will compile (numba)
        self.single_action_space = spaces.Discrete(self.slots)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.afterstates = bool(afterstates)
        self.single_observation_space = spaces.Dict(turn_spaces(rules, self.slots, self.afterstates))
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)

        n = self.num_envs
        self._games: list[SoloGame | None] = [None] * n
        self._rngs: list[np.random.Generator | None] = [None] * n
        # A game inside a turn lives in its packed row (TurnPlanner's packed games): a step plays
        # it, rolls its next turn and enumerates it without its SoloGame, which is brought up to
        # date only when read (`games`). A game at its starting number or over is its SoloGame.
        self._states = np.zeros((n, self.planner.state_width(rules)), np.int64)
        self._packed = np.zeros(n, bool)
        self._stale = np.zeros(n, bool)  # the SoloGame is behind its packed row
        # each packed game's roll: as its SoloGame had it when packed, or the faces it rolled since
        self._rolls: list[tuple[tuple[int, ...], str] | None] = [None] * n
        self._faces = np.zeros((n, len(rules.number_dice) + 1), np.int64)
        self._rolled = np.zeros(n, bool)
        # rolls are drawn ahead, ROLLS_AHEAD at a time (one call instead of one per turn); the
        # generator's state before them lets a game read back stand exactly after its last roll
        self._ahead = np.zeros((n, ROLLS_AHEAD, len(rules.number_dice) + 1), np.int64)
        self._next = np.full(n, ROLLS_AHEAD)
        self._before: list[dict[str, Any] | None] = [None] * n
        self._batch = batch_arrays(n, self.slots, rules)  # each packed game's candidates
        self._loose: list[TurnCandidates] = [_NONE] * n  # the candidates of the games not packed
        self._mask = np.zeros((n, self.slots), bool)
        self._count = np.zeros(n, np.int64)
        self._obs_state = np.zeros((n, state_size(rules)), np.float32)
        self._obs_cands = np.zeros((n, self.slots, N_FEATURES), np.float32)
        self._obs_after = (
            np.zeros((n, *self.single_observation_space["afterstates"].shape), np.float32) if self.afterstates else None
        )
        self._breakdown = np.zeros((n, len(BREAKDOWN_KEYS)), np.int64)
        self._turn = np.zeros(n, np.int64)
        self._boxes = np.zeros(n, np.int64)
        self._autoreset = np.zeros(n, bool)
        self._slot_index = np.arange(self.slots)

    @property
    def games(self) -> list[SoloGame | None]:
        """The games, one per environment (``None`` before the first reset), as they stand now."""
        for i in np.flatnonzero(self._stale).tolist():
            self._sync(i, over=False)
        return list(self._games)

    @property
    def offered(self) -> list[TurnCandidates]:
        """The candidates each game's current turn offers (its actions)."""
        return [self._offered(i) for i in range(self.num_envs)]

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start new games: all, or those of ``options["reset_mask"]``; ``seed`` is an int (game ``i``
        gets ``seed + i``), one seed or ``None`` per game, or ``None`` (each continues its generator)."""
        n = self.num_envs
        options = dict(options or {})
        which = np.ones(n, bool)
        if "reset_mask" in options:
            which = options.pop("reset_mask")
            if not isinstance(which, np.ndarray) or which.dtype != np.bool_ or which.shape != (n,):
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({n},), got {which!r}")
        if seed is None:
            seeds: list[int | None] = [None] * n
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(n)]
            super().reset(seed=int(seed))
        elif isinstance(seed, (list, tuple)) and len(seed) == n:
            seeds = list(seed)
        else:
            raise ValueError(f"seed must be None, an int or a list of {n} seeds, got {seed!r}")
        indices = np.flatnonzero(which).tolist()
        for i in indices:  # a game continuing its generator continues after its last roll
            self._settle(i)
        # every new game is built (and checked) before any environment changes
        rngs = {
            i: seeding.np_random(seeds[i])[0] if seeds[i] is not None or self._rngs[i] is None else self._rngs[i]
            for i in indices
        }
        games = {i: check_turn_start(game_from_options(options, self.rules, rngs[i])) for i in indices}
        for i in indices:
            self._rngs[i] = rngs[i]
            self._take(i, games[i])
            self._autoreset[i] = games[i].is_over  # a finished game is replaced at the next step
        self._offer(indices)
        return self._observation(), self._info(which)

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if self._games[0] is None:
            raise ValueError("call reset() before step()")
        chosen = self._check(actions)
        n = self.num_envs
        rewards = np.zeros(n, np.float64)
        terminated = np.zeros(n, bool)
        packed = np.flatnonzero(self._packed)  # all inside a turn: none is finished or replaced
        for i in np.flatnonzero(~self._packed).tolist():
            if self._autoreset[i]:  # NEXT_STEP: the game ended at the last step, its action is ignored
                self._take(i, SoloGame(self.rules, seed=self._rngs[i]))
                continue
            game = self._games[i]
            rewards[i] = self._loose[i].play(chosen[i], game)  # the starting number, as NumberDropTurnEnv plays it
            terminated[i] = game.is_over
            self._take(i, game)
        if len(packed):
            terminated[packed] = self._finish_turns(packed, chosen[packed])
            rewards[packed] = self._batch.points[packed, chosen[packed]]
        self._autoreset = terminated.copy()
        self._offer(range(n))
        return self._observation(), rewards, terminated, np.zeros(n, bool), self._info(np.ones(n, bool))

    def action_masks(self) -> np.ndarray:
        """(num_envs, candidates) bool: the exact legal actions of every game (a finished
        game's row is all ``False`` until the next step replaces it)."""
        return self._mask.copy()

    def render(self) -> tuple[Any, ...] | None:
        """One picture per game: text (``"ansi"``) or an (H, W, 3) uint8 array (``"rgb_array"``)."""
        return None if self.render_mode is None else tuple(picture(g, self.render_mode) for g in self.games)

    def _check(self, actions: Any) -> np.ndarray:
        """The actions as ints, every live game's checked (nothing changes when one is refused)."""
        a = np.asarray(actions)
        if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"actions must be integers, got {a.dtype} ({type(actions).__name__})")
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        live = ~self._autoreset
        outside = live & ((a < 0) | (a >= self.slots))
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise ValueError(f"env {i}: action {int(a[i])} is outside the action space 0..{self.slots - 1}")
        illegal = live & ~self._mask[np.arange(self.num_envs), np.where(live, a, 0)]
        if illegal.any():
            i = int(np.flatnonzero(illegal)[0])
            raise ValueError(f"env {i}: action {int(a[i])} is not legal: this turn has {self._count[i]} candidates")
        return np.where(live, a, 0).astype(np.int64)

    def _take(self, i: int, game: SoloGame) -> None:
        """Make ``game`` environment ``i``'s game: packed when inside a turn, else as it is."""
        self._games[i], self._stale[i] = game, False
        self._packed[i] = game.phase not in (Phase.START, Phase.OVER)
        if self._packed[i]:
            self._states[i] = self.planner.pack_batch([game], self.slots)[0]
            self._rolls[i], self._rolled[i], self._turn[i] = (game.dice, game.shape_face), False, game.turn

    def _finish_turns(self, games: np.ndarray, chosen: np.ndarray) -> np.ndarray:
        """Play the chosen candidates of packed games and roll the next turn of those going on
        (with each game's own generator, as its SoloGame would); returns which games ended."""
        over = self.planner.finish_turns(self._states, self.rules, games, chosen, self._batch)
        going = games[~over]
        for i in going[self._next[going] == ROLLS_AHEAD].tolist():
            self._before[i] = self._rngs[i].bit_generator.state
            self._ahead[i], self._next[i] = roll_faces(self._rngs[i], self.rules, ROLLS_AHEAD), 0
        self._faces[going] = self._ahead[going, self._next[going]]
        self._next[going] += 1
        self._rolled[going] = True
        self.planner.start_turns(self._states, self.rules, going, self._faces[going])
        self._turn[going] += 1
        self._stale[games] = True
        for i in games[over].tolist():  # a finished game leaves its row
            self._sync(i, over=True)
            self._packed[i] = False
        return over

    def _settle(self, i: int) -> None:
        """Leave game ``i``'s generator just after its last roll (not after the rolls drawn ahead)."""
        if self._before[i] is not None:
            rng = self._rngs[i]
            rng.bit_generator.state = self._before[i]
            roll_faces(rng, self.rules, int(self._next[i]))
            self._before[i], self._next[i] = None, ROLLS_AHEAD

    def _sync(self, i: int, over: bool) -> None:
        """Bring game ``i``'s SoloGame up to its packed row, its generator included."""
        self._settle(i)
        roll = roll_of(self._faces[i].tolist(), self.rules) if self._rolled[i] else self._rolls[i]
        self.planner.unpack(self._states[i], self._games[i], roll, int(self._turn[i]), over)
        self._stale[i] = False

    def _offered(self, i: int) -> TurnCandidates:
        if self._packed[i]:
            return TurnCandidates.of_batch(self._batch, i, int(self._count[i]))
        return self._loose[i]

    def _offer(self, indices: Sequence[int]) -> None:
        """Enumerate the turns of games ``indices`` (one batch for all those packed) and
        write their rows of the observation, the mask and the info."""
        indices = np.asarray(list(indices), np.int64)
        plan, loose = indices[self._packed[indices]], indices[~self._packed[indices]]
        for i in loose.tolist():
            game = self._games[i]
            self._loose[i] = offered = _NONE if game.is_over else self.planner.candidates(game, limit=self.slots)
            self._breakdown[i] = breakdown_info(game.sheet.score_breakdown())
            self._boxes[i], self._count[i], self._turn[i] = boxes_scored(game.sheet), len(offered), game.turn
            obs = observe_turn(game, offered, self.slots, int(self._score[i]))
            self._obs_state[i], self._obs_cands[i] = obs["state"], obs["candidates"]
        if len(plan):
            states = self._states[plan]
            count, batch, features = self.planner.candidate_arrays(states, self.rules, self.slots, features=True)
            for kept, new in zip(self._batch, batch):
                kept[plan] = new
            self._obs_cands[plan], self._count[plan] = features, count
            self._breakdown[plan], self._boxes[plan] = self.planner.packed_scores(states, self.rules)
            self._obs_state[plan] = packed_states(
                states, self.rules, self._turn[plan], self._score[plan], count / self.slots
            )
        self._mask[indices] = self._slot_index < self._count[indices, None]
        if self._obs_after is not None:
            for i in indices.tolist():
                self._obs_after[i] = afterstate_planes(self._offered(i), self.slots, self.rules)

    @property
    def _score(self) -> np.ndarray:
        """Each game's score, the breakdown's total (read each time: a pickled copy keeps them together)."""
        return self._breakdown[:, BREAKDOWN_KEYS.index("total")]

    def _observation(self) -> dict[str, np.ndarray]:
        out = {"state": self._obs_state.copy(), "candidates": self._obs_cands.copy()}
        if self._obs_after is not None:
            out["afterstates"] = self._obs_after.copy()
        return out

    def _info(self, which: np.ndarray) -> dict[str, Any]:
        values = (self._mask, self._score, self._breakdown, self._turn, self._count, self._boxes)
        info: dict[str, Any] = {key: value.copy() for key, value in zip(INFO_KEYS, values)}
        info["illegal_action"] = np.zeros(self.num_envs, bool)
        return info | {"_" + key: which.copy() for key in INFO_KEYS}
