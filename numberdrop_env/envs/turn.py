"""Gymnasium environment ``NumberDropTurn-v0``: one step is one whole turn.

It is a thin layer over the engine's turn enumerator (``numberdrop_env.planner.turns``): the
candidates of the turn are the actions, each described by the sheet it leaves.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from gymnasium import spaces

from .. import startup
from ..engine.actions import Phase
from ..engine.rules import DEFAULT_RULES, Rules, X
from ..engine.solo import SoloGame, as_action
from ..numba_cache import warn_if_not_compiled
from ..planner import features
from ..planner.turns import Candidate, TurnCandidates, TurnPlanner, rule_ints, tile_indices
from .base import LegalDiscrete, SoloEnvBase, breakdown_info
from .decision import game_from_options

CANDIDATE_FEATURES = (
    "present",
    "planner_value",
    "points",
    "identical",
    "consecutive",
    "combo_size",
    "ends_game",
    "geometry",
    "potential",
    "turns",
    "letter",
    "letter_half",
    "remaining_turns",
    "holes",
    "hole_rows",
    "full_rows",
    "penalty_rows",
    "filled",
    "free_numbers",
    "max_height",
    "bumpiness",
    *(f"height_{c}" for c in range(7)),
    *(f"identical_{k}" for k in (3, 4, 5, 6, 7)),
    *(f"consecutive_{k}" for k in (3, 4, 5, 6, 7)),
    "bonus",
    *(f"circled_{x}" for x in "ABCDE"),
    *(f"notch_{x}" for x in "ABCDE"),
)
"""Columns of ``observation["candidates"]`` (default rules: 7 columns, letters A..E)."""
AFTERSTATE_PLANES = ("number", "value", "cross", "used")
"""Planes of ``observation["afterstates"]`` (``afterstates=True``), one stack per candidate over
the grid it leaves: a number is written, that number / max_number, an X, a used number."""
_VALUE_PLANE = AFTERSTATE_PLANES.index("value")
PLANNER_VALUE = CANDIDATE_FEATURES.index("planner_value")
PLANNER_TERMS = tuple(
    CANDIDATE_FEATURES.index(t) for t in ("points", "geometry", "potential", "turns", "letter", "letter_half")
)
"""Columns whose sum is the planner value: the points of the turn and the heuristic's parts."""
VALUE_SCALE = 10.0
_NONE = TurnCandidates.from_candidates([])
"""Points are divided by this in the observation (``planner_value`` = value / 10)."""


