"""The line the commands show while numba compiles: plain lines off a terminal, tqdm's on one."""

from __future__ import annotations

import io

from numba import njit

from numberdrop_env.compile_progress import START_LINE, CompileProgress


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
