"""Legal-action masks against the independent brute-force oracle (tests/oracles/oracle.py).

At every decision of many games (random, low-stacking and block-rushing play, deep
into near-full grids) the engine's mask must equal exactly what RULES.md allows, as
computed by the oracle; every transition between decisions is checked against an
independent model of the solo turn (RULES.md section 6). Combination selection is
also checked on crafted sheets rich in identical regions, branching paths and the
bonus size 8, at every prefix of many selections.
"""

from __future__ import annotations

import copy
import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from numberdrop_env import DEFAULT_RULES, Phase, SoloGame, layout_for
from tests.oracles import oracle

# ----------------------------------------------------------------------------- constants
# Written down from RULES.md, not read from the engine.
BOX_SIZES = (3, 4, 5, 6, 7)
LETTERS = "ABCDE"
SHAPES = "IOTLS"
LAST_NOTCH = 4
DICE_FACES = (  # section 2, '*' = star
    (1, "*", 3, 4, 5, 7),
    (1, 2, "*", 4, 5, 6),
    (2, 3, 4, "*", 6, 7),
    (1, 2, 3, 5, 6, 7),
)
SHAPE_DIE = tuple("IOTLS*")
ORIENTATIONS = {name: oracle.fixed_orientations(cells) for name, cells in oracle.TETROMINOES.items()}

L = layout_for(DEFAULT_RULES)
ENGINE_STAR = -1  # how the engine writes a star in ``game.dice`` (rules.WILD)

