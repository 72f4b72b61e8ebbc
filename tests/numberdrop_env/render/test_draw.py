"""The drawn sheet: pixels where the game says, the same state the same picture, and
``render_mode="rgb_array"`` as Gymnasium's recorders and SB3 use it."""

from __future__ import annotations

import sys
import types

import gymnasium as gym
import numpy as np
import pytest

import numberdrop_env  # noqa: F401  (registers the environments)
from agents.numberdrop.greedy import GreedyPolicy
from numberdrop_env import multiplayer_v0
from numberdrop_env.engine.rules import EMPTY, X
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.engine.table import Table
from numberdrop_env.render import draw
from numberdrop_env.render.draw import DEFAULT_LAYOUT as LAYOUT
from numberdrop_env.render.draw import draw_game, draw_sheet, picture
from tests.support.helpers import make_game

ENV_IDS = ("NumberDrop-v0", "NumberDropTurn-v0")


def pixel(img, xy: tuple[int, int]) -> tuple[int, int, int]:
    return tuple(np.asarray(img)[xy[1], xy[0]])


def corner(cell: tuple[int, int]) -> tuple[int, int]:
    """A point inside the cell, away from its number and its circle."""
    left, top, _, _ = LAYOUT.cell_box(*cell)
    return left + 3, top + 3


def ring(cell: tuple[int, int]) -> tuple[int, int]:
    """A point on the circle of a used cell (its leftmost edge)."""
    left, top, _, bottom = LAYOUT.cell_box(*cell)
    return left + 3, (top + bottom) // 2


def greedy_positions(seed: int, every: int = 1):
    """Positions of a greedy game, every ``every``-th decision, the last one included."""
    game, policy = SoloGame(seed=seed), GreedyPolicy()
    policy.reset(seed)
    n = 0
    while not game.is_over:
        if n % every == 0:
            yield game
        game.step(policy.act(game, game.legal_mask()))
        n += 1
    yield game


# ----------------------------------------------------------------------------- pixel probes
def test_an_x_cell_is_drawn_where_it_is_and_nowhere_else():
    game = make_game({0: "1..X...", 1: "...X..."})
    img = draw_game(game)
    for row in range(game.rules.rows):
        for col in range(game.rules.cols):
            is_x = game.sheet.values[row, col] == X
            assert (pixel(img, corner((row, col))) == draw.BLOCK) == is_x, (row, col)


def test_a_used_cell_is_circled_and_an_unused_one_is_not():
    game = make_game({0: "555.5..", 1: "5......"}, used=[(0, 0), (0, 1), (0, 2)], identical=[3])
    img = draw_game(game)
    for cell in [(0, 0), (0, 1), (0, 2)]:
        assert pixel(img, ring(cell)) == draw.PEN
    for cell in [(0, 4), (1, 0), (0, 3)]:
        assert pixel(img, ring(cell)) != draw.PEN
    box = LAYOUT.track_box("identical", 3)  # the ticked box is crossed in red; the open 4-box is not
    crossed = np.asarray(img)[box[1] : box[3], box[0] : box[2]]
    assert (crossed == draw.PEN).all(axis=2).any()
    box = LAYOUT.track_box("identical", 4)
    assert not (np.asarray(img)[box[1] : box[3], box[0] : box[2]] == draw.PEN).all(axis=2).any()


@pytest.mark.parametrize("seed", [0, 5])
def test_every_cell_of_a_whole_game_is_drawn_as_the_sheet_says(seed):
    for game in greedy_positions(seed, every=7):
        img = draw_game(game)
        s = game.sheet
        for row in range(game.rules.rows):
            for col in range(game.rules.cols):
                assert (pixel(img, corner((row, col))) == draw.BLOCK) == (s.values[row, col] == X)
                assert (pixel(img, ring((row, col))) == draw.PEN) == bool(s.used[row, col])


def test_the_pending_tetromino_and_the_selection_are_highlighted():
    game = next(g for g in greedy_positions(3) if g.phase.value == "arrange")
    img = draw_game(game)
    for cell in game.pending_cells:
        assert pixel(img, corner(cell)) == draw.PENDING
    empty = [
        (r, c)
        for r in range(11)
        for c in range(7)
        if game.sheet.values[r, c] == EMPTY and (r, c) not in game.pending_cells
    ]
    assert all(pixel(img, corner(c)) == draw.PAPER for c in empty)
    game = next(g for g in greedy_positions(3) if g.selection)
    img = draw_game(game)
    assert all(pixel(img, corner(c)) == draw.SELECTED for c in game.selection)


def test_line_and_penalty_boxes_are_ticked_as_on_the_sheet():
    game = make_game({0: "1234567", 11: "X......"}, penalties=[11], phase="game_over")
    img = np.asarray(draw_game(game))

    def ticked(row: int) -> bool:
        x0, y0, x1, y1 = LAYOUT.row_box(row)
        return bool((img[y0:y1, x0:x1] == draw.PEN).all(axis=2).any())

    assert ticked(0) and ticked(11)
    assert not ticked(1) and not ticked(12)


def test_a_circled_letter_and_its_tile_are_marked():
    game = make_game({0: "1......"}, identical=[3], consecutive=[3])  # letter A circled
    img = np.asarray(draw_game(game))
    cx, cy = draw.DEFAULT_LAYOUT.letter_center(0)
    assert tuple(img[cy, cx - 11]) == draw.PEN and tuple(img[cy, cx + 11]) == draw.PEN
    cx, cy = draw.DEFAULT_LAYOUT.letter_center(1)
    assert tuple(img[cy, cx - 11]) != draw.PEN
    panel = img[:, LAYOUT.size[0] :]
    assert (panel == draw.SAFE).all(axis=2).any()  # tile A drawn safe


