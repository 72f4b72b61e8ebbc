"""The commands the README, the docs and the Makefile show, run as a user would type them.

Each documented command of ``numberdrop-evaluate``, ``numberdrop-play``, ``numberdrop-train``
and ``python train.py`` is parsed by that command's own parser, so a renamed or removed
option fails here; each program's ``--help`` runs in a fresh process from the installed
console script; and the Ray backend runs from its documented command.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agents.cli import evaluate, play, train

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = Path(sys.executable).parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), ROOT / "Makefile"]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
INLINE = re.compile(r"`([^`\n]+)`")
PROGRAMS = {
    "numberdrop-evaluate": evaluate.build_parser,
    "numberdrop-play": play.build_parser,
    "numberdrop-train": train.build_parser,
    "python train.py": train.build_parser,
}
START = re.compile(r"(?:^|(?<=[\s`(]))(numberdrop-evaluate|numberdrop-play|numberdrop-train|python train\.py)(?=\s|$)")
END = re.compile(r"\s(?:#|\||>|&&|;)\s|\s*$")


def snippets(page: Path) -> list[tuple[int, str]]:
    """(line, text) of each code block line (continuations joined) and inline code span."""
    text = page.read_text(encoding="utf-8")
    if page.name == "Makefile":
        text = text.replace("$(BIN)/", "")
        return [(i, line) for i, line in enumerate(text.splitlines(), 1)]
    found = []
    for match in FENCE.finditer(text):
        first = text.count("\n", 0, match.start()) + 2
        body = match.group(1).replace("\\\n", " ")
        found += [(first + i, line) for i, line in enumerate(body.splitlines())]
    prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    found += [(prose.count("\n", 0, m.start()) + 1, m.group(1)) for m in INLINE.finditer(prose)]
    return found


def documented_commands() -> list[tuple[str, str, list[str]]]:
    """(where, program, arguments) of every documented command of the programs above."""
    out = []
    for page in PAGES:
        for line, text in snippets(page):
            text = text.strip().removeprefix("$ ")
            for match in START.finditer(text):
                rest = text[match.end() :]
                rest = rest[: END.search(rest).start()]
                if "..." in rest or "[" in rest or "$" in rest:
                    continue  # a pattern (OPTIONS...) or a shell variable, not a command
                if not rest.strip() and text.strip() == match.group(1):
                    continue  # the program named in prose, not run
                where = f"{page.relative_to(ROOT)}:{line}"
                out.append((where, match.group(1), shlex.split(rest)))
    return out


COMMANDS = documented_commands()


def test_the_documented_commands_are_found():
    programs = {program for _, program, _ in COMMANDS}
    assert {"numberdrop-evaluate", "numberdrop-play", "python train.py"} <= programs, programs
    assert len(COMMANDS) >= 10


@pytest.mark.parametrize("where, program, args", COMMANDS, ids=[f"{w} {p}" for w, p, _ in COMMANDS])
def test_a_documented_command_parses(where, program, args, capsys):
    parser = PROGRAMS[program]()
    try:
        parser.parse_args(args)
    except SystemExit as exit:
        if exit.code == 0:
            return  # --help
        pytest.fail(f"{where}: `{program} {shlex.join(args)}` is refused: {capsys.readouterr().err.strip()}")
        raise AssertionError from exit


def test_every_documented_training_config_is_found_where_its_command_runs(tmp_path, monkeypatch):
    """``numberdrop-train`` names shipped configs, found from any folder of an install;
    ``python train.py`` runs in the checkout."""
    from agents.training.config import find_config

    trainings = [
        (where, program, args)
        for where, program, args in COMMANDS
        if program in ("numberdrop-train", "python train.py") and "--help" not in args
    ]
    assert any(program == "numberdrop-train" for _, program, _ in trainings)
    for where, program, args in trainings:
        config = train.build_parser().parse_args(args).config
        monkeypatch.chdir(tmp_path if program == "numberdrop-train" else ROOT)
        try:
            find_config(config)
        except FileNotFoundError as err:
            pytest.fail(f"{where}: `{program} {shlex.join(args)}`: {err}")


def run(command: list[str], timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
@pytest.mark.parametrize("script", ["numberdrop-evaluate", "numberdrop-play", "numberdrop-train"])
def test_each_console_script_answers_help(script):
    done = run([str(SCRIPTS / script), "--help"])
    assert done.returncode == 0 and "usage:" in done.stdout, done.stderr


@pytest.mark.slow
def test_train_py_answers_help():
    done = run([sys.executable, "train.py", "--help"])
    assert done.returncode == 0 and "--config" in done.stdout, done.stderr


@pytest.mark.slow
@pytest.mark.integration
def test_the_ray_backend_runs_from_the_documented_command(tmp_path):
    pytest.importorskip("ray")
    out = tmp_path / "ray.json"
    args = ["--agents", "random,greedy", "--games", "4", "--backend", "ray", "--json", str(out)]
    done = run([str(SCRIPTS / "numberdrop-evaluate"), *args], timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.exists() and "greedy" in out.read_text()
