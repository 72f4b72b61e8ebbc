"""``NumberDropTurn-v0``: one step is one whole turn, the planner's candidates its actions."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from gymnasium import spaces

from gamekit.checks import as_action, positive_int
from gamekit.env import LegalDiscrete

from .. import startup
from ..engine.actions import Phase
from ..engine.rules import DEFAULT_RULES, Rules, X
from ..engine.sheet import Sheet
from ..engine.solo import SoloGame
from ..planner import features
from ..planner.packing import rule_ints
from ..planner.turns import Candidate, TurnCandidates, TurnPlanner, tile_indices
from .base import SoloEnvBase

CANDIDATE_FEATURES = (
    *"present planner_value points identical consecutive combo_size ends_game geometry potential turns".split(),
    *"letter letter_half remaining_turns holes hole_rows full_rows penalty_rows filled free_numbers".split(),
    *"max_height bumpiness".split(),
    *(f"height_{c}" for c in range(7)),
    *(f"{kind}_{k}" for kind in ("identical", "consecutive") for k in (3, 4, 5, 6, 7)),
    "bonus",
    *(f"{kind}_{x}" for kind in ("circled", "notch") for x in "ABCDE"),
)
"""Columns of ``observation["candidates"]`` (default rules: 7 columns, letters A..E)."""
AFTERSTATE_PLANES = ("number", "value", "cross", "used")
"""Planes of ``observation["afterstates"]`` (``afterstates=True``), one stack per candidate over
the grid it leaves: a number is written, that number / max_number, an X, a used number."""
PLANNER_VALUE = CANDIDATE_FEATURES.index("planner_value")
PLANNER_TERMS = tuple(
    CANDIDATE_FEATURES.index(t) for t in ("points", "geometry", "potential", "turns", "letter", "letter_half")
)
"""Columns whose sum is the planner value: the points of the turn and the heuristic's parts."""
VALUE_SCALE = 10.0
"""Points are divided by this in the observation (``planner_value`` = value / 10)."""
_NONE = TurnCandidates.from_candidates([])


class NumberDropTurnEnv(SoloEnvBase):
    """Solo Number Drop, one turn per step: action ``i`` plays the turn's candidate ``i`` (ranked by
    the planner value, slot 0 the greedy agent's choice) by jumping to the sheet it leaves, or
    with ``replay=True`` by its decisions (``docs/envs/numberdrop-turn.md``)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}
    env_id = "NumberDropTurn-v0"

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
        self.slots = check_slots(candidates, rules)
        self.planner = TurnPlanner(width=width, block_width=block_width)
        self.game = SoloGame(rules, seed=0)
        self.replay = bool(replay)
        self.afterstates = bool(afterstates)
        self.offered = _NONE
        self._mask = np.zeros(self.slots, bool)
        self.action_space = LegalDiscrete(self.slots, self.action_masks)
        self.observation_space = self._mask_space(spaces.Dict(turn_spaces(rules, self.slots, self.afterstates)))

    def step(self, action: int):
        penalized = self._penalize(action, self._mask)
        if penalized is not None:
            return penalized
        reward = self._play(action)
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

    def _start(self, game: SoloGame) -> None:
        super()._start(check_turn_start(game))

    def _play(self, action: Any) -> int:
        """Play candidate ``action``: jump to its afterstate, or with ``replay`` step its decisions."""
        i = self._offered(action)
        if self.replay:
            return sum(self.game.step(a) for a in self.offered[i].actions)
        return self.offered.play(i, self.game)  # without building the candidate's Python object

    def _candidate(self, action: Any) -> Candidate:
        return self.offered[self._offered(action)]

    def _offered(self, action: Any) -> int:
        """``action`` as an index, refused unless this turn offers it."""
        action = as_action(action, self.slots)
        if not self._mask[action]:
            raise ValueError(f"action {action} is not legal: this turn has {len(self.offered)} candidates")
        return int(action)

    def _offer(self) -> None:
        startup.poll()  # the compiled code, once the background compile has it ready
        self.offered = _NONE if self.game.is_over else self.planner.candidates(self.game, limit=self.slots)
        self._mask = np.zeros(self.slots, bool)
        self._mask[: len(self.offered)] = True
        self._breakdown = self.game.sheet.score_breakdown()  # read by the observation and the info

    def _info(self) -> dict[str, Any]:
        return self._score_info(
            self._breakdown,
            turn=np.int64(self.game.turn),
            candidate_count=np.int64(len(self.offered)),
            boxes=np.int64(boxes_scored(self.game.sheet)),
        )

    def _observation(self) -> dict[str, np.ndarray]:
        return observe_turn(self.game, self.offered, self.slots, self._breakdown["total"], self.afterstates)


def boxes_scored(sheet: Sheet) -> int:
    """``info["boxes"]``: the score track's boxes ticked, the bonus included."""
    return int(np.count_nonzero(sheet.identical) + np.count_nonzero(sheet.consecutive) + sheet.bonus)


def check_turn_start(game: SoloGame) -> SoloGame:
    if game.phase not in (Phase.START, Phase.SLIDE, Phase.OVER):
        raise ValueError(f"a turn-level game starts at a turn's first decision, not in phase {game.phase.value!r}")
    return game


def check_slots(candidates: Any, rules: Rules) -> int:
    """The number of candidate slots, refused unless positive, on the sheet layout the features read."""
    slots = positive_int(candidates, "candidates")
    if rules.cols != 7 or len(rules.letters) != 5 or rules.box_sizes != (3, 4, 5, 6, 7):
        raise ValueError("NumberDropTurn-v0 observes the default sheet layout (7 columns, letters A..E)")
    return slots


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
    """``_state`` of packed games (``TurnPlanner.pack_batch``) in one compiled call."""
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
        a, s.identical, s.consecutive, s.bonus, s.circled, s.crossed, box, ints, slots, len(CANDIDATE_FEATURES)
    )


@lru_cache(maxsize=8)
def _feature_constants(r: Rules) -> tuple[np.ndarray, np.ndarray]:
    return rule_ints(r).copy(), np.asarray(r.box_sizes, np.int64)  # writable: one compiled signature
