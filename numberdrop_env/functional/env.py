"""``NumberDrop``: solo Number Drop as pure functions of a ``State`` (pgx's shape), every one of them
``jit``- and ``vmap``-able. The roll at the start of a turn is a chance outcome: ``step`` samples
it from its key, ``decide`` stops before it and ``resolve_chance`` gives it, so a search can
expand the merged rolls of ``chance_outcomes`` with ``chance_probabilities``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..engine.rules import DEFAULT_RULES, EMPTY, WILD, Rules
from . import play
from .observe import observation_parts, observation_size, observe
from .state import State
from .tables import COMBO, START, tables_for

_COMPILED = (
    "init",
    "step",
    "step_with_outcome",
    "step_with_faces",
    "decide",
    "resolve_chance",
    "chance_probabilities",
    "sample_faces",
    "observe",
    "breakdown",
    "refresh",
)


class NumberDrop:
    """Solo Number Drop with the flat ``Discrete`` actions of ``NumberDrop-v0``.

    The reward is the change of the official score; an illegal action (masked, or outside the
    action space) ends the game at once with ``illegal_reward`` (pgx's rule) and leaves the sheet
    as it was; stepping a finished game changes nothing and gives 0.
    """

    def __init__(self, rules: Rules = DEFAULT_RULES, illegal_reward: float = -1.0) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)):
            raise TypeError(f"illegal_reward must be a number, got {type(illegal_reward).__name__}")
        self.rules = rules
        self.tables = tables_for(rules)
        self.illegal_reward = float(illegal_reward)
        self.observation_parts = observation_parts(self.tables)
        for name in _COMPILED:  # called on their own they run compiled; inside a caller's jit they inline
            setattr(self, name, jax.jit(getattr(self, name)))

    # ------------------------------------------------------------------ sizes
    @property
    def num_actions(self) -> int:
        return self.tables.num_actions

    @property
    def observation_shape(self) -> tuple[int]:
        return (observation_size(self.tables),)

    @property
    def chance_outcomes(self) -> np.ndarray:
        """(K, number dice + 1) int32: each merged roll's faces (each number die's face index, then
        the shape die's), rolls giving the same decisions merged (``engine.dice``)."""
        return self.tables.roll_faces

    @property
    def num_chance_outcomes(self) -> int:
        return len(self.tables.roll_faces)

    # ------------------------------------------------------------------ play
    def init(self, key: jax.Array) -> State:
        """A new game in phase *start*: the tiles shuffled onto the letters from ``key``."""
        t = self.tables
        n_boxes = len(t.box_sizes)
        s = State(
            grid=jnp.full((t.rows, t.cols), EMPTY, jnp.int32),
            used=jnp.zeros((t.rows, t.cols), bool),
            identical=jnp.zeros(n_boxes, bool),
            consecutive=jnp.zeros(n_boxes, bool),
            bonus=jnp.array(False),
            letters=jnp.zeros(n_boxes, bool),
            lines=jnp.zeros(self.rules.regular_rows, bool),
            penalties=jnp.zeros(t.rows - self.rules.regular_rows, bool),
            tiles=jax.random.permutation(key, t.letters).astype(jnp.int32),
            notches=jnp.zeros(t.letters, jnp.int32),
            dice=jnp.zeros(len(self.rules.number_dice), jnp.int32),
            shape_face=jnp.array(-1, jnp.int32),
            phase=jnp.array(START, jnp.int32),
            turn=jnp.array(0, jnp.int32),
            star_pending=jnp.array(False),
            block_tile=jnp.array(-1, jnp.int32),
            pending_cells=jnp.full(4, -1, jnp.int32),
            pending_values=jnp.full(4, WILD, jnp.int32),
            selection=jnp.full(self.rules.bonus_size, -1, jnp.int32),
            selection_size=jnp.array(0, jnp.int32),
            structures=jnp.zeros((3, t.cells), jnp.int32),
            roll_due=jnp.array(False),
            legal_action_mask=jnp.zeros(t.num_actions, bool).at[t.layout.start : t.layout.slide].set(True),
            rewards=jnp.zeros(1, jnp.float32),
            terminated=jnp.array(False),
            truncated=jnp.array(False),
        )
        return s  # an empty row 0: every start column is legal

    def step(self, state: State, action: jax.Array, key: jax.Array) -> State:
        """One decision; a roll it makes due is drawn from ``key`` (each die uniformly)."""
        return self.step_with_faces(state, action, self.sample_faces(key))

    def step_with_outcome(self, state: State, action: jax.Array, outcome: jax.Array) -> State:
        """One decision, then the merged roll ``chance_outcomes[outcome]`` if one is due."""
        return self.resolve_chance(self.decide(state, action), outcome)

    def step_with_faces(self, state: State, action: jax.Array, faces: jax.Array) -> State:
        """One decision, then the roll of these faces if one is due (the engine's dice, exactly)."""
        return play.roll(self.tables, self.decide(state, action), jnp.asarray(faces, jnp.int32))

    def decide(self, state: State, action: jax.Array) -> State:
        """One decision without the roll it may make due: then ``state.roll_due`` holds, the mask
        is empty and ``resolve_chance`` continues the game (an afterstate for search)."""
        return play.decide(self.tables, state, action, self.illegal_reward)

    def resolve_chance(self, state: State, outcome: jax.Array) -> State:
        """The merged roll ``chance_outcomes[outcome]`` given to a state whose roll is due."""
        faces = jnp.asarray(self.tables.roll_faces)[jnp.asarray(outcome, jnp.int32)]
        return play.roll(self.tables, state, faces)

    def chance_probabilities(self, state: State) -> jax.Array:
        """(K,) float32: the probability of each of ``chance_outcomes`` (the same for every state:
        the dice do not depend on the sheet), all zeros where no roll is due."""
        p = jnp.asarray(self.tables.roll_probabilities)
        return jnp.where(state.roll_due[..., None], p, 0.0)

    def sample_faces(self, key: jax.Array) -> jax.Array:
        """(number dice + 1,) int32: one roll, each die's face drawn uniformly."""
        return jax.random.randint(key, (len(self.tables.die_sizes),), 0, self.tables.die_sizes, jnp.int32)

    def observe(self, state: State) -> jax.Array:
        """(observation_size,) float32 (``observe.py`` gives the layout)."""
        return observe(self.tables, state)

    def breakdown(self, state: State) -> dict[str, jax.Array]:
        """The score by its parts in the engine's terms (``SCORE_PARTS``): identical, consecutive,
        bonus, column_bonuses, lines, penalties, total."""
        return play.score_parts(self.tables, state)

    def refresh(self, state: State) -> State:
        """The state with its combination structures (in *combo*) and its mask computed again."""
        t = self.tables
        struct = play.combos.structures(t, state.grid.reshape(-1), state.used.reshape(-1), state.phase == COMBO)
        state = state.replace(structures=struct)
        return state.replace(legal_action_mask=play.legal_mask(t, state, play.legal_placements(t, state.grid)))