def test_fresh_cells_are_highlighted_only_when_asked():
    game = make_game({0: "1......"})
    assert pixel(draw_game(game, fresh=[(0, 0)]), corner((0, 0))) == draw.FRESH
    assert pixel(draw_game(game), corner((0, 0))) == draw.PAPER


# ----------------------------------------------------------------------------- determinism
def test_identical_states_give_identical_images():
    for game in greedy_positions(1, every=5):
        copy = SoloGame.from_dict(game.to_dict())
        assert draw_game(game).tobytes() == draw_game(copy).tobytes()
        assert np.array_equal(picture(game, "rgb_array"), picture(game.clone(), "rgb_array"))


def test_different_states_give_different_images():
    pictures = {draw_game(g).tobytes() for g in greedy_positions(2)}
    game_length = sum(1 for _ in greedy_positions(2))
    assert len(pictures) == game_length  # every decision changes something on the picture


def test_the_picture_has_a_fixed_modest_size():
    sizes = {draw_game(g).size for g in greedy_positions(4, every=9)}
    assert len(sizes) == 1
    width, height = sizes.pop()
    assert width <= 700 and height <= 700
    assert draw_game(SoloGame(seed=0), caption="x").size == (width, height + draw.CAPTION_H)


def test_one_sheet_is_one_picture_for_a_table_of_players():
    game = make_game({0: "1X....."})
    img = draw_sheet(game.sheet, title="seat 1")
    assert img.size == LAYOUT.size
    assert pixel(img, corner((0, 1))) == draw.BLOCK


def test_bad_arguments_are_clear_errors():
    with pytest.raises(TypeError, match="Sheet"):
        draw_sheet(SoloGame(seed=0))
    with pytest.raises(ValueError, match="outside"):
        LAYOUT.cell_box(14, 0)
    with pytest.raises(ValueError, match="one tile"):
        draw.draw_solo_panel(LAYOUT.rules, ("I", "O"), (0, 0))


# ----------------------------------------------------------------------------- environments
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_rgb_array_render_is_uint8_hwc_of_one_shape_every_step(env_id):
    env = gym.make(env_id, render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    shapes, done = set(), False
    for _ in range(40):
        frame = env.render()
        assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3
        assert frame.shape[2] == 3
        assert np.array_equal(frame, picture(env.unwrapped.game, "rgb_array"))
        shapes.add(frame.shape)
        if done:
            break
        _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    assert len(shapes) == 1


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_record_video_captures_every_frame(env_id, monkeypatch, tmp_path):
    """Gymnasium's RecordVideo, with moviepy's clip replaced by one that keeps the frames."""
    written = []

    class Clip:
        def __init__(self, frames, fps):
            self.frames, self.fps = frames, fps

        def write_videofile(self, path, logger=None):
            written.append((path, self.frames, self.fps))

    clip_module = types.ModuleType("moviepy.video.io.ImageSequenceClip")
    clip_module.ImageSequenceClip = Clip
    monkeypatch.setitem(sys.modules, "moviepy", types.ModuleType("moviepy"))
    monkeypatch.setitem(sys.modules, "moviepy.video.io.ImageSequenceClip", clip_module)
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(gym.make(env_id, render_mode="rgb_array"), str(tmp_path / "videos"), disable_logger=True)
    _, info = env.reset(seed=0)
    steps = 0
    for steps in range(1, 25):
        _, _, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated:
            break
    env.close()
    ((path, frames, fps),) = written
    assert path.endswith(".mp4") and fps == env.metadata["render_fps"]
    assert len(frames) == steps + 1 and len({f.shape for f in frames}) == 1


def test_record_video_with_moviepy(tmp_path):
    pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(gym.make("NumberDrop-v0", render_mode="rgb_array"), str(tmp_path / "videos"), disable_logger=True)
    _, info = env.reset(seed=0)
    for _ in range(10):
        _, _, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    env.close()
    assert list((tmp_path / "videos").glob("*.mp4"))


# ----------------------------------------------------------------------------- a multiplayer table
def random_table(players: int, seed: int, turns: int):
    table, rng = Table(players, seed=seed), np.random.default_rng(seed)
    while not table.over and table.turn < turns:
        for p in table.to_act():
            table.step(p, int(rng.choice(np.flatnonzero(table.legal_mask(p)))))
    return table


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_table_draws_every_seat_where_its_sheet_is(players):
    table = random_table(players, seed=players, turns=4)
    img = np.asarray(draw.draw_table(table))
    width, height = LAYOUT.size
    per_row = min(3, players)
    assert img.shape == (height * -(-players // 3), width * per_row + draw.PANEL_W, 3)
    for p, seat in enumerate(table.seats):
        x0, y0 = width * (p % 3), height * (p // 3)
        for row, col in [(r, c) for r in range(4) for c in range(7)]:
            x, y = corner((row, col))
            assert (tuple(img[y0 + y, x0 + x]) == draw.BLOCK) == (seat.sheet.values[row, col] == X)
            x, y = ring((row, col))
            assert (tuple(img[y0 + y, x0 + x]) == draw.PEN) == bool(seat.sheet.used[row, col])


def test_the_multiplayer_environment_renders_rgb_arrays():
    env = multiplayer_v0.parallel_env(num_players=3, render_mode="rgb_array")
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    shapes = set()
    for _ in range(30):
        frame = env.render()
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
        assert np.array_equal(frame, np.asarray(draw.draw_table(env.unwrapped.table)))
        shapes.add(frame.shape)
        if not env.agents:
            break
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    assert len(shapes) == 1 and env.metadata["render_fps"] > 0
