"""The commands in a real terminal, a tmux pane read back as its screen: what the user sees
between the prompts (no compile line where nothing compiles) and that a closed pipe ends a
command quietly."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.cli.common import CLOSED_PIPE

ROOT = Path(__file__).resolve().parents[3]
TMUX = shutil.which("tmux")
WAIT_S = 120.0
"""How long a pane may take to show what a test waits for (a loaded machine); never asserted."""


class Pane:
    """One command in a detached tmux session on a server of its own (its socket in ``folder``)."""

    def __init__(self, folder: Path, command: list[str]) -> None:
        self.socket = folder / "tmux.sock"
        config = folder / "tmux.conf"
        config.write_text("set -g remain-on-exit on\nset -g history-limit 5000\n")  # the screen stays readable
        env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(folder), "TERM": "xterm"}
        env.pop("TMUX", None)
        self._tmux("-f", str(config), "new-session", "-d", "-x", "100", "-y", "50", "-c", str(ROOT), *command, env=env)

    def _tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run([TMUX, "-S", str(self.socket), *args], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def screen(self) -> str:
        """Everything the pane showed, scrolled-off lines first."""
        return self._tmux("capture-pane", "-p", "-S", "-", "-E", "-")

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen().rstrip().splitlines()]

    def wait_for(self, test) -> list[str]:
        deadline = time.monotonic() + WAIT_S
        while not test(self.lines()):
            if time.monotonic() > deadline:
                pytest.fail("the pane never showed what was expected:\n" + self.screen())
            time.sleep(0.2)
        return self.lines()

    def type(self, keys: str) -> None:
        self._tmux("send-keys", "-l", keys)

    def close(self) -> None:
        subprocess.run([TMUX, "-S", str(self.socket), "kill-server"], capture_output=True)


@pytest.fixture
def pane(tmp_path) -> Iterator:
    if TMUX is None:
        pytest.skip("tmux is not installed")
    panes: list[Pane] = []

    def start(*args: str) -> Pane:
        panes.append(Pane(tmp_path, [sys.executable, "-m", "agents.cli.play", *args]))
        return panes[-1]

    yield start
    for p in panes:
        p.close()


def _prompting(lines: list[str]) -> bool:
    return bool(lines) and lines[-1].endswith("help]>")


def test_the_human_prompt_stays_whole_with_nothing_compiling(pane):
    game = pane("--human", "--seed", "0")
    assert game.wait_for(_prompting)[-1].startswith("turn 0, write the "), game.screen()
    game.type("1\r")  # the starting number: the first turn's dice come next
    game.wait_for(lambda lines: _prompting(lines) and lines[-1].startswith("turn 1"))
    time.sleep(1.0)  # a progress line left running would have redrawn itself over the prompt by now
    game.type("hel")
    lines = game.wait_for(lambda lines: lines and lines[-1].endswith("> hel"))
    assert lines[-1].startswith("turn 1, dice "), lines[-3:]  # the turn and the dice, then what was typed
    assert not any("compiling" in line for line in lines), "\n".join(lines)
    game.type("\rquit\r")
    game.wait_for(lambda lines: "game saved to " in "".join(lines))


def test_an_agent_sheet_starts_with_the_sheet(pane):
    game = pane("--agent", "random", "--seed", "0")
    lines = game.wait_for(lambda lines: any(line.startswith("final score:") for line in lines))
    assert not any("compiling" in line for line in lines), "\n".join(lines)


@pytest.mark.parametrize(
    "command",
    [
        ["agents.cli.play", "--agent", "greedy", "--seed", "0", "--every-turn"],
        ["agents.cli.evaluate", "--agents", "random", "--games", "2", "--no-progress"],
    ],
    ids=["play", "evaluate"],
)
def test_a_closed_pipe_ends_the_command_quietly(command):
    """``numberdrop-play ... | head -2``: the reader gone before the output comes."""
    read, write = os.pipe()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", *command], stdout=write, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    os.close(write)
    os.close(read)
    _, err = child.communicate(timeout=300)
    assert err.decode() == "" and child.returncode == CLOSED_PIPE, (child.returncode, err.decode()[-2000:])
