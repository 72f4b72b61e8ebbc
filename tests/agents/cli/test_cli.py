"""The command lines as a user runs them: exit status, --help text and errors.

The console scripts are run from the interpreter's own scripts folder, so a stale
install (``pip install -e .`` not rerun after an entry point changed) fails here.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agents.cli import evaluate, play
from agents.cli.replay import Record
from agents.registry import AGENTS, PRESETS, describe_options, policy_class

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
SCRIPTS = Path(sys.executable).parent

EVALUATE = {
    "numberdrop-evaluate": [str(SCRIPTS / "numberdrop-evaluate")],
    "python -m agents.cli.evaluate": [sys.executable, "-m", "agents.cli.evaluate"],
}
PLAY = {
    "numberdrop-play": [str(SCRIPTS / "numberdrop-play")],
    "python -m agents.cli.play": [sys.executable, "-m", "agents.cli.play"],
}
ALL = {**EVALUATE, **PLAY}


def run_cli(command: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    if not Path(command[0]).exists():
        pytest.fail(f"{command[0]} is not installed; run `pip install -e .`")
    env = {**os.environ, "COLUMNS": "100"}  # argparse wraps help to the terminal width
    return subprocess.run([*command, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("prog", EVALUATE)
def test_evaluate_exits_0_and_prints_the_table(prog):
    done = run_cli(EVALUATE[prog], "--agents", "random", "--games", "2", "--seed", "0", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # a returned dict used to be printed here, with exit status 1
    assert "2 games, seeds 0..1" in done.stdout
    assert done.stdout.splitlines()[2].startswith("random ")


@pytest.mark.parametrize("prog", PLAY)
def test_play_exits_0_whatever_the_score(prog):
    done = run_cli(PLAY[prog], "--agent", "random", "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert "final score:" in done.stdout


def test_cli_functions_return_0_and_main_keeps_its_result(capsys):
    argv = ["--agents", "random", "--games", "1", "--workers", "1", "--no-progress"]
    assert evaluate.cli(argv) == 0
    assert evaluate.main(argv)["agents"]["random"]["scores"]
    assert play.cli(["--agent", "random"]) == 0
    assert isinstance(play.main(["--agent", "random"]), int)
    capsys.readouterr()


CLIS = {**{prog: evaluate.cli for prog in EVALUATE}, **{prog: play.cli for prog in PLAY}}
"""The same parsers in this process: a subprocess costs seconds (it imports torch for the help)."""


def run_in_process(prog: str, args: list[str], monkeypatch, capsys) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``prog``'s parser on ``args``, as a user would see them."""
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit) as exit_info:
        CLIS[prog](args, prog)
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


@pytest.mark.parametrize("prog", ALL)
def test_help_names_the_program_shows_defaults_and_agent_options(prog, monkeypatch, capsys):
    code, text, err = run_in_process(prog, ["--help"], monkeypatch, capsys)
    assert code == 0, err
    assert text.startswith(f"usage: {prog} ")
    flat = " ".join(text.split())  # phrases may wrap
    assert "seed of the first game (default: 0)" in flat or "(tile mapping and dice) (default: 0)" in flat
    assert ("(default: random,greedy)" if prog in EVALUATE else "(default: the strongest this install runs") in flat
    for name in AGENTS:
        assert f"  {name}:" in text
    assert "samples=8" in text and "inner_width=8" in text and "path=None" in text
    assert "``" not in text and ":class:" not in text


def test_every_option_has_help_text():
    for parser in (evaluate.build_parser(), play.build_parser()):
        for action in parser._actions:
            assert action.help, f"{parser.prog} {action.option_strings} has no help"


def test_workers_help_says_what_0_means():
    text = " ".join(evaluate.build_parser().format_help().split())
    assert "--workers WORKERS worker processes; 0 = one per CPU" in text and "(default: 0)" in text


def _described(text: str, name: str) -> str:
    line = next(i for i, row in enumerate(text.splitlines()) if row.startswith(f"  {name}:"))
    return " ".join(text.splitlines()[line : line + 3])


def test_describe_options_lists_every_constructor_argument_and_each_preset_setting():
    text = describe_options()
    for name in set(AGENTS) - set(PRESETS):
        for param in inspect.signature(policy_class(name)).parameters.values():
            assert f"{param.name}={param.default}" in _described(text, name)
    assert " ".join(_described(text, "random").split()).startswith("random: none")
    best = " ".join(_described(text, "best").split())
    assert best.startswith("best: q with lookahead=32, samples=8, refine=3")