class NumberDropTurnEnv(SoloEnvBase):
    """Solo Number Drop, one turn per step: choose among the turn's candidate outcomes.

    **Actions** — ``Discrete(candidates)``: action ``i`` plays candidate ``i`` of the
    turn, a whole turn of ``NumberDrop-v0`` decisions (slides, block drops, tetromino
    placement, arrangement, wild values, combination or pass). Candidates are distinct
    outcomes (deduplicated by the sheet they leave), ranked by the planner value of
    ``numberdrop_env.planner.heuristic``, best first: candidate 0 is the greedy agent's
    choice. When the turn has more outcomes than slots, the best-ranked are kept; when it
    has fewer, the remaining slots are masked. The first step of a game chooses the column
    of the starting number (before the first roll). ``action_masks()`` and
    ``info["action_mask"]`` are exact; a masked action raises ``ValueError`` and changes
    nothing, or with ``illegal_action="penalize"`` is answered as on ``NumberDrop-v0``.
    ``candidate_actions(i)`` gives candidate ``i``'s micro-actions and
    ``describe_action(i)`` describes it in the game's words. Playing a candidate jumps to
    the sheet it leaves; ``replay=True`` steps its micro-actions through the engine's checks
    instead (the same games, several times slower).

    **Observation** — ``Dict``:

    - ``state`` (141,): the sheet before the turn — sorted number dice one-hot (0..9, star),
      shape die one-hot, boxes scored, circled letters, +2 and -5 boxes, each letter's
      tetromino and notch one-hot, column heights / 14, turn / 20, score / 100, whether
      this step places the starting number, and the share of candidate slots in use.
    - ``candidates`` (slots, 49): one row per candidate, ``CANDIDATE_FEATURES``: the
      planner value and its parts (geometry, potential, turns, letter terms, all / 10),
      the official points of the turn / 10, the combination scored, whether the game ends
      after it, and the afterstate: holes, rows, heights, boxes, letters and notches.
      Masked slots are all zeros (``present`` = 0).

    **Reward** — the change of the official score over the turn, so an episode's return is
    the final score. ``terminated`` when the game ends; truncated only by illegal actions
    in *penalize* mode.

    **Info** — NumPy values of fixed shape: ``action_mask`` (bool, slots), ``score``,
    ``score_breakdown`` (int64, 7, as on ``NumberDrop-v0``), ``turn``, ``candidates`` (how
    many slots are in use), ``boxes`` (boxes scored so far), all int64, and
    ``illegal_action`` (bool). ``mask_in_obs=True`` moves the mask into
    ``observation["action_mask"]`` (int8), as on ``NumberDrop-v0``. ``afterstates=True``
    adds ``observation["afterstates"]``: the grid each candidate leaves, as
    (candidates, 4, rows, cols) float32 planes (``AFTERSTATE_PLANES``), for networks that
    look at the shapes the feature rows summarise.

    **Positions** — ``get_state()`` / ``set_state(state)`` as on ``NumberDrop-v0``; a
    position must be at a turn's first decision.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        render_mode: str | None = None,
        rules: Rules = DEFAULT_RULES,
        candidates: int = 32,
        width: int = 12,
        block_width: int = 3,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        max_illegal: int = 10,
        replay: bool = False,
        mask_in_obs: bool = False,
        afterstates: bool = False,
    ) -> None:
        self._setup(render_mode, rules, illegal_action, illegal_reward, max_illegal, mask_in_obs)
        if isinstance(candidates, bool) or not isinstance(candidates, (int, np.integer)) or candidates < 1:
            raise ValueError(f"candidates must be a positive int, got {candidates!r}")
        if rules.cols != 7 or len(rules.letters) != 5 or rules.box_sizes != (3, 4, 5, 6, 7):
            raise ValueError("NumberDropTurn-v0 observes the default sheet layout (7 columns, letters A..E)")
        self.slots = int(candidates)
        self.planner = TurnPlanner(width=width, block_width=block_width)
        warn_if_not_compiled("NumberDropTurn-v0", startup.enabled())  # one log line if the first steps will compile
        self.game = SoloGame(rules, seed=0)
        self.replay = bool(replay)
        self.afterstates = bool(afterstates)
        self.offered = _NONE
        self._mask = np.zeros(self.slots, bool)
        self.action_space = LegalDiscrete(self.slots, self.action_masks)
        self.observation_space = self._mask_space(spaces.Dict(turn_spaces(rules, self.slots, self.afterstates)))

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        startup.begin("NumberDropTurn-v0")  # not compiled yet: compile in the background, play as Python meanwhile
        super().reset(seed=seed)
        self._start(game_from_options(options, self.rules, self.np_random))
        return self._obs(), self._info()

    def step(self, action: int):
        if self.game.is_over:
            raise ValueError("the game is over: call reset() before step()")
        penalized = self._penalize(action, self._mask)
        if penalized is not None:
            return penalized
        reward = self._play(as_action(action, self.slots))
        self._offer()
        return self._obs(), float(reward), self.game.is_over, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Exact legal-action mask (the sb3-contrib ``MaskablePPO`` convention)."""
        return self._mask.copy()

    def candidate_actions(self, action: int) -> list[int]:
        """The ``NumberDrop-v0`` actions candidate ``action`` plays, in order."""
        return list(self._candidate(action).actions)

    def describe_action(self, action: int) -> dict[str, Any]:
        """Candidate ``action`` in the game's words, decision by decision (JSON-safe)."""
        return self._candidate(action).describe(self.game)

    # ------------------------------------------------------------- internals
    def _start(self, game: SoloGame) -> None:
        if game.phase not in (Phase.START, Phase.SLIDE, Phase.OVER):
            raise ValueError(f"a turn-level game starts at a turn's first decision, not in phase {game.phase.value!r}")
        super()._start(game)

    def _play(self, i: int) -> int:
        """Play candidate ``i``: jump to its afterstate, or with ``replay`` step its decisions."""
        if not self._mask[i]:
            raise ValueError(f"action {i} is not legal: this turn has {len(self.offered)} candidates")
        if self.replay:
            return sum(self.game.step(a) for a in self.offered[i].actions)
        return self.offered.play(i, self.game)

    def _candidate(self, action: Any) -> Candidate:
        action = as_action(action, self.slots)
        if not self._mask[action]:
            raise ValueError(f"action {action} is not legal: this turn has {len(self.offered)} candidates")
        return self.offered[int(action)]

    def _offer(self) -> None:
        startup.poll()  # the compiled code, once the background compile has it ready
        self.offered = _NONE if self.game.is_over else self.planner.candidates(self.game, limit=self.slots)
        self._mask = np.zeros(self.slots, bool)
        self._mask[: len(self.offered)] = True
        self._breakdown = self.game.sheet.score_breakdown()  # read by the observation and the info

    def _info(self) -> dict[str, Any]:
        breakdown, s = self._breakdown, self.game.sheet
        return {
            **self._mask_info(),
            "score": np.int64(breakdown["total"]),
            "score_breakdown": breakdown_info(breakdown),
            "turn": np.int64(self.game.turn),
            "candidate_count": np.int64(len(self.offered)),
            "boxes": np.int64(np.count_nonzero(s.identical) + np.count_nonzero(s.consecutive) + s.bonus),
            "illegal_action": np.False_,
        }

    def _observation(self) -> dict[str, np.ndarray]:
        return observe_turn(self.game, self.offered, self.slots, self._breakdown["total"], self.afterstates)


