"""Terminal play as a person meets it: what the screen shows before each prompt, the numbers
and compact inputs a player types, and where a left game is saved."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agents.cli import play
from agents.cli.human import HumanGame
from agents.cli.replay import Record
from numberdrop_env.engine.actions import Phase
from numberdrop_env.engine.rules import WILD
from numberdrop_env.engine.solo import SoloGame

ROOT = Path(__file__).resolve().parents[3]


class Leave(Exception):
    """Raised by a scripted player to stop the session (it saves nothing when caught here)."""


Player = Callable[[SoloGame, str], str]


def session_of(seed: int, player: Player, tmp_path: Path) -> tuple[HumanGame, list[str]]:
    """A session whose every prompt is answered by ``player(game on screen, prompt)``."""
    said: list[str] = []
    box: list[HumanGame] = []
    session = HumanGame(
        SoloGame(seed=seed),
        Record(seed=seed, player="human"),
        tmp_path / "save.json",
        lambda prompt: player(box[0].game, prompt),
        said.append,
    )
    box.append(session)
    return session, said


def first_then(phase: Phase, answers: list[str], fallback: str = "1") -> Player:
    """Types ``fallback`` until ``phase`` comes, then ``answers`` one per prompt, then leaves."""
    queue = list(answers)

    def player(game: SoloGame, prompt: str) -> str:
        if game.phase is not phase and len(queue) == len(answers):
            return fallback
        if not queue:
            raise Leave
        return queue.pop(0)

    return player


def reach(phase: Phase, tmp_path: Path, wanted: Callable[[SoloGame], bool] = lambda g: True) -> HumanGame:
    """A session stopped at the first prompt of ``phase`` where ``wanted(game)`` holds, in the
    first game (seeds 0, 1, ...) that has one, the player typing 1 until then."""

    def player(game: SoloGame, prompt: str) -> str:
        if game.phase is phase and wanted(game):
            raise Leave
        return "1"

    for seed in range(100):
        session, _ = session_of(seed, player, tmp_path)
        try:
            session.play()
        except Leave:
            return session
    raise AssertionError(f"no game of seeds 0..99 reaches {phase.value} as wanted")


def resume(session: HumanGame, player: Player) -> list[str]:
    """Go on with a stopped session, answers by ``player``; returns what was said."""
    said: list[str] = []
    session.ask, session.say = (lambda prompt: player(session.game, prompt)), said.append
    try:
        session.play()
    except Leave:
        pass
    return said


def scripted(*lines: str) -> Player:
    queue = list(lines)

    def player(game: SoloGame, prompt: str) -> str:
        if not queue:
            raise Leave
        return queue.pop(0)

    return player


def dice_line(game: SoloGame) -> str:
    return "dice: " + " ".join("*" if v == WILD else str(v) for v in game.dice) + f"   shape die: {game.shape_face}"


# ----------------------------------------------------------------------------- the screen
def test_every_prompt_comes_after_the_current_dice(tmp_path):
    prompts: list[tuple[str, str, str]] = []  # (what the screen shows, the dice, the prompt)

    def player(game: SoloGame, prompt: str) -> str:
        if game.dice is not None:
            screen = "\n".join(said)
            shown = screen[screen.rindex("dice: ") :].splitlines()[0]
            prompts.append((shown, dice_line(game), prompt))
        return "1"

    session, said = session_of(3, player, tmp_path)
    assert session.play() is True
    assert any("only one choice: pass" in line for line in said)  # forced passes happened
    assert [prompt for shown, dice, prompt in prompts if shown != dice] == []
    assert all(dice.removeprefix("dice: ").split("   ")[0] in prompt for _, dice, prompt in prompts)  # the prompt too
    assert said[-2].startswith("Number Drop (solo)") and "game over" in said[-1]  # the final sheet


# ----------------------------------------------------------------------------- the wild value
def test_a_stars_value_is_typed_as_the_value_itself(tmp_path):
    session = reach(Phase.WILD, tmp_path)
    game, played = session.game, len(session.record.actions)
    cell = tuple(game.describe(game.layout.wild)["cell"])
    said = resume(session, scripted("7"))
    menu = [m.groups() for m in re.finditer(r"(\d+)\. the star in r\d+c\d+ is a (\d+)", "\n".join(said))]
    assert len(menu) == game.rules.max_number + 1 and all(key == value for key, value in menu)
    assert session.record.actions[played] == game.layout.wild + 7
    pending = dict(zip(session.game.pending_cells, session.game.pending_values))
    assert pending.get(cell, session.game.sheet.values[cell]) == 7


def test_a_stars_value_outside_the_dice_faces_is_refused(tmp_path):
    session = reach(Phase.WILD, tmp_path)
    before = session.game.to_dict()
    said = resume(session, scripted("10", "-1", "x"))
    assert "there is no value 10: choose from 0 to 9" in said
    assert session.game.to_dict() == before


# ----------------------------------------------------------------------------- arrangements
def no_star(game: SoloGame) -> bool:
    return WILD not in game.dice and len(set(game.dice)) == 4


def one_star(game: SoloGame) -> bool:
    return list(game.dice).count(WILD) == 1


def test_an_arrangement_is_typed_as_its_values_in_cell_order(tmp_path):
    session = reach(Phase.ARRANGE, tmp_path, no_star)
    game = session.game
    cells = list(game.pending_cells)
    assert cells == sorted(cells)  # cell order: the bottom row first, left to right within a row
    values = sorted(game.dice, reverse=True)
    prompts: list[str] = []

    def player(game: SoloGame, prompt: str) -> str:
        prompts.append(prompt)
        if len(prompts) > 1:
            raise Leave
        return "".join(map(str, values))

    resume(session, player)
    assert " ".join(f"r{r}c{c}" for r, c in cells) in prompts[0]  # the prompt names the cells in order
    assert [session.game.sheet.values[c] for c in cells] == values


@pytest.mark.parametrize("star", ["7", "*"])
def test_a_star_in_an_arrangement_is_typed_as_its_value_or_as_a_star(star, tmp_path):
    session = reach(Phase.ARRANGE, tmp_path, one_star)
    cells = list(session.game.pending_cells)
    numbers = [str(v) for v in session.game.dice if v != WILD]
    typed = star + "".join(numbers)
    resume(session, scripted(typed))
    if star == "*":  # the star's value is asked next
        assert session.game.phase is Phase.WILD and session.game.pending_cells[0] == cells[0]
        resume(session, scripted("8"))
        typed = "8" + typed[1:]
    assert [str(session.game.sheet.values[c]) for c in cells] == list(typed)


@pytest.mark.parametrize(
    "typed, message",
    [
        ("9999", "not the dice"),
        ("123", "4 values, one per cell"),
        ("123456", "4 values, one per cell"),
        ("12x4", "4 values, one per cell"),
        ("**12", "not the dice"),
    ],
)
def test_a_wrong_arrangement_is_explained_and_nothing_is_played(typed, message, tmp_path):
    session = reach(Phase.ARRANGE, tmp_path, no_star)
    before, actions = session.game.to_dict(), list(session.record.actions)
    prompts: list[str] = []

    def player(game: SoloGame, prompt: str) -> str:
        prompts.append(prompt)
        if len(prompts) > 1:
            raise Leave
        return typed

    said = resume(session, player)
    assert any(message in line for line in said), said[-3:]
    assert session.game.to_dict() == before and session.record.actions == actions
    assert prompts[1] == prompts[0]  # asked again, in the same position


def test_an_arrangement_can_be_previewed_and_undone(tmp_path):
    session = reach(Phase.ARRANGE, tmp_path, no_star)
    before, cells = session.game.to_dict(), session.game.pending_cells
    typed = "".join(map(str, session.game.dice))
    said = resume(session, scripted(f"p {typed}"))
    assert session.game.to_dict() == before
    preview = said[-1].splitlines()
    for (r, c), value in zip(cells, typed):
        row = next(line for line in preview if line.startswith(f"{r:>3} |"))
        assert row[5 + 4 * c : 8 + 4 * c].strip() == value
    resume(session, scripted(typed, "undo"))
    assert session.game.to_dict() == before


# ----------------------------------------------------------------------------- drops
MENU_DROP = re.compile(r"(\d+)\. ([IOTLS]\d+ c\d+)  drop ")


def test_every_listed_drop_has_a_compact_code_that_plays_it(tmp_path):
    session = reach(Phase.PLACE, tmp_path)
    legal = [int(a) for a in session.game.legal_mask().nonzero()[0]]
    said = resume(session, scripted("sheet"))
    menu = dict((code, int(key)) for key, code in MENU_DROP.findall("\n".join(said)))
    assert len(menu) == len(legal)  # one code per legal drop, no two alike
    start = session.game.clone()
    for code, key in menu.items():
        for typed in (code, code.lower().replace(" ", "")):
            trial = HumanGame(start.clone(), Record(seed=None, state=start.to_dict()), tmp_path / "s.json")
            resume(trial, scripted(typed))
            assert trial.record.actions[0] == legal[key - 1], typed


def test_a_drop_code_names_shape_orientation_and_leftmost_column(tmp_path):
    session = reach(Phase.PLACE, tmp_path, lambda g: g.shape_face == "T")
    game, played = session.game.clone(), len(session.record.actions)
    t_orientations = [o for o, s in enumerate(game.table.orientation_shape) if game.table.names[s] == "T"]
    said = resume(session, scripted("shapes", "T2 c4"))
    assert all(f"T{k}" in "\n".join(said) for k in range(1, 5))
    d = game.describe(session.record.actions[played])
    assert (d["shape"], d["orientation"], d["column"]) == ("T", t_orientations[1], 4)
    assert min(c for _, c in d["cells"]) == 4


def test_a_block_is_dropped_by_its_code_too(tmp_path):
    session = reach(Phase.BLOCK, tmp_path)
    game, played = session.game.clone(), len(session.record.actions)
    shape = game.tiles[game.block_tile]
    resume(session, scripted(f"{shape}1 c0"))
    first = [o for o, s in enumerate(game.table.orientation_shape) if game.table.names[s] == shape][0]
    assert session.record.actions[played] == game.layout.block + first * game.rules.cols


@pytest.mark.parametrize(
    "typed, message",
    [
        ("Q1 c0", "there is no shape Q"),
        ("I1 c0", "the shape die shows T"),
        ("T9 c0", "T has orientations T1 to T4"),
        ("T1 c6", "T1 fits columns 0 to 4"),
        ("T1 c12", "T1 fits columns 0 to 4"),
        ("T0 c0", "T has orientations T1 to T4"),
    ],
)
def test_a_wrong_drop_is_explained_and_nothing_is_played(typed, message, tmp_path):
    session = reach(Phase.PLACE, tmp_path, lambda g: g.shape_face == "T")
    before = session.game.to_dict()
    said = resume(session, scripted(typed))
    assert any(message in line for line in said), said[-3:]
    assert session.game.to_dict() == before


def test_a_drop_code_outside_a_drop_says_what_is_asked_now(tmp_path):
    session = reach(Phase.SLIDE, tmp_path)
    before = session.game.to_dict()
    said = resume(session, scripted("T1 c0", "3512"))
    assert "T1 c0 is a drop; now: slide a tile" in said
    assert "there is no decision 3512" in " ".join(said)
    assert session.game.to_dict() == before


# ----------------------------------------------------------------------------- the save file
def run_human(monkeypatch, lines: list[str], *args: str) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    return play.main(["--human", *args])


@pytest.mark.parametrize("xdg", [True, False])
def test_a_left_game_is_saved_in_the_users_data_folder(xdg, monkeypatch, tmp_path, capsys):
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))
    if xdg:
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
        save = tmp_path / "data" / "numberdrop" / "save.json"
    else:
        monkeypatch.delenv("XDG_DATA_HOME", raising=False)
        save = home / ".local" / "share" / "numberdrop" / "save.json"
    run_human(monkeypatch, ["1", "1", "quit"], "--seed", "4")
    assert f"game saved to {save}" in capsys.readouterr().out
    assert list(work.iterdir()) == []  # nothing left in the working directory
    saved = SoloGame.load(save)
    run_human(monkeypatch, ["quit"], "--resume")  # --resume alone continues the default save
    assert f"game saved to {save}" in capsys.readouterr().out
    assert SoloGame.load(save).to_dict() == saved.to_dict()


def test_a_relative_xdg_data_home_is_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert play.default_save() == tmp_path / ".local" / "share" / "numberdrop" / "save.json"


def test_save_chooses_the_file(monkeypatch, tmp_path, capsys):
    save = tmp_path / "deep" / "folder" / "mine.json"
    run_human(monkeypatch, ["1", "quit"], "--save", str(save))
    assert f"game saved to {save}" in capsys.readouterr().out and SoloGame.load(save).turn == 1


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs the git checkout")
@pytest.mark.parametrize("name", ["numberdrop-save.json", "agents/numberdrop-save.json"])
def test_git_ignores_the_old_save_file(name):
    done = subprocess.run(["git", "check-ignore", "-q", name], cwd=ROOT, capture_output=True)
    assert done.returncode == 0
