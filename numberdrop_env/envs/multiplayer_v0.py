"""PettingZoo environments of multiplayer Number Drop (2 to 6 players): ``env`` (AEC: a seat makes
its decisions of the turn in a row) and ``parallel_env`` (every seat acts each step, the wait
action alone for a seat with nothing to decide) (``docs/envs/multiplayer-v0.md``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from gamekit.checks import as_action, make_rng
from gamekit.env import SeatAgents, check_render_mode

from ..engine.actions import phase_code
from ..engine.rules import DEFAULT_RULES, EMPTY, Rules, X
from ..engine.table import MAX_PLAYERS, Table
from ..render.draw import picture
from .observe import observation_shapes, observe


# ------------------------------------------------------------------ observation
def opponent_size(rules: Rules) -> int:
    cells = rules.rows * rules.cols
    return 4 * cells + 3 * len(rules.box_sizes) + 1 + rules.rows + 2


def observation_size(rules: Rules) -> int:
    own = sum(int(np.prod(shape)) for shape in observation_shapes(rules).values())
    n = len(rules.letters)
    board = n * (len(rules.multi_blocks) + 3) + n
    seats = 2 * MAX_PLAYERS + 1
    return own + board + seats + (MAX_PLAYERS - 1) * opponent_size(rules)


def opponent_features(table: Table, seat: int) -> np.ndarray:
    """What everyone can see of one sheet: grid, used cells, boxes, letters, lines, score."""
    r, s = table.rules, table.seats[seat].sheet
    v = s.values.ravel()
    number = (v != EMPTY) & (v != X)
    track = np.concatenate([s.identical, s.consecutive, s.circled, [s.bonus], s.lines, s.penalties])
    return np.concatenate(
        [
            v != EMPTY,
            v == X,
            np.where(number, v, 0) / r.max_number,
            s.used.ravel(),
            track,
            [max(s.score(), 0) / r.max_score, 1.0],
        ]
    ).astype(np.float32)


def observe_seat(table: Table, seat: int, opponents: list[np.ndarray]) -> np.ndarray:
    """One agent's observation vector; ``opponents[q]`` is seat ``q`` at the turn's start."""
    r, n_players = table.rules, table.num_players
    own = observe(table.seats[seat])
    # region and path sizes / 8 (planes 16-18): a table's regions can exceed 8, the Box stops at 1
    np.minimum(own["grid"][16:19], 1.0, out=own["grid"][16:19])
    parts = [own[k].ravel() for k in sorted(own)]  # in the order of NumberDrop-v0's Dict space
    n = len(r.letters)
    circled = np.array([s.sheet.circled for s in table.seats])
    board = np.zeros((n, len(r.multi_blocks) + 3), np.float32)
    names = [name for name, _ in r.multi_blocks]
    board[np.arange(n), [names.index(b) for b in table.blocks]] = 1
    board[:, -3] = table.crossed
    board[:, -2] = circled[seat]
    board[:, -1] = (circled.sum(axis=0) - circled[seat]) / (n_players - 1)
    active = np.zeros(n, np.float32)
    if table.block_letter is not None:
        active[table.block_letter] = 1
    seats = np.zeros(2 * MAX_PLAYERS + 1, np.float32)
    seats[seat] = 1
    seats[MAX_PLAYERS + (table.first_player - seat) % n_players] = 1
    seats[-1] = min(table.turn / 20, 1.0)
    others = [opponents[(seat + k) % n_players] for k in range(1, n_players)]  # left neighbour first
    pad = [np.zeros(opponent_size(r), np.float32)] * (MAX_PLAYERS - n_players)
    return np.concatenate(parts + [board.ravel(), active, seats] + others + pad).astype(np.float32)


# ------------------------------------------------------------------ the shared core
class _TableCore(SeatAgents):
    """Translation between a ``Table`` and the agent-keyed PettingZoo dictionaries."""

    metadata = {
        "render_modes": ["ansi", "rgb_array"],
        "name": "numberdrop_multiplayer_v0",
        "is_parallelizable": False,
        "parallel_env": "numberdrop_env.multiplayer_v0.parallel_env",
        "render_fps": 2,
    }
    """Not for ``aec_to_parallel`` (a seat's decisions come in a row): ``parallel_env`` is the parallel form."""

    _waits = False
    """Whether the action space ends with the wait action (the parallel env's, whose seats all act)."""

    def _setup(self, num_players: int, render_mode: str | None, rules: Rules) -> None:
        check_render_mode(self.metadata, render_mode)
        self.table = Table(num_players, rules, seed=0)  # validates num_players and rules
        self.rules, self.render_mode = rules, render_mode
        self._agents(num_players, observation_size(rules), self.table.seats[0].layout.size + self._waits)
        self._opponents: list[np.ndarray] = []
        self._snapshot_turn = -1
        self._np_random: np.random.Generator | None = None

    def _new_table(self, seed: int | None, options: dict[str, Any] | None) -> None:
        """A new game, or with ``options={"state": Table.to_dict()}`` a saved one; other keys
        are ignored, as PettingZoo's own API test expects."""
        state = (options or {}).get("state")
        if state is not None:
            table = Table.from_dict(state, self.rules)
            if table.num_players != len(self.possible_agents):
                raise ValueError(f"state has {table.num_players} seats, the environment {len(self.possible_agents)}")
            self.table = table
        else:
            if seed is not None or self._np_random is None:  # unseeded resets go on with the same generator
                self._np_random = make_rng(seed)
            self.table = Table(len(self.possible_agents), self.rules, seed=self._np_random)
        self._snapshot_turn = -1
        self._snapshot()

    def _snapshot(self) -> None:
        """Record every sheet when a turn begins: opponents are shown as they were then."""
        if self._snapshot_turn != self.table.turn:
            self._opponents = [opponent_features(self.table, q) for q in range(self.table.num_players)]
            self._snapshot_turn = self.table.turn

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_seat[agent]
        return {
            "observation": observe_seat(self.table, seat, self._opponents),
            "action_mask": self._mask(seat),
        }

    def _mask(self, seat: int) -> np.ndarray:
        return self.table.legal_mask(seat).astype(np.int8)

    def _info(self, agent: str) -> dict[str, Any]:
        seat = self.table.seats[self.agent_seat[agent]]
        winners = np.zeros(self.table.num_players, np.int8)
        if self.table.over:
            winners[self.table.winners()] = 1
        return {
            "score": np.int64(seat.score()),
            "phase_code": phase_code(seat.phase),
            "turn": np.int64(self.table.turn),
            "winners": winners,
        }

    def describe_action(self, agent: str, action: int) -> dict[str, Any]:
        """An action of ``agent`` in its current state, in the game's words."""
        return self.table.seats[self.agent_seat[agent]].describe(action)

    def get_state(self) -> dict[str, Any]:
        return self.table.to_dict()

    def render(self) -> str | np.ndarray | None:
        """The text picture (``"ansi"``) or every sheet drawn side by side (``"rgb_array"``)."""
        return picture(self.table, self.render_mode)


# ------------------------------------------------------------------ AEC
class raw_env(_TableCore, AECEnv):
    """AEC multiplayer Number Drop (see the module docstring)."""

    def __init__(self, num_players: int = 2, render_mode: str | None = None, rules: Rules = DEFAULT_RULES) -> None:
        AECEnv.__init__(self)
        self._setup(num_players, render_mode, rules)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._new_table(seed, options)
        self._begin(self.table.over)
        self.agent_selection = self._next_agent()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        changes = self.table.step(self.agent_seat[agent], action)  # a refused move raises, changing nothing
        self._snapshot()
        self._stepped(agent, changes, self.table.over)
        self.agent_selection = self._next_agent()

    def _next_agent(self) -> str:
        if self.table.over:
            return self.agents[0] if self.agents else self.possible_agents[0]
        waiting = self.table.to_act()
        current = self.agent_seat.get(getattr(self, "agent_selection", None), -1)
        if current in waiting:
            return self.possible_agents[current]  # a seat plays its whole turn before the next one
        first, n = self.table.first_player, self.table.num_players
        return self.possible_agents[min(waiting, key=lambda p: (p - first) % n)]


def env(num_players: int = 2, render_mode: str | None = None, rules: Rules = DEFAULT_RULES) -> AECEnv:
    """The AEC environment with PettingZoo's order enforcing."""
    return wrappers.OrderEnforcingWrapper(raw_env(num_players, render_mode, rules))


# ------------------------------------------------------------------ parallel
class parallel_env(_TableCore, ParallelEnv):
    """Parallel multiplayer Number Drop: seats that owe a decision decide at once, the others wait."""

    _waits = True

    def __init__(self, num_players: int = 2, render_mode: str | None = None, rules: Rules = DEFAULT_RULES) -> None:
        self._setup(num_players, render_mode, rules)
        self.wait_action: int = self.table.seats[0].layout.size
        """The last index of the action space: the one legal action of a seat that owes no decision."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new game, or a saved one; a finished saved table has no agents left (empty dicts)."""
        self._new_table(seed, options)
        self.agents = [] if self.table.over else self.possible_agents[:]
        return {a: self.observe(a) for a in self.agents}, {a: self._info(a) for a in self.agents}

    def step(self, actions: dict[str, Any]):
        if not self.agents:
            raise ValueError("the game is over: call reset() before step()")
        strangers = [a for a in actions if a not in self.agents]
        if strangers:
            raise ValueError(f"actions for {strangers}, who are not agents of this game ({self.agents})")
        deciding = [self.possible_agents[p] for p in self.table.to_act()]
        missing = [a for a in deciding if a not in actions]
        if missing:
            raise ValueError(f"no action for {missing}, who owe a decision")
        checked = {a: self._checked(a, act) for a, act in actions.items()}  # all first: a refusal changes nothing
        changes = np.zeros(self.table.num_players)
        for a in deciding:
            changes += self.table.step(self.agent_seat[a], checked[a])
        self._snapshot()
        rewards = {a: float(changes[self.agent_seat[a]]) for a in self.agents}
        over = self.table.over
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, False)
        observations = {a: self.observe(a) for a in self.agents}
        infos = {a: self._info(a) for a in self.agents}
        if over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def describe_action(self, agent: str, action: int) -> dict[str, Any]:
        """As the AEC env's, and the wait action as ``choice: "wait"`` (``valid: False`` for a seat
        that owes a decision)."""
        act = as_action(action, self.wait_action + 1)
        if act != self.wait_action:
            return super().describe_action(agent, act)
        seat = self.agent_seat[agent]
        out: dict[str, Any] = {"phase": self.table.seats[seat].phase.value, "action": act, "choice": "wait"}
        if seat in self.table.to_act():
            out["valid"] = False  # as the engine marks an action outside the seat's phase
        return out

    def _mask(self, seat: int) -> np.ndarray:
        """The engine's mask and, last, the wait action: on alone for a seat with nothing to decide."""
        if seat in self.table.to_act():
            return np.append(self.table.legal_mask(seat), False).astype(np.int8)
        waiting = np.zeros(self.wait_action + 1, np.int8)
        waiting[self.wait_action] = 1
        return waiting

    def _checked(self, agent: str, action: Any) -> int:
        """``agent``'s action as an index, refused (naming the agent) unless its mask allows it."""
        seat = self.agent_seat[agent]
        try:
            act = as_action(action, self.wait_action + 1)
        except (TypeError, ValueError) as e:
            raise type(e)(f"{agent}: {e}") from None
        if self._mask(seat)[act]:
            return act
        if act == self.wait_action:
            raise ValueError(f"{agent}: the wait action {act} is not legal: the seat owes a decision")
        if seat not in self.table.to_act():
            raise ValueError(
                f"{agent}: action {act} is not legal: the seat owes no decision now, "
                f"its only action is the wait action {self.wait_action}"
            )
        raise ValueError(f"{agent}: action {act} is not legal: {self.describe_action(agent, act)}")