@pytest.mark.parametrize(
    "prog, args, message",
    [
        ("numberdrop-evaluate", ["--gamez", "3"], "unrecognized arguments: --gamez"),
        ("numberdrop-evaluate", ["--agents", "random", "--option", "search.samples=4"], "not among"),
        ("numberdrop-evaluate", ["--agents", "random", "--workers", "-1"], "--workers"),
        ("python -m agents.cli.play", ["--agent", "nobody"], "invalid choice: 'nobody'"),
        ("python -m agents.cli.play", ["--agent", "greedy", "--option", "greedy.depth=2"], "has no option"),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(prog, args, message, monkeypatch, capsys):
    code, _, err = run_in_process(prog, args, monkeypatch, capsys)
    assert code == 2
    assert message in err
    assert err.startswith(f"usage: {prog} ")


@pytest.mark.parametrize(
    "prog, args", [("numberdrop-evaluate", ["--gamez", "3"]), ("python -m agents.cli.play", ["--agent", "nobody"])]
)
def test_a_bad_argument_from_the_shell_names_the_command_without_a_traceback(prog, args):
    done = run_cli(ALL[prog], *args)
    assert done.returncode == 2
    assert done.stderr.startswith(f"usage: {prog} ")
    assert "Traceback" not in done.stderr


def test_an_agent_whose_packages_are_missing_is_a_clear_error(monkeypatch, capsys):
    """``numberdrop-play --agent ppo`` without torch: one line saying what to install."""
    monkeypatch.setitem(sys.modules, "torch", None)  # as without torch: find_spec says it is missing
    with pytest.raises(SystemExit) as exit_info:
        play.cli(["--agent", "ppo", "--seed", "0"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "'ppo' needs" in err and "pip install" in err


def test_without_agent_the_strongest_agent_this_install_runs_plays_and_says_which(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)  # as in a base install: find_spec says it is missing
    line = "agent: ntuple_expectimax (best needs the train extra)"
    assert play.default_agent() == ("ntuple_expectimax", line)
    monkeypatch.setattr(play, "STRONGEST", ("best", "greedy"))  # a game of the greedy takes a fraction of a second
    play.main(["--seed", "1", "--record", str(tmp_path / "game.json")])
    assert capsys.readouterr().out.splitlines()[0] == "agent: greedy (best needs the train extra)"
    assert Record.load(tmp_path / "game.json").player == "greedy"


def test_with_the_train_extra_the_default_agent_is_best(monkeypatch):
    monkeypatch.setattr(play, "require_extra", lambda *args: None)  # as if every extra were installed
    assert play.default_agent() == ("best", "agent: best")


def test_the_default_agents_are_in_the_order_of_the_readme_results_table():
    table = README.read_text().split("<!-- results-table: landing -->")[1].split("<!-- /results-table -->")[0]
    rows = re.findall(r"^\| `(\w+)`[^|]*\| ([\d.]+) ±", table, flags=re.M)
    assert [name for name, _ in sorted(rows, key=lambda row: -float(row[1]))] == list(play.STRONGEST)
    assert set(play.STRONGEST) <= set(AGENTS)


def test_a_command_playing_the_greedy_imports_neither_torch_nor_ray():
    """Only ``--help`` reads every agent's constructor (their modules import torch and Ray)."""
    code = (
        "import sys\nfrom agents.cli import evaluate, play\n"
        "play.main(['--agent', 'greedy', '--seed', '1'])\n"
        "evaluate.main(['--agents', 'greedy', '--games', '1', '--workers', '1', '--no-progress'])\n"
        "print(sorted({'torch', 'ray', 'stable_baselines3'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


# ----------------------------------------------------------------------------- a missing extra
def _without(monkeypatch, *packages: str) -> None:
    """As an install without these packages: ``find_spec`` finds none of them, importing fails."""
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name.split(".")[0] in packages else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    for name in packages:
        monkeypatch.setitem(sys.modules, name, None)


def _one_line(err: str, prog: str, extra: str) -> None:
    from agents.registry import install_command

    assert err.count("\n") == 1 and err.startswith(f"{prog}: error: "), err
    assert f"needs the `{extra}` extra" in err and err.rstrip().endswith(install_command(extra)), err


@pytest.mark.parametrize(
    "command",
    [["play", "--agent", "best"], ["evaluate", "--agents", "best", "--games", "1", "--workers", "1"]],
    ids=["play", "evaluate"],
)
def test_a_missing_extra_is_one_line_and_exit_2(command, monkeypatch, capsys):
    _without(monkeypatch, "torch", "stable_baselines3", "sb3_contrib")
    module = {"play": play, "evaluate": evaluate}[command[0]]
    with pytest.raises(SystemExit) as exit_:
        module.cli(command[1:])
    assert exit_.value.code == 2
    _one_line(capsys.readouterr().err, module.PROG, "train")


def test_training_without_its_extra_is_one_line_and_exit_2(monkeypatch, capsys):
    from agents.cli import train

    _without(monkeypatch, "torch", "stable_baselines3", "sb3_contrib")
    assert train.cli(["--config", "ppo_turn_smoke"]) == 2  # was a traceback from inside the trainer
    _one_line(capsys.readouterr().err, "numberdrop-train", "train")


def test_the_web_command_without_its_extra_is_one_line_and_exit_2(monkeypatch, capsys):
    pytest.importorskip("starlette")
    from numberdrop_web import cli as web

    _without(monkeypatch, "uvicorn")
    with pytest.raises(SystemExit) as exit_:
        web.cli(["--no-browser"])
    assert exit_.value.code == 2
    _one_line(capsys.readouterr().err, "numberdrop-web", "web")


def test_the_install_command_is_the_one_of_the_users_install(monkeypatch):
    from agents import registry

    assert registry.in_checkout() and registry.install_command("web") == "pip install -e '.[web]'"
    monkeypatch.setattr(registry, "in_checkout", lambda: False)  # a wheel's install (tests/test_wheel.py plays it)
    assert registry.install_command("web") == "pip install 'numberdrop-env[web]'"
    with pytest.raises(ImportError, match=r"needs the `train` extra \(nothing_here is not installed\): pip install "):
        registry.require_extra("train", "this", ("nothing_here",))