# ---------------------------------------------------------------------------- observation
def state_size(rules: Rules) -> int:
    n = len(rules.letters)
    dice = len(rules.number_dice) * (rules.max_number + 2) + len(rules.shape_die)
    track = 2 * len(rules.box_sizes) + 1 + n + rules.rows
    return dice + track + n * (len(rules.shape_names) + rules.last_notch + 1) + rules.cols + 4


def turn_spaces(rules: Rules, slots: int, afterstates: bool) -> dict[str, spaces.Box]:
    """The spaces of one game's ``NumberDropTurn-v0`` observation."""
    out = {
        "state": spaces.Box(0, 1, (state_size(rules),), np.float32),
        "candidates": spaces.Box(-np.inf, np.inf, (slots, len(CANDIDATE_FEATURES)), np.float32),
    }
    if afterstates:
        out["afterstates"] = spaces.Box(0, 1, (slots, len(AFTERSTATE_PLANES), rules.rows, rules.cols), np.float32)
    return out


def observe_turn(
    game: SoloGame, offered: TurnCandidates, slots: int, score: int | None = None, afterstates: bool = False
) -> dict[str, np.ndarray]:
    """The ``NumberDropTurn-v0`` observation of a game and its offered candidates (``score``: the
    game's, when the caller knows it; ``afterstates``: with the grids the candidates leave)."""
    out = {"state": _state(game, len(offered) / slots, score), "candidates": candidate_features(game, offered, slots)}
    if afterstates:
        out["afterstates"] = afterstate_planes(offered, slots, game.rules)
    return out


def afterstate_planes(offered: TurnCandidates, slots: int, rules: Rules) -> np.ndarray:
    """(slots, AFTERSTATE_PLANES, rows, cols) float32: the grid each candidate leaves (zeros in
    the slots not offered)."""
    cells = rules.rows * rules.cols
    k = len(offered.arrays.values)  # a finished game's arrays are (0, 0): the reshapes give them cells
    v, used = offered.arrays.values.reshape(k, cells), offered.arrays.used.reshape(k, cells)
    out = np.zeros((slots, len(AFTERSTATE_PLANES), cells), np.float32)
    number = (v >= 0) & (v <= rules.max_number)
    out[:k, 0] = number
    out[:k, 1] = np.where(number, v, 0) / rules.max_number
    out[:k, 2] = v == X
    out[:k, 3] = used
    return out.reshape(slots, len(AFTERSTATE_PLANES), rules.rows, rules.cols)


