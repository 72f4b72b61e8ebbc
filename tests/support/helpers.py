"""Helpers shared by the rules tests: chosen positions and decisions in game words.

Positions are built through the public persistence API (``SoloGame.to_dict`` /
``SoloGame.from_dict``), so every constructed state passes the engine's own
validation. Decisions are found by scanning the legal actions with ``describe``,
never by recomputing the action encoding.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from numberdrop_env import DEFAULT_RULES, WILD, Phase, Rules, SoloGame
from numberdrop_env.engine.rules import EMPTY, X

Cell = tuple[int, int]


# --------------------------------------------------------------------- positions
def grid(rows: Mapping[int, str] | None, rules: Rules = DEFAULT_RULES) -> np.ndarray:
    """Grid values from a picture: ``{row: "7 chars"}``, '.' empty, 'X' block, digits numbers."""
    values = np.full((rules.rows, rules.cols), EMPTY, np.int64)
    for r, line in (rows or {}).items():
        assert len(line) == rules.cols, f"row {r}: {line!r} must have {rules.cols} characters"
        for c, ch in enumerate(line):
            if ch == ".":
                continue
            values[r, c] = X if ch == "X" else int(ch)
    return values


def make_game(
    rows: Mapping[int, str] | None = None,
    *,
    used: Iterable[Cell] | None = None,
    identical: Iterable[int] = (),
    consecutive: Iterable[int] = (),
    bonus: bool = False,
    circled: Iterable[str] | None = None,
    lines: Iterable[int] | None = None,
    penalties: Iterable[int] = (),
    tiles: Iterable[str] = ("I", "O", "T", "L", "S"),
    notches: Iterable[int] = (0, 0, 0, 0, 0),
    dice: Iterable[int] = (1, 2, 3, 5),
    shape_face: str = "I",
    phase: str = "slide",
    star_pending: bool | None = None,
    turn: int = 1,
    rules: Rules = DEFAULT_RULES,
    seed: int = 0,
) -> SoloGame:
    """A solo game in a chosen position, rebuilt with ``SoloGame.from_dict``.

    ``identical`` / ``consecutive`` are the box sizes already scored (``bonus`` the
    bonus box). Scored boxes need as many used cells as their sizes add up to: give
    them as ``used`` (cells of the picture), or leave ``used`` None and that many used
    ``0`` cells are added, filling empty cells of columns 0..cols-2 (so the filler
    never completes a row) from row ``regular_rows - 1`` down, left to right. Letters default
    to circled exactly where both boxes of a size are scored, lines to ticked exactly where a
    regular row is complete, penalty rows to unticked (a mid-turn position). ``star_pending`` defaults to what phase
    ``slide`` requires (a star on some die), else False.
    """
    values = grid(rows, rules)
    sizes = list(rules.box_sizes)
    ident = np.zeros(len(sizes), bool)
    consec = np.zeros(len(sizes), bool)
    for s in identical:
        ident[sizes.index(s)] = True
    for s in consecutive:
        consec[sizes.index(s)] = True
    scored = sum(s for s, d in zip(sizes, ident) if d) + sum(s for s, d in zip(sizes, consec) if d)
    scored += rules.bonus_size if bonus else 0
    used_arr = np.zeros(values.shape, bool)
    if used is None:
        need = scored
        for r in range(rules.regular_rows - 1, -1, -1):
            for c in range(rules.cols - 1):
                if need and values[r, c] == EMPTY:
                    values[r, c] = 0
                    used_arr[r, c] = True
                    need -= 1
    else:
        for r, c in used:
            used_arr[r, c] = True
    if circled is None:
        circ = ident & consec
    else:
        circ = np.zeros(len(sizes), bool)
        for letter in circled:
            circ[rules.letters.index(letter)] = True
    filled = values != EMPTY
    if lines is None:
        line_arr = filled[: rules.regular_rows].all(axis=1)
    else:
        line_arr = np.zeros(rules.regular_rows, bool)
        line_arr[list(lines)] = True
    pen = np.zeros(rules.rows - rules.regular_rows, bool)
    for r in penalties:
        pen[r - rules.regular_rows] = True
    dice = tuple(dice)
    if star_pending is None:
        star_pending = phase == "slide" and (WILD in dice or shape_face == "*")
    data = SoloGame(rules, seed=seed).to_dict()
    data["sheet"] = {
        "values": values.tolist(),
        "used": used_arr.tolist(),
        "identical": ident.tolist(),
        "consecutive": consec.tolist(),
        "circled": circ.tolist(),
        "crossed": [False] * len(sizes),
        "lines": line_arr.tolist(),
        "penalties": pen.tolist(),
        "bonus": bool(bonus),
    }
    data.update(
        tiles=list(tiles),
        notches=list(notches),
        dice=list(dice),
        shape_face=shape_face,
        phase=phase,
        star_pending=star_pending,
        turn=turn,
        block_tile=None,
        pending_cells=[],
        pending_values=[],
        selection=[],
    )
    return SoloGame.from_dict(data, rules)


def add_cells(game: SoloGame, rows: Mapping[int, str]) -> SoloGame:
    """Write more cells on a game's sheet, as blocks dropped earlier in this turn would.

    For positions ``from_dict`` need not accept as a turn's start (penalty rows already
    occupied); the cached legal mask is dropped.
    """
    values = grid(rows, game.rules)
    cells = [(int(r), int(c)) for r, c in zip(*np.nonzero(values != EMPTY))]
    game.sheet.write(cells, [int(values[c]) for c in cells])
    game._mask = None
    return game


def picture(cells: Mapping[Cell, int | str], rules: Rules = DEFAULT_RULES) -> dict[int, str]:
    """The ``rows`` picture of a few cells: ``{(row, col): value or "X"}``."""
    rows: dict[int, list[str]] = {}
    for (r, c), v in cells.items():
        rows.setdefault(r, ["."] * rules.cols)[c] = str(v)
    return {r: "".join(line) for r, line in rows.items()}


def connected_order(cells: Iterable[Cell]) -> list[Cell]:
    """The cells in an order where each one touches an earlier one (breadth first)."""
    rest = sorted(map(tuple, cells))
    order = [rest.pop(0)]
    while rest:
        nxt = next(c for c in rest if any(abs(c[0] - o[0]) + abs(c[1] - o[1]) == 1 for o in order))
        rest.remove(nxt)
        order.append(nxt)
    return order


# --------------------------------------------------------------------- decisions
def legal_actions(game: SoloGame) -> list[int]:
    return [int(a) for a in np.flatnonzero(game.legal_mask())]


def placements(game: SoloGame, legal_only: bool = True) -> dict[int, dict]:
    """Describe every placement action of the pending phase (``block`` or ``place``)."""
    assert game.phase in (Phase.PLACE, Phase.BLOCK), game.phase
    mask = game.legal_mask()
    out = {}
    for a in game.layout.phase_range(game.phase):
        if legal_only and not mask[a]:
            continue
        out[a] = game.describe(a)
    return out


def landed(desc: dict) -> frozenset[Cell] | None:
    return None if desc["cells"] is None else frozenset(tuple(c) for c in desc["cells"])


def placement_for(game: SoloGame, cells: Iterable[Cell], legal_only: bool = True) -> int | None:
    """The placement action whose landed cells are exactly ``cells`` (None if none)."""
    want = frozenset(map(tuple, cells))
    for a, desc in placements(game, legal_only).items():
        if landed(desc) == want:
            return a
    return None


def orientation_index(game: SoloGame, shape_cells: Iterable[Cell]) -> int:
    """Index of the fixed orientation equal to ``shape_cells`` (any translation)."""
    cells = list(shape_cells)
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    norm = tuple(sorted((r - r0, c - c0) for r, c in cells))
    return game.table.orientations.index(norm)


def placement_at(game: SoloGame, shape_cells: Iterable[Cell], column: int) -> int:
    """Placement action of one orientation with its leftmost cell in ``column``."""
    o = orientation_index(game, shape_cells)
    base = game.layout.block if game.phase is Phase.BLOCK else game.layout.place
    return base + o * game.rules.cols + column


def slide(game: SoloGame, letter: str) -> int:
    return game.step(game.layout.slide + game.rules.letters.index(letter))


def drop(game: SoloGame, values: Mapping[Cell, int]) -> int:
    """Place the tetromino on exactly these cells and write these values (wilds as needed)."""
    reward = 0
    a = placement_for(game, values.keys())
    assert a is not None, f"no legal placement lands on {sorted(values)}"
    reward += game.step(a)
    assert game.phase is Phase.ARRANGE
    cells = [tuple(c) for c in game.pending_cells]
    target = [values[c] for c in cells]
    chosen = None
    for act in legal_actions(game):
        vals = game.describe(act)["values"]
        if all(v == t or v == "*" for v, t in zip(vals, target)):
            chosen = act
            break
    assert chosen is not None, f"dice {game.dice} cannot write {target}"
    reward += game.step(chosen)
    while game.phase is Phase.WILD:
        cell = tuple(game.describe(game.layout.wild)["cell"])
        reward += game.step(game.layout.wild + values[cell])
    assert game.phase is Phase.COMBO or game.is_over, game.phase
    return reward


def drop_block(game: SoloGame, cells: Iterable[Cell]) -> int:
    a = placement_for(game, cells)
    assert a is not None, f"no legal block placement lands on {sorted(cells)}"
    return game.step(a)


def select_action(game: SoloGame, cell: Cell) -> int:
    r, c = cell
    return game.layout.select + r * game.rules.cols + c


def selectable(game: SoloGame) -> set[Cell]:
    mask = game.legal_mask()
    L = game.layout
    return {divmod(a - L.select, game.rules.cols) for a in range(L.select, L.confirm) if mask[a]}


def score_combo(game: SoloGame, ordered_cells: Iterable[Cell]) -> int:
    """Select the cells in this order and confirm; raises ValueError if any step is illegal."""
    reward = 0
    for cell in ordered_cells:
        reward += game.step(select_action(game, cell))
    return reward + game.step(game.layout.confirm)


def pass_turn(game: SoloGame) -> int:
    return game.step(game.layout.pass_)


def can_confirm(game: SoloGame) -> bool:
    return bool(game.legal_mask()[game.layout.confirm])


def offered(game: SoloGame, cells: Iterable[Cell]) -> bool:
    """Whether the combination made of exactly ``cells`` can be selected in some order and confirmed."""
    target = frozenset(map(tuple, cells))
    seen: dict[tuple, bool] = {}

    def search(g: SoloGame, chosen: tuple[Cell, ...]) -> bool:
        key = (frozenset(chosen), chosen[-1] if chosen else None)
        if key in seen:
            return seen[key]
        if len(chosen) == len(target):
            result = can_confirm(g)
        else:
            result = False
            for cell in sorted(selectable(g) & (target - set(chosen))):
                h = g.clone()
                h.step(select_action(h, cell))
                if search(h, chosen + (cell,)):
                    result = True
                    break
        seen[key] = result
        return result

    assert game.phase is Phase.COMBO, game.phase
    return search(game, ())


def finish_turn(game: SoloGame) -> int:
    """Play the rest of the turn with the first legal decision at each step, then pass."""
    reward = 0
    turn = game.turn
    while not game.is_over and game.turn == turn:
        if game.phase is Phase.COMBO:
            reward += pass_turn(game)
        else:
            reward += game.step(legal_actions(game)[0])
    return reward


def mid_turn_game(seed: int, random_steps: int = 12) -> SoloGame:
    """A game left mid-turn by a few random decisions (as if another player began the turn)."""
    game = SoloGame(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(random_steps):
        legal = np.flatnonzero(game.legal_mask())
        game.step(int(legal[rng.integers(len(legal))]))
    return game


def finish_legally(policy, game: SoloGame) -> None:
    """Let ``policy`` play ``game`` to its end, checking every action against the mask."""
    policy.reset(0)
    while not game.is_over:
        mask = game.legal_mask()
        action = policy.act(game, mask)
        assert mask[action], f"{policy.name} played a masked action {action}"
        game.step(action)


def eager(game: SoloGame, mask: np.ndarray, rng: np.random.Generator) -> int:
    """A random legal decision that scores combinations whenever it can, so letters get circled
    and block phases come up (a uniform random player rarely scores)."""
    L = game.layout
    legal = np.flatnonzero(mask)
    if game.phase is Phase.COMBO and rng.random() < 0.9:
        if mask[L.confirm]:
            return L.confirm
        select = legal[(legal >= L.select) & (legal < L.pass_)]
        if len(select):
            return int(rng.choice(select))
    return int(rng.choice(legal))