SETTINGS = settings(derandomize=True, deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------- oracle cache
# combo_options re-enumerates every combination of the sheet on each call; the
# selection walks below call it at every prefix of many selections on the same sheet,
# so the two enumerations are memoised per (grid, used, sizes). combo_options itself
# (and its logic) is the oracle's, unchanged.
_ENUM_CACHE: dict = {}
_orig_identical = oracle.identical_combos
_orig_paths = oracle.consecutive_paths


def _cached(fn, tag):
    def wrapper(values, used, sizes):
        key = (tag, np.asarray(values, np.int8).tobytes(), np.asarray(used, bool).tobytes(), frozenset(sizes))
        if key not in _ENUM_CACHE:
            if len(_ENUM_CACHE) > 256:
                _ENUM_CACHE.clear()
            _ENUM_CACHE[key] = fn(values, used, sizes)
        return _ENUM_CACHE[key]

    return wrapper


@pytest.fixture(autouse=True)
def _memoised_oracle(monkeypatch):
    monkeypatch.setattr(oracle, "identical_combos", _cached(_orig_identical, "identical"))
    monkeypatch.setattr(oracle, "consecutive_paths", _cached(_orig_paths, "consecutive"))
    yield
    _ENUM_CACHE.clear()


# ----------------------------------------------------------------------------- helpers
def grid(game: SoloGame) -> np.ndarray:
    return np.array(game.sheet.values, dtype=np.int8)


def expected_allowed(face: str) -> tuple[str, ...]:
    return tuple(SHAPES) if face == "*" else (face,)


def orientations_of(shapes) -> set:
    out: set = set()
    for s in shapes:
        out |= ORIENTATIONS[s]
    return out


def oracle_landings(values, shapes) -> set:
    return oracle.legal_landings(values, orientations_of(shapes))


def unmasked(game: SoloGame) -> np.ndarray:
    return np.flatnonzero(game.legal_mask())


def open_sizes(game: SoloGame):
    s = game.sheet
    ident = [k for k, done in zip(BOX_SIZES, s.identical) if not done]
    consec = [k for k, done in zip(BOX_SIZES, s.consecutive) if not done]
    return ident, consec, not bool(s.bonus)


def oracle_combo(game: SoloGame, selection=None):
    ident, consec, bonus_open = open_sizes(game)
    sel = list(game.selection if selection is None else selection)
    return oracle.combo_options(grid(game), np.array(game.sheet.used), ident, consec, bonus_open, sel)


def dice_as_faces(game: SoloGame) -> list:
    return ["*" if v == ENGINE_STAR else int(v) for v in game.dice]


# ----------------------------------------------------------------------------- per-phase checks
def check_placements(game: SoloGame, shapes, offset: int, stats: Counter | None = None) -> None:
    mask = game.legal_mask()
    acts = [a for a in np.flatnonzero(mask)]
    assert all(offset <= a < offset + (L.arrange - L.place) for a in acts)
    values = grid(game)
    landings = {shape: oracle_landings(values, [shape]) for shape in shapes}  # once per check, not per action
    landed = []
    for a in acts:
        d = game.describe(int(a))
        assert d["shape"] in shapes, (game.phase, d)
        cells = frozenset(tuple(c) for c in d["cells"])
        assert cells == frozenset(game.table.cells(int(a) - offset, game.sheet.heights))
        # the landing is one of this very shape's landings, per the oracle
        assert cells in landings[d["shape"]], d
        landed.append(cells)
    assert len(set(landed)) == len(landed), "two unmasked placements land on the same cells"
    assert set(landed) == oracle_landings(values, shapes)
    if stats is not None:
        fitting = sum(8 - max(c for _, c in o) - 1 for o in orientations_of(shapes))
        if len(landed) < fitting:
            stats["top_limited"] += 1  # the row limit (RULES.md 3.5) removed some placements
        if not landed:
            stats["nothing_fits"] += 1


def check_combo_mask(game: SoloGame) -> None:
    mask = game.legal_mask()
    options, confirm = oracle_combo(game)
    got = {divmod(int(a) - L.select, 7) for a in np.flatnonzero(mask[L.select : L.confirm]) + L.select}
    assert got == options, (game.selection, sorted(got ^ options))
    assert bool(mask[L.confirm]) == confirm, game.selection
    assert mask[L.pass_]


def check_mask(game: SoloGame, stats: Counter | None = None) -> None:
    """The mask is exactly what the rules allow in the pending phase."""
    mask = game.legal_mask()
    assert mask.dtype == bool and mask.shape == (L.size,)
    p = game.phase
    if p is Phase.OVER:
        assert not mask.any()
        return
    span = L.phase_range(p)
    outside = np.ones(L.size, bool)
    outside[span.start : span.stop] = False
    assert not mask[outside].any(), f"actions outside phase {p} unmasked"
    assert mask.any(), f"no legal action in phase {p}"
    if p is Phase.START:
        assert set(np.flatnonzero(mask)) == {c for c in range(7) if grid(game)[0, c] == oracle.EMPTY}
    elif p in (Phase.SLIDE, Phase.STAR_SLIDE):
        letters = {LETTERS[a - L.slide] for a in np.flatnonzero(mask)}
        assert letters == {LETTERS[t] for t in range(5) if game.notches[t] < LAST_NOTCH}
    elif p is Phase.BLOCK:
        shape = game.tiles[game.block_tile]
        check_placements(game, (shape,), L.block, stats)
    elif p is Phase.PLACE:
        assert game.allowed_shapes() == expected_allowed(game.shape_face)
        check_placements(game, game.allowed_shapes(), L.place, stats)
    elif p is Phase.ARRANGE:
        cells = [tuple(c) for c in game.pending_cells]
        seen = []
        for a in np.flatnonzero(mask):
            d = game.describe(int(a))
            assert [tuple(c) for c in d["cells"]] == cells
            seen.append(tuple(d["values"]))
        assert len(set(seen)) == len(seen), "two arrangements give the same assignment"
        assert set(seen) == set(itertools.permutations(dice_as_faces(game)))
    elif p is Phase.WILD:
        assert set(np.flatnonzero(mask)) == set(range(L.wild, L.wild + 10))
    elif p is Phase.COMBO:
        check_combo_mask(game)


# ----------------------------------------------------------------------------- turn model
class TurnModel:
    """Independent model of the solo turn (RULES.md section 6), fed the engine's dice.

    ``owed`` is whether the star slide is still to be resolved this turn.
    """

    def __init__(self, stats: Counter | None = None) -> None:
        self.owed = False
        self.stats = Counter() if stats is None else stats

    def new_turn(self, game: SoloGame) -> None:
        assert game.phase is Phase.SLIDE
        faces = dice_as_faces(game)
        for v, die in zip(faces, DICE_FACES):
            assert v in die, (faces, DICE_FACES)
        assert game.shape_face in SHAPE_DIE
        self.owed = "*" in faces or game.shape_face == "*"

    # Each resolver returns (phase, block_tile) with ``notches`` updated in place,
    # or ("end", None) when the turn ends (the piece is lost).
    def after_slide(self, tile, notches, game, values):
        if notches[tile] == LAST_NOTCH and not game.sheet.circled[tile]:
            if oracle_landings(values, [game.tiles[tile]]):
                return "block", tile
            self.stats["block_discarded"] += 1
        return self.resolve_star(notches, game, values)

    def resolve_star(self, notches, game, values):
        if self.owed:
            self.owed = False
            if game.shape_face == "*":
                if (notches < LAST_NOTCH).any():
                    return "star_slide", None
            else:
                tile = list(game.tiles).index(game.shape_face)
                if notches[tile] < LAST_NOTCH:
                    notches[tile] += 1
                    return self.after_slide(tile, notches, game, values)
        if oracle_landings(values, expected_allowed(game.shape_face)):
            return "place", None
        return "end", None


def check_end_of_turn(before: SoloGame, after: SoloGame, filled_values: np.ndarray, notches) -> None:
    """The turn ended: line boxes, penalty boxes, game end or a fresh roll."""
    occupied_penalty = [(filled_values[r] != oracle.EMPTY).any() for r in oracle.PENALTY_ROWS]
    full_lines = [(filled_values[r] != oracle.EMPTY).all() for r in oracle.REGULAR_ROWS]
    assert list(after.sheet.penalties) == occupied_penalty
    assert list(after.sheet.lines) == full_lines
    assert np.array_equal(after.notches, notches)
    if any(occupied_penalty) or (np.asarray(notches) == LAST_NOTCH).all():
        assert after.phase is Phase.OVER
    else:
        assert after.phase is Phase.SLIDE
        assert after.turn == before.turn + 1
    # the official score at a turn boundary is the oracle's score of the sheet
    s = after.sheet
    assert after.score() == oracle.score_from_sheet(
        [k for k, d in zip(BOX_SIZES, s.identical) if d],
        [k for k, d in zip(BOX_SIZES, s.consecutive) if d],
        bool(s.bonus),
        grid(after),
    )


def check_transition(
    model: TurnModel, before: SoloGame, action: int, after: SoloGame, reward: int, stats: Counter
) -> None:
    """``after`` is ``before`` with ``action`` applied, as the rules say."""
    p = before.phase
    values = grid(before)
    notches = np.array(before.notches)
    assert reward == after.score() - before.score()
    stats[p.value] += 1

    def expect(outcome, block, new_values):
        phase, tile = outcome
        if phase == "end":
            stats["piece_lost"] += 1
            assert after.phase is Phase.OVER, "a lost piece ends the game (a penalty row is occupied)"
            check_end_of_turn(before, after, new_values, notches)
            return
        assert after.phase.value == phase, (p, action, phase, after.phase)
        assert np.array_equal(after.notches, notches)
        assert after.turn == before.turn
        assert np.array_equal(grid(after), new_values)
        if phase == "block":
            assert after.block_tile == tile
            stats["block_due"] += 1

    if p is Phase.START:
        col = action - L.start
        values[0, col] = 1
        assert np.array_equal(grid(after), values)
        assert after.phase is Phase.SLIDE and after.turn == 1
    elif p in (Phase.SLIDE, Phase.STAR_SLIDE):
        tile = action - L.slide
        if p is Phase.STAR_SLIDE:
            assert before.shape_face == "*"
        assert notches[tile] < LAST_NOTCH
        notches[tile] += 1
        if notches[tile] == LAST_NOTCH:
            stats["circled_protects" if before.sheet.circled[tile] else "reaches_last"] += 1
        expect(model.after_slide(tile, notches, before, values), None, values)
    elif p is Phase.BLOCK:
        cells = before.describe(action)["cells"]
        for r, c in cells:
            assert values[r, c] == oracle.EMPTY
            values[r, c] = oracle.X
        expect(model.resolve_star(notches, before, values), None, values)
    elif p is Phase.PLACE:
        cells = [tuple(c) for c in before.describe(action)["cells"]]
        assert after.phase is Phase.ARRANGE
        assert [tuple(c) for c in after.pending_cells] == sorted(cells)
        assert np.array_equal(grid(after), values)
    elif p in (Phase.ARRANGE, Phase.WILD):
        d = before.describe(action)
        if p is Phase.ARRANGE:
            written = [ENGINE_STAR if v == "*" else v for v in d["values"]]
        else:
            written = list(before.pending_values)
            written[written.index(ENGINE_STAR)] = d["value"]
            stats["wild_value"] += 1
        cells = [tuple(c) for c in before.pending_cells]
        if ENGINE_STAR in written:
            assert after.phase is Phase.WILD
            assert list(after.pending_values) == written
            assert np.array_equal(grid(after), values)
        else:
            for (r, c), v in zip(cells, written):
                values[r, c] = v
            assert after.phase is Phase.COMBO and after.selection == []
            assert np.array_equal(grid(after), values)
    elif p is Phase.COMBO:
        if action == L.confirm:
            sel = [tuple(c) for c in before.selection]
            k = len(sel)
            vals = [int(values[c]) for c in sel]
            kind = "identical" if len(set(vals)) == 1 else "consecutive"
            used = np.array(before.sheet.used)
            for c in sel:
                assert not used[c]
                used[c] = True
            assert np.array_equal(after.sheet.used, used)
            s0, s1 = before.sheet, after.sheet
            if k == 8:
                assert not s0.bonus and s1.bonus
                stats["bonus"] += 1
            else:
                i = BOX_SIZES.index(k)
                boxes0, boxes1 = (
                    (s0.identical, s1.identical) if kind == "identical" else (s0.consecutive, s1.consecutive)
                )
                assert not boxes0[i] and boxes1[i]
                both = s1.identical[i] and s1.consecutive[i]
                assert bool(s1.circled[i]) == bool(both)
                stats[f"scored_{kind}_{k}"] += 1
            check_end_of_turn(before, after, values, notches)
        elif action == L.pass_:
            assert np.array_equal(after.sheet.used, before.sheet.used)
            check_end_of_turn(before, after, values, notches)
        else:
            cell = divmod(action - L.select, 7)
            assert after.phase is Phase.COMBO
            assert [tuple(c) for c in after.selection] == [tuple(c) for c in before.selection] + [cell]
            stats[f"select_depth_{len(after.selection)}"] += 1
    if after.phase is Phase.SLIDE and after.turn == before.turn + 1:
        model.new_turn(after)


# ----------------------------------------------------------------------------- policies
def choose(game: SoloGame, rng: np.random.Generator, style: str) -> int:
    legal = unmasked(game)
    p = game.phase
    if p is Phase.COMBO:
        cells = legal[legal < L.confirm]
        if len(cells) and rng.random() < 0.8:
            return int(rng.choice(cells))
        if game.legal_mask()[L.confirm] and rng.random() < 0.8:
            return L.confirm
        return int(rng.choice(legal))
    if p in (Phase.PLACE, Phase.BLOCK) and style in ("low", "rush") and rng.random() < 0.9:
        tops = np.array([max(r for r, _ in game.describe(int(a))["cells"]) for a in legal])
        return int(rng.choice(legal[tops == tops.min()]))
    if p in (Phase.SLIDE, Phase.STAR_SLIDE) and style == "rush":
        notches = np.array([game.notches[a - L.slide] for a in legal])
        return int(rng.choice(legal[notches == notches.max()]))
    return int(rng.choice(legal))


def play_checked(seed: int, style: str, stats: Counter, max_steps: int = 2000) -> SoloGame:
    game = SoloGame(seed=seed)
    rng = np.random.default_rng(10_000 + seed)
    model = TurnModel(stats)
    for _ in range(max_steps):
        check_mask(game, stats)
        if game.is_over:
            return game
        action = choose(game, rng, style)
        before = game.clone()
        reward = game.step(action)
        check_transition(model, before, action, game, reward, stats)
    raise AssertionError("game did not end")


# ----------------------------------------------------------------------------- tests: play
@pytest.mark.parametrize(
    "style,seeds",
    [
        ("random", range(0, 40)),
        ("low", range(100, 125)),
        ("rush", range(200, 225)),
    ],
)
def test_masks_and_transitions_along_games(style, seeds):
    stats: Counter = Counter()
    filled = []
    for seed in seeds:
        game = play_checked(seed, style, stats)
        filled.append(int((grid(game) != oracle.EMPTY).sum()))
    # the games reached the situations this test is about
    for key in ("slide", "place", "arrange", "combo"):
        assert stats[key] > 0, (key, stats)
    assert stats["select_depth_3"] > 0
    if style in ("low", "rush"):
        assert stats["block"] > 10 and stats["reaches_last"] > 20, stats
        assert max(filled) >= 70, filled  # dense grids
    else:
        assert stats["top_limited"] > 10, stats  # placements near the top of the grid
    assert stats["star_slide"] > 0 and stats["wild"] > 0, stats


@settings(derandomize=True, deadline=None, max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), style=st.sampled_from(["random", "low", "rush"]))
def test_masks_along_games_hypothesis(seed, style):
    play_checked(seed, style, Counter())