def pack_afterstates(planes: np.ndarray, rules: Rules = DEFAULT_RULES) -> np.ndarray:
    """``afterstate_planes`` (any leading shape) as uint8, a quarter of the memory: the value
    plane holds the number itself. ``unpack_afterstates`` gives the planes back."""
    scale = np.ones((len(AFTERSTATE_PLANES), 1, 1), np.float32)
    scale[_VALUE_PLANE] = rules.max_number
    return np.rint(planes * scale).astype(np.uint8)


def unpack_afterstates(packed: np.ndarray, rules: Rules = DEFAULT_RULES) -> np.ndarray:
    """The float32 planes of ``pack_afterstates``."""
    planes = packed.astype(np.float32)
    planes[..., _VALUE_PLANE, :, :] /= rules.max_number
    return planes


def _state(game: SoloGame, share: float, score: int | None = None) -> np.ndarray:
    r, s = game.rules, game.sheet
    over = game.phase is Phase.OVER
    score = game.score() if score is None else score
    extra = np.array([min(game.turn / 20, 1.0), max(score, 0) / r.max_score, float(game.phase is Phase.START), share])
    return features.turn_state(
        np.array(game.sorted_dice() if game.dice is not None and not over else (), np.int64),
        r.shape_die.index(game.shape_face) if game.shape_face is not None and not over else -1,
        s.identical,
        s.consecutive,
        s.bonus,
        s.circled,
        s.lines,
        s.penalties,
        tile_indices(r.shape_names, game.tiles),
        game.notches,
        s.heights,
        extra,
        len(r.number_dice),
        r.max_number + 2,
        len(r.shape_die),
        len(r.shape_names),
        r.last_notch,
        r.rows,
    )


def packed_states(
    states: np.ndarray, rules: Rules, turns: np.ndarray, scores: np.ndarray, shares: np.ndarray
) -> np.ndarray:
    """The ``state`` rows of games inside a turn, packed by ``TurnPlanner.pack_batch``, with
    their turn numbers, scores and shares of the slots in use: ``_state`` of each, in
    one compiled call instead of one per game."""
    r = rules
    extra = np.column_stack(
        [np.minimum(turns / 20, 1.0), np.maximum(scores, 0) / r.max_score, np.zeros(len(states)), shares]
    )
    out = np.empty((len(states), state_size(r)), np.float32)
    features.turn_states_packed(
        states,
        extra,
        _die_of_face(r),
        rule_ints(r),
        len(r.number_dice),
        r.max_number + 2,
        len(r.shape_die),
        len(r.shape_names),
        out,
    )
    return out


@lru_cache(maxsize=8)
def _die_of_face(r: Rules) -> np.ndarray:
    """The shape die's face that shows each shape (``turns.pack``'s index), then the star's."""
    out = np.array([r.shape_die.index(name) for name in r.shape_names] + [r.shape_die.index("*")], np.int64)
    out.flags.writeable = False
    return out


def candidate_features(game: SoloGame, offered: TurnCandidates, slots: int) -> np.ndarray:
    """(slots, len(CANDIDATE_FEATURES)) float32, one compiled pass over the candidates' arrays."""
    a, s = offered.arrays, game.sheet
    ints, box = _feature_constants(game.rules)
    return features.candidate_features(
        a.value,
        a.points,
        a.values,
        a.used,
        a.heights,
        a.notches,
        a.combo_kind,
        a.combo_size,
        a.ends_game,
        a.terms,
        s.identical,
        s.consecutive,
        s.bonus,
        s.circled,
        s.crossed,
        box,
        ints,
        slots,
        len(CANDIDATE_FEATURES),
    )


@lru_cache(maxsize=8)
def _feature_constants(r: Rules) -> tuple[np.ndarray, np.ndarray]:
    return rule_ints(r).copy(), np.asarray(r.box_sizes, np.int64)  # writable: one compiled signature
