"""The line the commands show while numba compiles: plain lines off a terminal, tqdm's on one."""

from __future__ import annotations

import io
import time

from numba import njit

from numberdrop_env import numba_cache, startup
from numberdrop_env.compile_progress import START_LINE, CompileProgress, waiting


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _fresh():
    @njit
    def add(a, b):
        return a + b

    return add


def test_off_a_terminal_one_line_when_compiling_starts_and_one_at_the_end():
    stream = io.StringIO()
    with CompileProgress(stream) as progress:
        _fresh()(1, 2)
    lines = stream.getvalue().splitlines()
    assert progress.functions >= 1
    assert lines[0] == START_LINE and lines[1].startswith(f"compiled {progress.functions} numba functions in ")
    assert len(lines) == 2 and "\r" not in stream.getvalue()


def test_nothing_compiled_nothing_said():
    stream = io.StringIO()
    add = _fresh()
    add(1, 2)
    with CompileProgress(stream):
        add(3, 4)
    assert stream.getvalue() == ""


def test_on_a_terminal_a_progress_line_that_is_erased():
    stream = _Terminal()
    with CompileProgress(stream, desc="compiling"):
        _fresh()(1.0, 2.0)
    text = stream.getvalue()
    assert "compiling: 1fn" in text and "add (1 of " not in text  # counted; only this package's are named
    assert text.endswith("\r") and START_LINE not in text  # the line is erased at the end


def test_on_a_terminal_nothing_is_drawn_while_nothing_compiles():
    """A prompt or a sheet printed between compiles is never preceded or overwritten by the line."""
    stream = _Terminal()
    add = _fresh()
    add(1, 2)
    with CompileProgress(stream) as progress:
        add(3, 4)  # compiled already: no line
        assert stream.getvalue() == ""
        _fresh()(1.0, 2.0)
        drawn = stream.getvalue()
        assert "compiling numba code (about a minute" in drawn and drawn.endswith("\r")  # erased once the compile ended
        print("> ", file=stream, end="")  # a prompt after the compile stays as printed
        time.sleep(0.6)  # the line's clock ticks every 0.25 s: it would redraw itself over the prompt
        assert stream.getvalue() == drawn + "> "
    assert progress.functions >= 1


def test_what_a_command_compiled_goes_into_the_record(monkeypatch):
    """The next process knows it is cached (it would otherwise compile it again in the background)."""
    recorded = []
    monkeypatch.setattr(numba_cache, "write_record", lambda: recorded.append(True))
    monkeypatch.setattr(numba_cache, "PACKAGES", [*numba_cache.PACKAGES, __name__.split(".")[0]])  # ours
    with CompileProgress(io.StringIO()):
        pass
    assert recorded == []  # nothing compiled, nothing written
    with CompileProgress(io.StringIO()):
        _fresh()(1, 2)
    assert recorded == [True]


def test_a_wait_for_the_background_compile_says_so(monkeypatch, capsys):
    """``startup.compiled``: the batch planner waits for the background process, with a line."""
    answers = iter([False, False, True])
    monkeypatch.setattr(numba_cache, "interpreted", lambda: True)
    monkeypatch.setattr(startup, "_ready", lambda: next(answers))
    monkeypatch.setattr(startup, "_switch", lambda: None)
    startup.compiled()
    assert capsys.readouterr().err == f"waiting for {startup.WAITED_FOR}\n"
    assert "about a minute" in startup.WAITED_FOR


def test_on_a_terminal_the_wait_line_counts_seconds_and_is_erased():
    stream = _Terminal()
    with waiting("the compile", since=12.0, stream=stream):
        pass
    text = stream.getvalue()
    assert "waiting for the compile: 00:12" in text and text.endswith("\r")