# ----------------------------------------------------------------------------- crafted states
def base_state(seed: int = 7, phase: Phase = Phase.COMBO) -> dict:
    """A real mid-game state in ``phase``, as a dict to edit."""
    game = SoloGame(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(500):
        if game.phase is phase:
            return game.to_dict()
        legal = unmasked(game)
        if game.phase is Phase.COMBO:
            game.step(L.pass_)
        else:
            game.step(int(rng.choice(legal)))
        if game.is_over:
            game = SoloGame(seed=seed + 1000)
    raise AssertionError(f"phase {phase} not reached")


def empty_sheet_dict() -> dict:
    return {
        "values": [[-1] * 7 for _ in range(14)],
        "used": [[False] * 7 for _ in range(14)],
        "identical": [False] * 5,
        "consecutive": [False] * 5,
        "circled": [False] * 5,
        "crossed": [False] * 5,
        "lines": [False] * 11,
        "penalties": [False] * 3,
        "bonus": False,
    }


def sheet_dict(values: np.ndarray, used: np.ndarray, identical, consecutive, bonus: bool) -> dict:
    d = empty_sheet_dict()
    d["values"] = values.astype(int).tolist()
    d["used"] = used.astype(bool).tolist()
    d["identical"] = [bool(x) for x in identical]
    d["consecutive"] = [bool(x) for x in consecutive]
    d["circled"] = [bool(a and b) for a, b in zip(identical, consecutive)]
    d["bonus"] = bool(bonus)
    return d


def combo_game(
    values: np.ndarray, used=None, identical=(False,) * 5, consecutive=(False,) * 5, bonus=False
) -> SoloGame:
    state = base_state()
    used = np.zeros((14, 7), bool) if used is None else used
    state["sheet"] = sheet_dict(values, used, identical, consecutive, bonus)
    state["selection"] = []
    return SoloGame.from_dict(state)


def random_rich_sheet(rng: np.random.Generator):
    """A sheet of few distinct values: big identical regions, branching ascending paths."""
    rows = int(rng.integers(2, 7))
    style = rng.integers(3)
    values = np.full((14, 7), -1, np.int64)
    if style == 0:  # few values in a narrow window
        lo = int(rng.integers(0, 7))
        body = rng.integers(lo, lo + 3, (rows, 7))
    elif style == 1:  # diagonal ramps: ascending paths in two directions, with noise
        off = int(rng.integers(0, 4))
        body = (np.add.outer(np.arange(rows), np.arange(7)) // int(rng.integers(1, 3)) + off) % 10
        noise = rng.random((rows, 7)) < 0.25
        body = np.where(noise, rng.integers(0, 10, (rows, 7)), body)
    else:  # two values in blobs
        a, b = rng.choice(10, 2, replace=False)
        body = np.where(rng.random((rows, 7)) < 0.6, a, b)
    values[:rows] = body
    values[:rows][rng.random((rows, 7)) < 0.08] = oracle.X
    values[0, 0] = 1 if values[0, 0] == oracle.X else values[0, 0]
    # partial top row
    top = rng.random(7) < 0.5
    values[rows, top] = rng.integers(0, 10, int(top.sum()))
    # scored boxes and as many used cells as their sizes
    identical = rng.random(5) < 0.3
    consecutive = rng.random(5) < 0.3
    bonus = bool(rng.random() < 0.15)
    need = sum(k for k, d in zip(BOX_SIZES, identical) if d) + sum(k for k, d in zip(BOX_SIZES, consecutive) if d)
    need += 8 * bonus
    numbers = np.flatnonzero(((values >= 0) & (values <= 9)).reshape(-1))
    used = np.zeros(14 * 7, bool)
    if need > len(numbers) // 2:
        identical[:] = False
        consecutive[:] = False
        bonus = False
        need = 0
    used[rng.choice(numbers, need, replace=False)] = True
    return values, used.reshape(14, 7), identical, consecutive, bonus


def walk_selections(game: SoloGame, rng: np.random.Generator, walks: int, stats: Counter) -> None:
    """Random selections cell by cell; at every prefix the mask equals the oracle's."""
    state = game.to_dict()
    for _ in range(walks):
        g = SoloGame.from_dict(copy.deepcopy(state))
        while True:
            check_combo_mask(g)
            cells = np.flatnonzero(g.legal_mask()[L.select : L.confirm]) + L.select
            confirm = g.legal_mask()[L.confirm]
            if confirm:
                stats[f"confirmable_{len(g.selection)}"] += 1
            if not len(cells):
                assert confirm or not g.selection, "selection dead-ends"
                break
            if confirm and rng.random() < 0.15:
                break
            g.step(int(rng.choice(cells)))
        stats["max_depth"] = max(stats["max_depth"], len(g.selection))
        if g.legal_mask()[L.confirm]:
            before = g.clone()
            reward = g.step(L.confirm)
            assert reward == g.score() - before.score()
            boxes = lambda game: sum(game.sheet.score_breakdown()[k] for k in ("identical", "consecutive", "bonus"))  # noqa: E731
            assert boxes(g) - boxes(before) == len(before.selection)
            assert g.sheet.used.sum() - before.sheet.used.sum() == len(before.selection)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_combo_selection_on_rich_sheets(seed):
    rng = np.random.default_rng(seed)
    values, used, identical, consecutive, bonus = random_rich_sheet(rng)
    game = combo_game(values, used, identical, consecutive, bonus)
    walk_selections(game, rng, walks=12, stats=Counter())


def test_rich_sheets_reach_long_selections_and_the_bonus():
    stats: Counter = Counter()
    rng = np.random.default_rng(2024)
    for _ in range(30):
        values, used, identical, consecutive, bonus = random_rich_sheet(rng)
        walk_selections(combo_game(values, used, identical, consecutive, bonus), rng, 10, stats)
    assert stats["max_depth"] == 8, stats
    assert stats["confirmable_8"] > 0 and stats["confirmable_7"] > 0, stats


def test_bonus_identical_region_every_prefix_exhaustively():
    """A U-shaped region of nine fives with the bonus open: every selection, exhaustively."""
    values = np.full((14, 7), -1, np.int64)
    values[0] = [5, 5, 5, 5, 5, 5, 5]
    values[1] = [5, 6, 7, 8, 3, 4, 5]
    values[2, :7] = [4, 7, 8, 9, 9, 9, 9]
    used = np.zeros((14, 7), bool)
    used[2, 3:7] = True  # four used cells, ...
    identical = [False, True, False, False, False]  # ... for the identical 4 box
    game = combo_game(values, used, identical, [False] * 5, False)
    state = game.to_dict()
    seen: Counter = Counter()

    def dfs(sel):
        g = SoloGame.from_dict({**state, "selection": [list(c) for c in sel]})
        check_combo_mask(g)
        seen[len(sel)] += 1
        if g.legal_mask()[L.confirm]:
            seen[f"confirm_{len(sel)}"] += 1
        for a in np.flatnonzero(g.legal_mask()[L.select : L.confirm]):
            dfs(sel + [divmod(int(a), 7)])

    dfs([])
    assert seen["confirm_8"] > 0 and seen["confirm_3"] > 0 and seen["confirm_5"] > 0
    assert seen[9] == 0


def test_branching_consecutive_paths_every_prefix():
    """A lattice of ascending values: paths branch at every step, up to the bonus size."""
    values = np.full((14, 7), -1, np.int64)
    for r in range(7):
        for c in range(7):
            values[r, c] = (r + c) % 10
    game = combo_game(values)
    state = game.to_dict()
    seen = Counter()

    def dfs(sel, depth_limit):
        g = SoloGame.from_dict({**state, "selection": [list(c) for c in sel]})
        check_combo_mask(g)
        seen[len(sel)] += 1
        if g.legal_mask()[L.confirm]:
            seen["confirm"] += 1
        if len(sel) >= depth_limit:
            return
        cells = np.flatnonzero(g.legal_mask()[L.select : L.confirm])
        # from the corner cells only, to keep it small, then every branch
        if not sel:
            cells = [a for a in cells if divmod(int(a), 7) in ((0, 0), (6, 6), (3, 3), (2, 5))]
        for a in cells:
            dfs(sel + [divmod(int(a), 7)], depth_limit)

    dfs([], 8)
    assert seen[8] > 0 and seen["confirm"] > 0


def test_closed_boxes_restrict_selection():
    """Only sizes with an open box are offered; with everything scored nothing is offered."""
    values = np.full((14, 7), -1, np.int64)
    values[0] = [1, 2, 3, 4, 5, 6, 7]
    values[1] = [4, 4, 4, 4, 4, 0, 0]
    values[2, :4] = [9, 8, 9, 9]
    for ident, consec, bonus in [
        ([True, False, True, True, True], [False, True, True, True, True], True),
        ([False, True, False, True, True], [True, True, True, False, True], False),
        ([True, True, True, True, False], [False, True, True, True, True], True),
        ([True] * 5, [True] * 5, True),
    ]:
        need = sum(k for k, d in zip(BOX_SIZES, ident) if d) + sum(k for k, d in zip(BOX_SIZES, consec) if d)
        need += 8 * bonus
        # park the used cells (zeros) in rows 3.., X elsewhere, so the count matches the boxes
        full = values.copy()
        used = np.zeros((14, 7), bool)
        spots = [(r, c) for r in range(3, 12) for c in range(7)]
        for i, (r, c) in enumerate(spots):
            if i < need:
                full[r, c] = 0
                used[r, c] = True
            elif r < 3 + (need + 6) // 7:
                full[r, c] = oracle.X
        game = combo_game(full, used, ident, consec, bonus)
        walk_selections(game, np.random.default_rng(need), walks=30, stats=Counter())
        if all(ident) and all(consec) and bonus:
            assert not game.legal_mask()[L.select : L.confirm].any()


# ----------------------------------------------------------------------------- crafted transitions
def slide_state(tiles, notches, dice, shape_face, values=None, circled_letter=None) -> dict:
    """A state at the mandatory slide of a turn."""
    state = base_state(phase=Phase.SLIDE)
    sheet = empty_sheet_dict()
    if values is None:
        values = np.full((14, 7), -1, np.int64)
        values[0, 3] = 1
    used = np.zeros((14, 7), bool)
    ident = [False] * 5
    consec = [False] * 5
    if circled_letter is not None:
        i = LETTERS.index(circled_letter)
        ident[i] = consec[i] = True
        k = 2 * BOX_SIZES[i]
        spots = [(r, c) for r in range(14) for c in range(7) if 0 <= values[r, c] <= 9][:k]
        assert len(spots) == k
        for s in spots:
            used[s] = True
    sheet = sheet_dict(values, used, ident, consec, False)
    sheet["lines"] = [bool((np.asarray(values[r]) != -1).all()) for r in range(11)]
    star = ENGINE_STAR in dice or shape_face == "*"
    state.update(
        sheet=sheet,
        tiles=list(tiles),
        notches=list(notches),
        dice=list(dice),
        shape_face=shape_face,
        phase="slide",
        star_pending=star,
        block_tile=None,
        pending_cells=[],
        pending_values=[],
        selection=[],
        turn=3,
        rng=None,
    )
    return state


def test_no_star_no_star_slide():
    game = SoloGame.from_dict(slide_state("IOTLS", [0, 0, 0, 0, 0], [1, 2, 3, 5], "T"), seed=1)
    game.step(L.slide + 0)
    assert game.phase is Phase.PLACE
    assert list(game.notches) == [1, 0, 0, 0, 0]


def test_star_on_number_die_slides_the_shape_die_tile():
    game = SoloGame.from_dict(slide_state("IOTLS", [0, 0, 0, 0, 0], [ENGINE_STAR, 2, 3, 5], "T"), seed=1)
    game.step(L.slide + 0)
    assert list(game.notches) == [1, 0, 1, 0, 0]
    assert game.phase is Phase.PLACE


def test_same_tile_twice_in_one_turn():
    game = SoloGame.from_dict(slide_state("IOTLS", [0, 0, 2, 0, 0], [ENGINE_STAR, 2, 3, 5], "T"), seed=1)
    game.step(L.slide + 2)
    assert list(game.notches) == [0, 0, 4, 0, 0]
    assert game.phase is Phase.BLOCK and game.block_tile == 2
    check_mask(game)


def test_star_slide_on_a_tile_at_the_last_notch_does_nothing():
    game = SoloGame.from_dict(slide_state("IOTLS", [0, 0, 4, 0, 0], [1, ENGINE_STAR, 3, 5], "T"), seed=1)
    game.step(L.slide + 1)
    assert list(game.notches) == [0, 1, 4, 0, 0]
    assert game.phase is Phase.PLACE


def test_star_shape_face_gives_a_free_star_slide():
    game = SoloGame.from_dict(slide_state("IOTLS", [4, 4, 3, 0, 0], [1, 2, 3, 5], "*"), seed=1)
    game.step(L.slide + 3)
    assert game.phase is Phase.STAR_SLIDE
    check_mask(game)
    assert set(unmasked(game) - L.slide) == {2, 3, 4}
    game.step(L.slide + 3)
    assert list(game.notches) == [4, 4, 3, 2, 0]
    assert game.phase is Phase.PLACE and game.allowed_shapes() == tuple(SHAPES)


def test_star_shape_face_with_every_tile_done_skips_the_star_slide():
    game = SoloGame.from_dict(slide_state("IOTLS", [4, 4, 4, 4, 3], [1, 2, 3, 5], "*"), seed=1)
    game.step(L.slide + 4)
    assert game.phase is Phase.BLOCK and game.block_tile == 4  # S block due first
    cells_before = int((grid(game) != -1).sum())
    game.step(int(unmasked(game)[0]))
    assert int((grid(game) != -1).sum()) == cells_before + 4
    assert game.phase is Phase.PLACE  # no tile left for the free star slide
    # the game ends after this turn: the last tile reached the last notch
    game.step(int(unmasked(game)[0]))
    game.step(int(unmasked(game)[0]))
    game.step(L.pass_)
    assert game.is_over


def test_mandatory_block_drops_before_the_star_slide():
    game = SoloGame.from_dict(slide_state("IOTLS", [3, 0, 3, 0, 0], [1, 2, ENGINE_STAR, 5], "T"), seed=1)
    game.step(L.slide + 0)  # I reaches the last notch
    assert game.phase is Phase.BLOCK and game.block_tile == 0
    assert list(game.notches) == [4, 0, 3, 0, 0]  # the star slide is not resolved yet
    check_mask(game)
    game.step(int(unmasked(game)[0]))
    assert list(game.notches) == [4, 0, 4, 0, 0]
    assert game.phase is Phase.BLOCK and game.block_tile == 2  # then the T block
    check_mask(game)
    game.step(int(unmasked(game)[0]))
    assert game.phase is Phase.PLACE
    assert int((grid(game) == oracle.X).sum()) == 8


def test_circled_letter_protects_from_its_block():
    game = SoloGame.from_dict(
        slide_state("IOTLS", [3, 0, 0, 0, 0], [1, 2, 3, 5], "T", values=_low_numbers(), circled_letter="A"), seed=1
    )
    game.step(L.slide + 0)
    assert game.notches[0] == 4
    assert game.phase is Phase.PLACE
    assert not (grid(game) == oracle.X).any()


def test_unprotected_tile_drops_its_block():
    game = SoloGame.from_dict(
        slide_state("IOTLS", [3, 0, 0, 0, 0], [1, 2, 3, 5], "T", values=_low_numbers(), circled_letter="B"), seed=1
    )
    game.step(L.slide + 0)
    assert game.phase is Phase.BLOCK and game.block_tile == 0
    check_mask(game)


def _low_numbers() -> np.ndarray:
    values = np.full((14, 7), -1, np.int64)
    values[0] = [1, 2, 3, 4, 5, 6, 7]
    values[1] = [2, 3, 4, 5, 6, 7, 8]
    values[2] = [3, 4, 5, 6, 7, 8, 9]
    return values


def test_block_that_does_not_fit_is_discarded_and_the_piece_is_lost():
    """RULES.md 3.5: a block with no legal placement is discarded; no tetromino fits: piece lost."""
    values = np.full((14, 7), -1, np.int64)
    values[:11] = np.arange(77).reshape(11, 7) % 10  # rows 0..10 full: heights 11
    tiles = "LIOTS"  # A = L, B = I
    state = slide_state(tiles, [3, 3, 0, 0, 0], [ENGINE_STAR, 2, 3, 5], "I", values=values)
    game = SoloGame.from_dict(state, seed=1)
    game.step(L.slide + 0)  # the L block is due
    assert game.phase is Phase.BLOCK and game.block_tile == 0
    check_mask(game)
    # an L standing in column 3, foot to the right: column 3 becomes full to row 13
    target = frozenset({(11, 3), (12, 3), (13, 3), (11, 4)})
    action = next(int(a) for a in unmasked(game) if frozenset(map(tuple, game.describe(int(a))["cells"])) == target)
    game.step(action)
    # star slide: the I reaches the last notch but no I fits anywhere: discarded;
    # the shape die shows I, which does not fit either: the piece is lost, game over.
    assert list(game.notches) == [4, 4, 0, 0, 0]
    assert int((grid(game) == oracle.X).sum()) == 4
    assert game.is_over
    assert game.score() == 11 * 2 - 5 * 3


def test_start_phase_offers_every_column():
    game = SoloGame(seed=5)
    assert game.phase is Phase.START
    check_mask(game)
    assert set(unmasked(game)) == set(range(7))
