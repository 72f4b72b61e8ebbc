"""Replays, GIFs, human play and the pictures of evaluate and train, as their users run them."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from agents.cli import evaluate, play
from agents.cli.human import HumanGame
from agents.cli.plots import plot_learning_curve, plot_scores, read_evals
from agents.cli.replay import Record, final_game, frames, replay, save_gif
from agents.numberdrop.greedy import GreedyPolicy
from numberdrop_env.engine.solo import SoloGame

ROOT = Path(__file__).resolve().parents[3]

from agents.training import common  # noqa: E402


def greedy_record(seed: int) -> Record:
    game, policy = SoloGame(seed=seed), GreedyPolicy()
    policy.reset(seed)
    actions = []
    while not game.is_over:
        actions.append(policy.act(game, game.legal_mask()))
        game.step(actions[-1])
    return Record(actions, seed=seed, player="greedy", score=game.score())


@pytest.fixture(scope="module")
def greedy_game() -> Record:
    return greedy_record(4)


# ----------------------------------------------------------------------------- records
def test_play_records_and_replays_the_same_game_exactly(tmp_path, capsys):
    path = tmp_path / "game.json"
    score = play.main(["--agent", "random", "--seed", "5", "--record", str(path)])
    played = capsys.readouterr().out
    record = Record.load(path)
    assert record.seed == 5 and record.player == "random" and record.score == score
    assert Record.from_dict(json.loads(path.read_text())) == record
    assert play.main(["--replay", str(path)]) == score
    assert capsys.readouterr().out == played  # the same sheet, decision for decision
    game = final_game(record)
    assert game.is_over and game.score() == score


def test_a_record_round_trips_through_json(greedy_game, tmp_path):
    greedy_game.save(tmp_path / "r.json")
    again = Record.load(tmp_path / "r.json")
    assert again == greedy_game and again.to_dict() == greedy_game.to_dict()
    assert final_game(again).to_dict() == final_game(greedy_game).to_dict()


def test_a_record_from_a_saved_position_replays_from_it(greedy_game):
    game = greedy_game.start()
    for a in greedy_game.actions[:30]:
        game.step(a)
    tail = Record(greedy_game.actions[30:], seed=None, state=game.to_dict(), score=greedy_game.score)
    assert final_game(tail).to_dict() == final_game(greedy_game).to_dict()


def test_a_record_that_does_not_fit_its_game_is_refused(greedy_game, tmp_path, capsys):
    wrong = Record(list(greedy_game.actions), seed=greedy_game.seed + 1)  # another game's dice
    with pytest.raises(ValueError, match="not legal|scores"):
        list(replay(Record(wrong.actions, seed=wrong.seed, score=greedy_game.score)))
    lying = Record(greedy_game.actions, seed=greedy_game.seed, score=greedy_game.score + 1)
    with pytest.raises(ValueError, match="the record says"):
        list(replay(lying))
    path = tmp_path / "bad.json"
    Record(greedy_game.actions[:3] + [411], seed=greedy_game.seed).save(path)
    with pytest.raises(SystemExit) as exit_:
        play.main(["--replay", str(path)])
    assert exit_.value.code == 2 and "is not legal in the replayed game" in capsys.readouterr().err


@pytest.mark.parametrize(
    "data, error",
    [
        ([], TypeError),
        ({"format": "other", "version": 1}, ValueError),
        ({"format": "numberdrop-record", "version": 1, "seed": 0}, ValueError),
        (
            {
                "format": "numberdrop-record",
                "version": 1,
                "player": "",
                "seed": 0,
                "state": None,
                "actions": ["1"],
                "score": None,
            },
            TypeError,
        ),
        (
            {
                "format": "numberdrop-record",
                "version": 1,
                "player": "",
                "seed": None,
                "state": None,
                "actions": [],
                "score": None,
            },
            ValueError,
        ),
        (
            {
                "format": "numberdrop-record",
                "version": 1,
                "player": "",
                "seed": -1,
                "state": None,
                "actions": [],
                "score": None,
            },
            ValueError,
        ),
    ],
)
def test_malformed_records_are_clear_errors(data, error):
    with pytest.raises(error):
        Record.from_dict(data)


# ----------------------------------------------------------------------------- GIFs
def test_a_gif_has_one_frame_per_decision(tmp_path, capsys):
    path, rec = tmp_path / "game.gif", tmp_path / "game.json"
    play.main(["--agent", "random", "--seed", "2", "--gif", str(path), "--record", str(rec)])
    decisions = len(Record.load(rec).actions)
    with Image.open(path) as gif:
        assert gif.n_frames == decisions + 1  # the start, then one per decision
        assert gif.info["loop"] == 0 and gif.info["duration"] == 250
    assert f"{decisions + 1} pictures" in capsys.readouterr().out


def test_a_per_turn_gif_has_one_frame_per_roll_and_the_end(greedy_game, tmp_path):
    path = tmp_path / "turns.gif"
    greedy_game.save(tmp_path / "game.json")
    play.main(["--replay", str(tmp_path / "game.json"), "--gif", str(path), "--per-turn", "--frame-ms", "500"])
    turns = final_game(greedy_game).turn
    with Image.open(path) as gif:
        assert gif.n_frames == turns + 2  # the empty sheet, each roll, the end
        durations = []
        for i in range(gif.n_frames):
            gif.seek(i)
            durations.append(gif.info["duration"])
    assert durations[:-1] == [500] * (turns + 1) and durations[-1] > 500  # the end is held
    assert path.stat().st_size < 1_000_000


def test_frames_highlight_what_each_turn_wrote_and_say_what_was_played(greedy_game):
    pictures = list(frames(greedy_game, per_turn=True))
    assert len({p.size for p in pictures}) == 1
    assert len({p.tobytes() for p in pictures}) == len(pictures)
    assert list(frames(greedy_game, per_turn=True))[5].tobytes() == pictures[5].tobytes()


def test_save_gif_refuses_nothing_to_draw(tmp_path):
    with pytest.raises(ValueError, match="at least one"):
        save_gif([], tmp_path / "x.gif", 100)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--per-turn"], "go with --gif"),
        (["--resume", "x.json"], "add --human"),
        (["--gif", "x.gif", "--frame-ms", "0"], "must be positive"),
        (["--human", "--replay", "x.json"], "not allowed with argument"),
    ],
)
def test_play_option_mistakes_exit_2(args, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        play.main(args)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


# ----------------------------------------------------------------------------- human play
def typed_script(record: Record) -> list[str]:
    """What a person types to play the record's game: a decision's number among the legal
    ones (a star's value itself), skipping decisions with a single choice (those are played
    for them)."""
    game, lines = record.start(), []
    for action in record.actions:
        legal = list(np.flatnonzero(game.legal_mask()))
        if len(legal) > 1:
            wild = game.phase.value == "wild"
            lines.append(str(action - game.layout.wild if wild else legal.index(action) + 1))
        game.step(action)
    return lines


TYPOS = ["", "abc", "0", "999", "#1", "# 3", "p", "p 999", "play 3", "help", "sheet", "hint", "p 1"]


def with_typos(lines: list[str]) -> list[str]:
    out = []
    for i, line in enumerate(lines):
        out += [TYPOS[i % len(TYPOS)]] if i % 3 == 0 else []
        out.append(line)
    return out


def run_human(monkeypatch, lines: list[str], *args: str) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    return play.main(["--human", *args])


def test_a_person_plays_a_whole_game_typos_included(greedy_game, monkeypatch, tmp_path, capsys):
    record = tmp_path / "mine.json"
    score = run_human(
        monkeypatch,
        with_typos(typed_script(greedy_game)),
        "--seed",
        str(greedy_game.seed),
        "--record",
        str(record),
        "--save",
        str(tmp_path / "save.json"),
    )
    out = capsys.readouterr().out
    assert score == greedy_game.score
    assert f"game over: final score {score}" in out
    for message in (
        "type a number from 1 to",
        "unknown command 'abc'",
        "there is no decision 0",
        "there is no decision 999",
        "not legal now",
        "preview which decision",
        "the greedy agent plays",
        "only one choice:",
        "Cells are named",
    ):
        assert message in out, message
    assert Record.load(record).actions == greedy_game.actions
    assert not (tmp_path / "save.json").exists()  # a finished game leaves no save file


@pytest.mark.parametrize("leave", ["quit", "EOF"])
def test_leaving_saves_the_game_and_resume_continues_it(greedy_game, leave, monkeypatch, tmp_path, capsys):
    lines = typed_script(greedy_game)
    save = tmp_path / "save.json"
    first = lines[:20] + (["quit", "1"] if leave == "quit" else [])
    run_human(monkeypatch, first, "--seed", str(greedy_game.seed), "--save", str(save))
    assert f"game saved to {save}" in capsys.readouterr().out
    saved = SoloGame.load(save)
    assert not saved.is_over and saved.turn > 1
    assert run_human(monkeypatch, lines[20:], "--resume", str(save)) == greedy_game.score
    assert SoloGame.load(save).to_dict() == saved.to_dict()  # the save file is kept until overwritten


def test_ctrl_c_saves_and_undo_takes_back_a_decision(tmp_path):
    said, typed = [], iter(["1", "undo", "undo", "undo", "2"])

    def ask(prompt: str) -> str:
        try:
            return next(typed)
        except StopIteration:
            raise KeyboardInterrupt from None

    session = HumanGame(SoloGame(seed=3), Record(seed=3, player="human"), tmp_path / "s.json", ask, said.append)
    assert session.play() is False
    assert "nothing to undo" in said
    assert session.record.actions == [1]  # column 1 for the starting number, after the undone column 0
    assert SoloGame.load(tmp_path / "s.json").to_dict() == session.game.to_dict()
    assert final_game(session.record).to_dict() == session.game.to_dict()


def test_resume_refuses_a_file_that_is_not_a_game(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"sheet": 1}')
    with pytest.raises(SystemExit) as exit_:
        play.main(["--human", "--resume", str(bad)])
    assert exit_.value.code == 2 and "error:" in capsys.readouterr().err


# ----------------------------------------------------------------------------- plots
def test_evaluate_plot_draws_the_score_distributions(tmp_path, capsys):
    path = tmp_path / "scores.png"
    summary = evaluate.main(
        ["--agents", "random,greedy", "--games", "3", "--workers", "1", "--no-progress", "--plot", str(path)]
    )
    assert f"score distributions: {path}" in capsys.readouterr().out
    with Image.open(path) as img:
        assert img.size[0] <= 800 and img.size[1] <= 500
    plot_scores(summary, tmp_path / "again.png")
    assert (tmp_path / "again.png").read_bytes() == path.read_bytes()  # same numbers, same picture


def test_without_matplotlib_plot_fails_before_the_games_and_training_goes_on(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    with pytest.raises(SystemExit) as exit_:
        evaluate.main(["--agents", "random", "--games", "1", "--plot", str(tmp_path / "x.png")])
    assert exit_.value.code == 2 and "needs the `train` extra" in capsys.readouterr().err
    (tmp_path / "evals.jsonl").write_text('{"step": 10, "score_mean": 1.0}\n')
    assert common.write_learning_curve(tmp_path) is None
    assert "note: no learning_curve.png" in capsys.readouterr().err
    assert not (tmp_path / "learning_curve.png").exists()


def test_train_writes_the_learning_curve_of_its_evaluations(tmp_path):
    lines = [
        {"step": 2000, "score_mean": 30.0, "score_std": 5.0, "diff_vs_greedy": -2.0},
        {"step": 1000, "score_mean": 25.0, "score_std": 5.0, "diff_vs_greedy": -7.0},
    ]
    (tmp_path / "evals.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    path = common.write_learning_curve(tmp_path, "test")
    assert path == tmp_path / "learning_curve.png" and Image.open(path).size[0] <= 800
    assert [e["step"] for e in read_evals([tmp_path / "evals.jsonl"])] == [1000, 2000]
    assert common.write_learning_curve(tmp_path / "nowhere") is None


def test_plots_refuse_what_they_cannot_draw(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"step": 1}\n')
    with pytest.raises(ValueError, match="score_mean"):
        read_evals([tmp_path / "bad.jsonl"])
    with pytest.raises(ValueError, match="no evaluations"):
        plot_learning_curve([], tmp_path / "x.png")
    with pytest.raises(ValueError, match="per-game scores"):
        plot_scores({"agents": {"a": {"mean": 1}}}, tmp_path / "x.png")


def test_plots_command_line(tmp_path, capsys):
    from agents.cli.plots import main

    summary = {"games": 2, "seed": 0, "agents": {"greedy": {"mean": 40.0, "scores": [38, 42]}}}
    (tmp_path / "s.json").write_text(json.dumps(summary))
    assert main(["scores", str(tmp_path / "s.json"), str(tmp_path / "s.png")]) == 0
    assert main(["curve", str(ROOT / "results" / "ppo_turn_evals.jsonl"), str(tmp_path / "c.png")]) == 0
    assert (tmp_path / "s.png").is_file() and (tmp_path / "c.png").is_file()
    with pytest.raises(SystemExit):
        main(["curve", str(tmp_path / "missing.jsonl"), str(tmp_path / "c.png")])
    assert "missing.jsonl" in capsys.readouterr().err


def test_an_unfinished_game_ends_its_gif_on_its_last_decision(greedy_game):
    cut = Record(greedy_game.actions[:40], seed=greedy_game.seed, player="human")
    game = final_game(cut)
    assert not game.is_over and game.phase.value != "slide"  # stopped inside a turn
    assert len(list(frames(cut, per_turn=True))) == game.turn + 2  # the start, each roll, the last decision
    assert len(list(frames(cut))) == 41


def test_the_curve_ticks_read_in_the_run_own_scale():
    from agents.evaluation.plots import step_label

    assert [step_label(x, 96) for x in (0, 20, 40, 96)] == ["0", "20", "40", "96"]  # a smoke run's games
    assert [step_label(x, 9_000) for x in (0, 2_500, 7_500)] == ["0", "2500", "7500"]
    assert [step_label(x, 120_000) for x in (0, 20_000, 2_500, 100_000)] == ["0", "20k", "2.5k", "100k"]


def test_the_curve_marks_the_model_the_run_kept_as_best():
    """The gate keeps a model on a paired test, not on the highest mean: the mark is where it kept."""
    from agents.evaluation.plots import best_entry

    gated = [
        {"step": 0, "score_mean": 40.0, "kept": True},
        {"step": 64, "score_mean": 42.8, "kept": False},  # higher, not significantly better than the best
        {"step": 96, "score_mean": 41.62, "kept": True},
    ]
    assert best_entry(gated) == 2
    assert best_entry([{"step": 1, "score_mean": 3.0}, {"step": 2, "score_mean": 2.0}]) == 0  # no gates
