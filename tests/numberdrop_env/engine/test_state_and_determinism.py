"""Seeding, determinism, state round trips and refusal of malformed states or actions."""

from __future__ import annotations

import copy
import json
import re

import gymnasium
import numpy as np
import pytest

import numberdrop_env  # noqa: F401  (registers NumberDrop-v0)
from numberdrop_env import Phase, SoloGame, layout_for
from numberdrop_env.engine.actions import PHASES
from numberdrop_env.envs.decision import NumberDropEnv, observe

L = layout_for(SoloGame().rules)
STAR = -1  # a star in ``game.dice``


# ----------------------------------------------------------------------------- helpers
def policy_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


def same_obs(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) and a[k].dtype == b[k].dtype for k in a)


def same_info(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for k in a:
        if isinstance(a[k], np.ndarray):
            if not np.array_equal(a[k], b[k]):
                return False
        elif a[k] != b[k]:
            return False
    return True


def env_trajectory(seed: int, policy_seed: int, max_steps: int = 3000):
    env = gymnasium.make("NumberDrop-v0")
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    out = [("reset", obs, info)]
    for _ in range(max_steps):
        action = policy_action(info["action_mask"], rng)
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((action, obs, reward, terminated, truncated, info))
        if terminated or truncated:
            return out
    raise AssertionError("episode did not end")


def trajectories_equal(t1, t2) -> bool:
    if len(t1) != len(t2):
        return False
    for a, b in zip(t1, t2):
        if a[0] != b[0] or not same_obs(a[1], b[1]):
            return False
        if a[0] == "reset":
            if not same_info(a[2], b[2]):
                return False
        elif a[2:5] != b[2:5] or not same_info(a[5], b[5]):
            return False
    return True


def game_at(seed: int, steps: int, policy_seed: int | None = None) -> SoloGame:
    """A game after ``steps`` random legal actions (or at its end)."""
    game = SoloGame(seed=seed)
    rng = np.random.default_rng(seed if policy_seed is None else policy_seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.step(policy_action(game.legal_mask(), rng))
    return game


def game_in_phase(phase: Phase, seed: int = 0, want=lambda g: True) -> SoloGame:
    for s in range(seed, seed + 500):
        game = SoloGame(seed=s)
        rng = np.random.default_rng(s)
        while not game.is_over:
            if game.phase is phase and want(game):
                return game
            game.step(policy_action(game.legal_mask(), rng))
    raise AssertionError(f"no game reached {phase}")


def play_out(game: SoloGame, rng: np.random.Generator, steps: int = 10_000):
    """Actions, rewards and states until the end."""
    record = []
    for _ in range(steps):
        if game.is_over:
            return record
        action = policy_action(game.legal_mask(), rng)
        reward = game.step(action)
        record.append((action, reward, json.dumps(game.to_dict())))
    raise AssertionError("game did not end")


# ----------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("seed", [0, 1, 17, 12345])
def test_same_seed_same_trajectory_through_gymnasium_make(seed):
    t1 = env_trajectory(seed, policy_seed=seed + 1)
    t2 = env_trajectory(seed, policy_seed=seed + 1)
    assert trajectories_equal(t1, t2)


def test_same_env_reset_with_same_seed_replays():
    env = gymnasium.make("NumberDrop-v0")
    runs = []
    for _ in range(2):
        rng = np.random.default_rng(5)
        obs, info = env.reset(seed=99)
        rows = [(obs, info)]
        while True:
            obs, reward, term, trunc, info = env.step(policy_action(info["action_mask"], rng))
            rows.append((obs, reward, info))
            if term:
                break
        runs.append(rows)
    assert len(runs[0]) == len(runs[1])
    for a, b in zip(runs[0], runs[1]):
        assert same_obs(a[0], b[0]) and same_info(a[-1], b[-1])
        assert a[1:-1] == b[1:-1]


@pytest.mark.parametrize("s1,s2", [(0, 1), (1, 2), (3, 1000), (42, 43)])
def test_different_seeds_differ(s1, s2):
    t1 = env_trajectory(s1, policy_seed=7)
    t2 = env_trajectory(s2, policy_seed=7)
    assert not trajectories_equal(t1, t2)
    # the dice differ within the first turns
    g1, g2 = SoloGame(seed=s1), SoloGame(seed=s2)
    rolls1, rolls2 = [], []
    for g, rolls in ((g1, rolls1), (g2, rolls2)):
        g.step(0)
        rolls.append((g.tiles, g.dice, g.shape_face))
        rng = np.random.default_rng(0)
        while g.turn < 4 and not g.is_over:
            g.step(policy_action(g.legal_mask(), rng))
            rolls.append((g.dice, g.shape_face))
    assert rolls1 != rolls2


def test_solo_game_same_seed_same_game():
    for seed in range(20):
        r1 = play_out(SoloGame(seed=seed), np.random.default_rng(seed))
        r2 = play_out(SoloGame(seed=seed), np.random.default_rng(seed))
        assert r1 == r2


def test_generator_seed_is_used():
    a = SoloGame(seed=np.random.default_rng(11))
    b = SoloGame(seed=np.random.default_rng(11))
    assert play_out(a, np.random.default_rng(0)) == play_out(b, np.random.default_rng(0))


@pytest.mark.parametrize("bad", ["1", 1.5, 2.0, True, [1], (1,), np.float64(3.0), {"seed": 1}])
def test_bad_seed_type_is_a_type_error(bad):
    with pytest.raises(TypeError, match="seed"):
        SoloGame(seed=bad)


# ----------------------------------------------------------------------------- round trips
def assert_same_game(a: SoloGame, b: SoloGame) -> None:
    assert np.array_equal(a.legal_mask(), b.legal_mask())
    assert same_obs(observe(a), observe(b))
    assert a.to_dict() == b.to_dict()
    assert a.score() == b.score() and a.phase is b.phase


@pytest.mark.parametrize("seed", range(8))
def test_json_round_trip_at_every_decision_continues_identically(seed):
    game = SoloGame(seed=seed)
    rng = np.random.default_rng(1000 + seed)
    checked_future = 0
    step = 0
    while not game.is_over:
        data = game.to_dict()
        restored = SoloGame.from_dict(json.loads(json.dumps(data)))
        assert_same_game(game, restored)
        # from time to time, both play the same actions to the end
        if step % 9 == 4:
            g1, g2 = game.clone(), restored
            future_rng = np.random.default_rng(step)
            while not g1.is_over:
                a = policy_action(g1.legal_mask(), future_rng)
                assert g1.step(a) == g2.step(a)
                assert_same_game(g1, g2)
            checked_future += 1
        game.step(policy_action(game.legal_mask(), rng))
        step += 1
    assert_same_game(game, SoloGame.from_dict(json.loads(json.dumps(game.to_dict()))))
    assert checked_future >= 1


def test_round_trip_in_every_phase():
    seen = set()
    for seed in range(60):
        game = SoloGame(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            seen.add(game.phase)
            restored = SoloGame.from_dict(json.loads(json.dumps(game.to_dict())))
            assert_same_game(game, restored)
            if game.is_over:
                break
            game.step(policy_action(game.legal_mask(), rng))
    assert seen == set(PHASES)  # every solo phase (WAIT exists only at a multiplayer table)


def test_round_trip_without_rng_uses_the_seed():
    game = game_at(3, 25)
    data = game.to_dict(include_rng=False)
    assert data["rng"] is None
    a = SoloGame.from_dict(copy.deepcopy(data), seed=8)
    b = SoloGame.from_dict(copy.deepcopy(data), seed=8)
    assert play_out(a, np.random.default_rng(1)) == play_out(b, np.random.default_rng(1))


def test_save_and_load(tmp_path):
    for seed, steps in [(0, 0), (1, 1), (2, 7), (3, 30), (4, 400)]:
        game = game_at(seed, steps)
        path = tmp_path / f"game{seed}.json"
        game.save(path)
        json.loads(path.read_text())  # a plain JSON file
        loaded = SoloGame.load(path)
        assert_same_game(game, loaded)
        assert play_out(game.clone(), np.random.default_rng(5)) == play_out(loaded, np.random.default_rng(5))
        loaded_str = SoloGame.load(str(path))
        assert loaded_str.to_dict() == game.to_dict()


def test_load_non_json_file_is_a_value_error(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("this is { not json")
    with pytest.raises(ValueError, match=re.escape(str(path))):
        SoloGame.load(path)
    path.write_text(json.dumps([1, 2, 3]))
    with pytest.raises((ValueError, TypeError), match="state"):
        SoloGame.load(path)


def test_env_reset_with_state_continues_the_saved_game():
    game = game_at(21, 17)
    assert not game.is_over
    data = json.loads(json.dumps(game.to_dict()))
    env = gymnasium.make("NumberDrop-v0")
    env.reset(seed=0)
    obs, info = env.reset(options={"state": data})
    assert same_obs(obs, observe(game))
    assert np.array_equal(info["action_mask"], game.legal_mask())
    assert info["score"] == game.score()
    assert env.unwrapped.game.to_dict() == game.to_dict()
    rng = np.random.default_rng(3)
    while not game.is_over:
        a = policy_action(game.legal_mask(), rng)
        reward = game.step(a)
        obs, env_reward, term, trunc, info = env.step(a)
        assert env_reward == reward and term == game.is_over and not trunc
        assert same_obs(obs, observe(game))
        assert env.unwrapped.game.to_dict() == game.to_dict()


def test_env_reset_with_state_then_plain_reset_is_seeded_again():
    env = gymnasium.make("NumberDrop-v0")
    obs_a, _ = env.reset(seed=4)
    env.reset(options={"state": game_at(9, 20).to_dict()})
    obs_b, _ = env.reset(seed=4)
    assert same_obs(obs_a, obs_b)


# ----------------------------------------------------------------------------- malformed states
def _set(path, value):
    def mutate(d):
        target = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _pop(key):
    return lambda d: d.pop(key)


def _combo_state() -> dict:
    def rich(g):
        numbers = ((g.sheet.values >= 0) & (g.sheet.values <= 9)).sum()
        return numbers >= 10 and (g.sheet.values[1] != -1).sum() >= 2 and not g.sheet.used.any()

    return game_in_phase(Phase.COMBO, 0, rich).to_dict()


def _arrange_state() -> dict:
    return game_in_phase(Phase.ARRANGE, 0).to_dict()


def _slide_state() -> dict:
    return game_in_phase(Phase.SLIDE, 0, lambda g: g.turn >= 2).to_dict()


def _first_empty(d, row_from=0):
    for r in range(row_from, 14):
        for c in range(7):
            if d["sheet"]["values"][r][c] == -1:
                return r, c
    raise AssertionError


def _first_number(d):
    for r in range(14):
        for c in range(7):
            if 0 <= d["sheet"]["values"][r][c] <= 9 and not d["sheet"]["used"][r][c]:
                return r, c
    raise AssertionError


def _used_on_empty(d):
    r, c = _first_empty(d)
    d["sheet"]["used"][r][c] = True


def _used_without_box(d):
    r, c = _first_number(d)
    d["sheet"]["used"][r][c] = True


def _box_without_used(d):
    d["sheet"]["identical"][0] = True


def _circled_without_boxes(d):
    d["sheet"]["circled"][2] = True


def _both_boxes_not_circled(d):
    cells = [(r, c) for r in range(14) for c in range(7) if 0 <= d["sheet"]["values"][r][c] <= 9]
    assert len(cells) >= 6
    for r, c in cells[:6]:
        d["sheet"]["used"][r][c] = True
    d["sheet"]["identical"][0] = True
    d["sheet"]["consecutive"][0] = True  # both size-3 boxes, letter A left uncircled


def _line_not_complete(d):
    d["sheet"]["lines"][10] = True


def _penalty_row_empty(d):
    d["sheet"]["penalties"][2] = True


def _die_face(index, value):
    def mutate(d):
        d["dice"][index] = value

    return mutate


def _not_a_landing(d):
    d["pending_cells"] = [[12, 0], [12, 1], [12, 2], [12, 3]]


def _unbuildable_selection(d):
    r, c = _first_empty(d)
    d["selection"] = [[r, c]]


def _selection_outside_combo(d):
    r, c = _first_number(d)
    d["selection"] = [[r, c]]


def _bad_pending_in_place(d):
    d["phase"] = "place"  # with the four pending cells of the arrange state still there


def _star_without_star(d):
    d["dice"] = [1, 2, 3, 5]
    d["shape_face"] = "I"
    d["star_pending"] = True


RNG_GARBAGE = [
    "garbage",
    17,
    [],
    {},
    {"bit_generator": "MT19937"},
    {"bit_generator": "PCG64"},
    {"bit_generator": "PCG64", "state": None, "has_uint32": 0, "uinteger": 0},
    {"bit_generator": "PCG64", "state": {"state": "x", "inc": 1}, "has_uint32": 0, "uinteger": 0},
    {"bit_generator": "PCG64", "state": {"state": -1, "inc": 1}, "has_uint32": 0, "uinteger": 0},
    {"bit_generator": "PCG64", "state": {"state": 2**200, "inc": 1}, "has_uint32": 0, "uinteger": 0},
    {"bit_generator": "PCG64", "state": {"state": 1, "inc": 1}, "has_uint32": 5, "uinteger": -3},
]

# (case id, which base state, mutation, text the error must contain)
MALFORMED = [
    ("unknown key", "combo", _set(["surprise"], 1), "surprise"),
    ("missing key", "combo", _pop("turn"), "turn"),
    ("missing sheet key", "combo", lambda d: d["sheet"].pop("used"), "used"),
    ("unknown sheet key", "combo", _set(["sheet", "extra"], []), "extra"),
    ("wrong version", "combo", _set(["version"], 2), "version"),
    ("version as text", "combo", _set(["version"], "1"), "version"),
    ("state not a dict", None, None, "state"),
    ("sheet not a dict", "combo", _set(["sheet"], [1, 2]), "sheet"),
    ("value 11", "combo", lambda d: d["sheet"]["values"][3].__setitem__(2, 11), "sheet.values"),
    ("value -2", "combo", lambda d: d["sheet"]["values"][3].__setitem__(2, -2), "sheet.values"),
    ("value text", "combo", lambda d: d["sheet"]["values"][3].__setitem__(2, "5"), "sheet.values"),
    ("value float", "combo", lambda d: d["sheet"]["values"][3].__setitem__(2, 2.5), "sheet.values"),
    ("grid too small", "combo", lambda d: d["sheet"]["values"].pop(), "sheet.values"),
    ("ragged grid", "combo", lambda d: d["sheet"]["values"][5].pop(), "sheet.values"),
    ("used not bool", "combo", lambda d: d["sheet"]["used"][0].__setitem__(0, 2), "sheet.used"),
    ("used on an empty cell", "combo", _used_on_empty, "sheet.used"),
    ("used cell without a box", "combo", _used_without_box, "sheet.used"),
    ("box without used cells", "combo", _box_without_used, "used"),
    ("circled letter without both boxes", "combo", _circled_without_boxes, "sheet.circled"),
    ("both boxes, letter not circled", "combo", _both_boxes_not_circled, "sheet.circled"),
    ("ticked line not complete", "combo", _line_not_complete, "sheet.lines"),
    ("ticked penalty row empty", "combo", _penalty_row_empty, "sheet.penalties"),
    ("bonus not bool", "combo", _set(["sheet", "bonus"], 1), "sheet.bonus"),
    ("notch 5", "combo", _set(["notches"], [5, 0, 0, 0, 0]), "notches"),
    ("notch -1", "combo", _set(["notches"], [0, -1, 0, 0, 0]), "notches"),
    ("four notches", "combo", _set(["notches"], [0, 0, 0, 0]), "notches"),
    ("notch as float", "combo", _set(["notches"], [0.0, 0, 0, 0, 0]), "notches"),
    ("notches not a list", "combo", _set(["notches"], "00000"), "notches"),
    ("tiles not a permutation", "combo", _set(["tiles"], ["I", "I", "T", "L", "S"]), "tiles"),
    ("unknown tile", "combo", _set(["tiles"], ["I", "O", "T", "L", "Z"]), "tiles"),
    ("tiles as a string", "combo", _set(["tiles"], "IOTLS"), "tiles"),
    ("die 4 shows 4", "combo", _die_face(3, 4), "dice"),
    ("die 1 shows 2", "combo", _die_face(0, 2), "dice"),
    ("die 2 shows 9", "combo", _die_face(1, 9), "dice"),
    ("die 4 shows a star", "combo", _die_face(3, STAR), "dice"),
    ("three dice", "combo", lambda d: d["dice"].pop(), "dice"),
    ("no dice after start", "combo", _set(["dice"], None), "dice"),
    ("shape face Z", "combo", _set(["shape_face"], "Z"), "shape_face"),
    ("unknown phase", "combo", _set(["phase"], "dance"), "phase"),
    ("start phase mid-game", "combo", _set(["phase"], "start"), "phase"),
    ("turn negative", "combo", _set(["turn"], -1), "turn"),
    ("turn as text", "combo", _set(["turn"], "3"), "turn"),
    ("star_pending not bool", "slide", _set(["star_pending"], 1), "star_pending"),
    ("star owed without a star", "slide", _star_without_star, "star_pending"),
    ("block tile outside block phase", "combo", _set(["block_tile"], 0), "block_tile"),
    ("phase place with pending cells", "arrange", _bad_pending_in_place, "pending_cells"),
    ("arrange without pending cells", "arrange", _set(["pending_cells"], []), "pending_cells"),
    ("pending cells not a landing", "arrange", _not_a_landing, "pending_cells"),
    ("pending cell outside grid", "arrange", lambda d: d["pending_cells"][0].__setitem__(1, 7), "pending_cells"),
    ("pending values in arrange", "arrange", _set(["pending_values"], [1, 2, 3, 5]), "pending_values"),
    ("selection that cannot be built", "combo", _unbuildable_selection, "selection"),
    ("selection outside combo", "arrange", _selection_outside_combo, "selection"),
    ("selection cell malformed", "combo", _set(["selection"], [[0]]), "selection"),
] + [(f"rng garbage {i}", "combo", _set(["rng"], bad), "rng") for i, bad in enumerate(RNG_GARBAGE)]

_BASES: dict = {}


def base(kind: str) -> dict:
    if kind not in _BASES:
        _BASES[kind] = {"combo": _combo_state, "arrange": _arrange_state, "slide": _slide_state}[kind]()
        SoloGame.from_dict(copy.deepcopy(_BASES[kind]))  # the unmutated base is valid
    return copy.deepcopy(_BASES[kind])


def bad_state(kind, mutate):
    if kind is None:
        return [1, 2, 3]
    data = base(kind)
    mutate(data)
    return data


@pytest.mark.parametrize("case,kind,mutate,field", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_state_is_refused_naming_the_field(case, kind, mutate, field):
    data = bad_state(kind, mutate)
    with pytest.raises((ValueError, TypeError), match=re.escape(field)):
        SoloGame.from_dict(data)


@pytest.mark.parametrize("case,kind,mutate,field", MALFORMED[::3], ids=[m[0] for m in MALFORMED[::3]])
def test_failed_env_reset_leaves_the_current_game_unchanged(case, kind, mutate, field):
    env = gymnasium.make("NumberDrop-v0")
    obs, info = env.reset(seed=31)
    rng = np.random.default_rng(2)
    for _ in range(15):
        obs, _, term, _, info = env.step(policy_action(info["action_mask"], rng))
        assert not term
    before = env.unwrapped.game.to_dict()
    twin = env.unwrapped.game.clone()
    with pytest.raises((ValueError, TypeError)):
        env.reset(options={"state": bad_state(kind, mutate)})
    assert env.unwrapped.game.to_dict() == before
    # and it still plays on exactly as before
    rng = np.random.default_rng(9)
    while not twin.is_over:
        a = policy_action(twin.legal_mask(), rng)
        r = twin.step(a)
        obs, reward, term, _, info = env.step(a)
        assert reward == r and same_obs(obs, observe(twin))


def _all_notches_done(d):
    d["notches"] = [4, 4, 4, 4, 4]


def _star_slide_without_star_face(d):
    d["phase"] = "star_slide"
    d["shape_face"] = "I"
    d["star_pending"] = False


def _star_slide_nothing_to_slide(d):
    d["phase"] = "star_slide"
    d["shape_face"] = "*"
    d["star_pending"] = False
    d["notches"] = [4, 4, 4, 4, 4]


def _over_without_reason(d):
    d["phase"] = "game_over"
    d["star_pending"] = False


def _penalty_row_at_turn_start(d):
    r, c = _first_empty(d, row_from=11)
    d["sheet"]["values"][r][c] = 5


def _block_that_cannot_drop(d):
    for r in range(14):
        for c in range(7):
            if d["sheet"]["values"][r][c] == -1 and (r, c) != (13, 0):
                d["sheet"]["values"][r][c] = 10
    d["sheet"]["lines"] = [True] * 11


def _block_state() -> dict:
    return game_in_phase(Phase.BLOCK, 0).to_dict()


# States no play can reach, some with no legal action although the game is not over.
# (case id, base state, mutation, regex of acceptable field names in the error)
INCONSISTENT = [
    ("slide with every tile at the last notch", "slide", _all_notches_done, "notches|phase"),
    ("star_slide without a star on the shape die", "slide", _star_slide_without_star_face, "phase|shape_face"),
    ("star_slide with every tile at the last notch", "slide", _star_slide_nothing_to_slide, "notches|phase"),
    ("block phase for a block that cannot drop", "block", _block_that_cannot_drop, "block_tile|phase"),
    ("game over without a reason", "slide", _over_without_reason, "phase"),
    ("penalty row filled at the start of a turn", "slide", _penalty_row_at_turn_start, "phase|penalties|values"),
]


@pytest.mark.parametrize("case,kind,mutate,fields", INCONSISTENT, ids=[m[0] for m in INCONSISTENT])
def test_unreachable_state_is_refused(case, kind, mutate, fields):
    data = base(kind) if kind != "block" else copy.deepcopy(_block_state())
    mutate(data)
    try:
        game = SoloGame.from_dict(data)
    except (ValueError, TypeError) as err:
        assert re.search(fields, str(err)), str(err)
        return
    pytest.fail(
        f"accepted an unreachable state ({case}): phase {game.phase.value}, "
        f"{int(game.legal_mask().sum())} legal actions, over={game.is_over}"
    )


def test_unknown_reset_option_is_refused_and_changes_nothing():
    env = NumberDropEnv()
    env.reset(seed=1)
    env.step(3)
    before = env.game.to_dict()
    with pytest.raises(ValueError, match="stat"):
        env.reset(options={"stat": before})
    assert env.game.to_dict() == before


# ----------------------------------------------------------------------------- illegal actions
def test_masked_actions_raise_and_change_nothing():
    checked = set()
    for seed in range(12):
        game = SoloGame(seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            mask = game.legal_mask().copy()
            masked = np.flatnonzero(~mask)
            span = L.phase_range(game.phase)
            inside = [a for a in masked if span.start <= a < span.stop]
            picks = list(rng.choice(masked, min(3, len(masked)), replace=False))
            if inside:
                picks.append(int(rng.choice(inside)))
            before = game.to_dict()
            for a in picks:
                with pytest.raises(ValueError) as err:
                    game.step(int(a))
                msg = str(err.value)
                assert str(int(a)) in msg and repr(game.phase.value) in msg, msg
                assert game.to_dict() == before
                assert np.array_equal(game.legal_mask(), mask)
                checked.add(game.phase)
            game.step(policy_action(mask, rng))
    assert checked == set(PHASES) - {Phase.OVER}


@pytest.mark.parametrize("bad", ["3", 3.0, None, True, np.bool_(True), [3], np.array([3]), 3 + 0j])
def test_wrong_action_type_is_a_type_error(bad):
    game = SoloGame(seed=0)
    before = game.to_dict()
    with pytest.raises(TypeError):
        game.step(bad)
    assert game.to_dict() == before
    env = NumberDropEnv()
    env.reset(seed=0)
    with pytest.raises(TypeError):
        env.step(bad)


def test_numpy_integer_actions_are_accepted():
    game = SoloGame(seed=0)
    game.step(np.int64(2))
    game.step(np.array(L.slide + int(np.flatnonzero(game.legal_mask())[0] - L.slide)))
    assert game.turn == 1


@pytest.mark.parametrize("bad", [-1, L.size, 10**9])
def test_out_of_range_action_is_a_value_error(bad):
    game = SoloGame(seed=0)
    with pytest.raises(ValueError, match=str(bad)):
        game.step(bad)


def test_stepping_after_game_over_raises():
    game = game_at(6, 10_000)
    assert game.is_over
    before = game.to_dict()
    assert not game.legal_mask().any()
    for a in (0, L.pass_, L.slide):
        with pytest.raises(ValueError):
            game.step(a)
    assert game.to_dict() == before

    env = gymnasium.make("NumberDrop-v0")
    obs, info = env.reset(seed=6)
    rng = np.random.default_rng(0)
    term = False
    while not term:
        obs, _, term, _, info = env.step(policy_action(info["action_mask"], rng))
    assert not info["action_mask"].any()
    with pytest.raises(ValueError):
        env.step(0)
