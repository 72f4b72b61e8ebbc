"""Gymnasium environment for solo Number Drop. It translates; the rules live in the engine."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from .. import startup
from ..engine.actions import phase_code
from ..engine.rules import DEFAULT_RULES, Rules
from ..engine.solo import SoloGame
from ..numba_cache import warn_if_not_compiled
from .base import LegalDiscrete, SoloEnvBase, breakdown_info
from .observe import Observer, observation_shapes, observe  # noqa: F401  (observe: agents import it from here)

_OPTIONS = {"state"}


class NumberDropEnv(SoloEnvBase):
    """Solo Number Drop: drop numbered tetrominoes, score combinations, chase 100.

    **Actions** — ``Discrete(412)`` with the default rules; every decision of a turn is
    one action and ``observation["phase"]`` says which decision is pending:

    ========== ========= =====================================================
    actions    phase     meaning
    ========== ========= =====================================================
    0..6       start     column of the starting number in row 0
    7..11      slide,    letter A..E of the tile to slide one notch
               star_slide
    12..144    block     ``12 + orientation*7 + column`` of the X block
    145..277   place     ``145 + orientation*7 + column`` of the tetromino
    278..301   arrange   permutation k: landed cell i (cells sorted by row,
                         column) gets sorted die ``PERMUTATIONS[k][i]``
                         (dice sorted by value, stars last)
    302..311   wild      value 0..9 of the next wild cell
    312..409   combo     select cell ``312 + row*7 + column``
    410        combo     confirm the selected combination
    411        combo     pass (score no combination)
    ========== ========= =====================================================

    Orientations 0..18 are I(2) O(1) T(4) L(8) S(4). ``action_masks()`` and
    ``info["action_mask"]`` are exact: an action is unmasked iff the rules allow it.
    A masked action raises ``ValueError`` and leaves the game as it was; with
    ``illegal_action="penalize"`` it is answered instead (see *Illegal actions*).

    **Observation** — ``Dict``:

    - ``grid`` (19, 14, 7) float32 planes, row 0 at the bottom: filled, X, used,
      number 0..9 one-hot (10 planes, pending values included), pending tetromino
      cell, next wild cell, selected combination cell; in phase *combo* also the size
      of each free number's same-valued region and its longest ascending and
      descending paths (each / 8), the quantities the combination mask is built from.
    - ``heights`` (7,): one above the highest filled cell of each column, / 14.
    - ``landing`` (133,): for each placement slot (as in *block*/*place*), its landing
      row + 1, / 14, when it lands inside the grid, else 0 — the geometry of every drop
      without asking the network to rediscover it.
    - ``dice`` (44,): the number dice sorted as for *arrange*, each one-hot 0..9 and star.
    - ``shape_die`` (6,): one-hot I O T L S star.
    - ``track`` (30,): identical boxes 3..7, consecutive boxes 3..7, bonus, circled
      letters A..E, +2 line boxes of rows 0..10, -5 boxes of rows 11..13.
    - ``solo_board`` (50,): per letter A..E, the tile's tetromino one-hot (I O T L S)
      and its notch one-hot (0..4).
    - ``phase`` (9,): one-hot of the pending decision (start, slide, star_slide,
      block, place, arrange, wild, combo, game_over).
    - ``pending`` (12,): letter of the dropping block (5), star slide still owed,
      selection length / 8, selection kind (identical, ascending, descending),
      turn / 20, score / 100.

    **Reward** — the change of the official score, so an episode's return is the final
    score (at most 100). ``terminated`` when the game ends; truncated only by illegal
    actions in *penalize* mode.

    **Info** — NumPy values of fixed shape, so that tools stacking infos store them:
    ``action_mask`` (bool, 412), ``score`` (int64), ``score_breakdown`` (int64, 7: the
    ``env_base.BREAKDOWN_KEYS`` identical, consecutive, bonus, column_bonuses, lines,
    penalties, total; ``env_base.breakdown_dict`` names them), ``phase`` (int64,
    ``actions.PHASE_CODES``: 0 start .. 8 game_over), ``turn`` (int64), ``illegal_action``
    (bool). With ``mask_in_obs=True`` the mask is
    ``observation["action_mask"]`` (int8, 1 = legal) instead of an info key, for tools that
    read masks from observations (TorchRL's ``ActionMask``, Tianshou, RLlib).

    **Illegal actions** — ``illegal_action="raise"`` (default): a masked action raises
    ``ValueError``, because the masks are exact and a masked move is a bug in the caller.
    ``"penalize"``, for algorithms that cannot mask (plain PPO, DQN): a masked action
    leaves the game as it was, returns ``illegal_reward`` (default -1) and
    ``info["illegal_action"] = True``, and truncates the episode after ``max_illegal``
    (default 10) masked actions in a row. Actions of the wrong type or outside the action
    space always raise.

    **Positions** — ``get_state()`` gives the game as JSON-safe data and ``set_state(state)``
    continues from it (so does ``reset(options={"state": state})``); the game itself is
    ``env.unwrapped.game``. ``auto_forced=True`` applies decisions that have a single
    legal action automatically (their rewards are summed into the step).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        render_mode: str | None = None,
        rules: Rules = DEFAULT_RULES,
        auto_forced: bool = False,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        max_illegal: int = 10,
        mask_in_obs: bool = False,
    ) -> None:
        self._setup(render_mode, rules, illegal_action, illegal_reward, max_illegal, mask_in_obs)
        self.auto_forced = bool(auto_forced)
        self.game = SoloGame(rules, seed=0)
        self._observe = Observer(rules)
        warn_if_not_compiled("NumberDrop-v0", startup.enabled())  # one log line if the first steps will compile
        self.action_space = LegalDiscrete(self.game.layout.size, self.action_masks)
        self.observation_space = self._mask_space(
            spaces.Dict(
                {name: spaces.Box(0, 1, shape, np.float32) for name, shape in observation_shapes(rules).items()}
            )
        )

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        startup.begin("NumberDrop-v0")  # not compiled yet: compile in the background, play as Python meanwhile
        super().reset(seed=seed)
        self._start(game_from_options(options, self.rules, self.np_random))
        return self._obs(), self._info()

    def step(self, action: int):
        startup.poll()  # the compiled code, once the background compile has it ready
        game = self.game
        if game.is_over:
            raise ValueError("the game is over: call reset() before step()")
        if self.illegal_action == "penalize":
            penalized = self._penalize(action, game.legal_mask())
            if penalized is not None:
                return penalized
        reward = game.step(action)
        if self.auto_forced:
            reward += self._skip_forced()
        obs, breakdown = self._observe(game)
        return self._obs(obs), float(reward), game.is_over, False, self._info(breakdown)

    def action_masks(self) -> np.ndarray:
        """Exact legal-action mask (the sb3-contrib ``MaskablePPO`` convention)."""
        return self.game.legal_mask().copy()

    def describe_action(self, action: int) -> dict[str, Any]:
        """What an action means in the current state, in the game's words (JSON-safe)."""
        return self.game.describe(action)

    # ------------------------------------------------------------- internals
    def _offer(self) -> None:
        self._skip_forced()  # forced moves at the start of a game or position cannot score

    def _skip_forced(self) -> int:
        reward = 0
        while self.auto_forced and not self.game.is_over:
            legal = self.game.legal_mask()
            if np.count_nonzero(legal) != 1:
                break
            reward += self.game.step(int(legal.argmax()))
        return reward

    def _info(self, breakdown: dict[str, int] | None = None) -> dict[str, Any]:
        breakdown = self._observe.boxes(self.game.sheet)[0] if breakdown is None else breakdown
        return {
            **self._mask_info(),
            "score": np.int64(breakdown["total"]),
            "score_breakdown": breakdown_info(breakdown),
            "phase_code": phase_code(self.game.phase),
            "turn": np.int64(self.game.turn),
            "illegal_action": np.False_,
        }

    def _observation(self) -> dict[str, np.ndarray]:
        return self._observe(self.game)[0]


def game_from_options(options: dict[str, Any] | None, rules: Rules, rng: np.random.Generator) -> SoloGame:
    """The game a ``reset(options=...)`` asks for: a saved ``state`` to continue, or a new game."""
    options = options or {}
    unknown = set(options) - _OPTIONS
    if unknown:
        raise ValueError(f"unknown reset options {sorted(unknown)}; known: {sorted(_OPTIONS)}")
    if "state" in options:
        return SoloGame.from_dict(options["state"], rules, seed=rng)
    return SoloGame(rules, seed=rng)
