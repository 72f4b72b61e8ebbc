"""One line of progress while numba compiles: what it compiles and how far.

A tqdm line in a terminal while a compile runs, drawn when one starts and erased when it ends (a
prompt or a sheet printed between compiles is never overwritten), else a plain line when the first
compile starts and one at the end (nothing if nothing compiled); the commands and
``python -m numberdrop_env.warmup`` show it. ``waiting`` is the line of a wait for the background compile.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from . import numba_cache

__all__ = ["START_LINE", "CompileProgress", "waiting"]

FIRST_USE = "about a minute of one core, once"
"""How long compiling everything the planner and the agents call takes without a cache (2-core CPU)."""
START_LINE = (
    f"compiling numba code for this machine ({FIRST_USE}; `python -m numberdrop_env.warmup` does it ahead of time)"
)


class CompileProgress:
    """A context manager: a tqdm line on a terminal ``stream``, a closing line elsewhere; ``total``
    steps (``step`` advances them, the line shown throughout) or none (the line counts functions and
    shows only while one compiles). What this process compiled goes into ``numba_cache``'s record,
    so that the next process knows it is cached."""

    def __init__(
        self,
        stream: TextIO | None = sys.stderr,
        total: int | None = None,
        desc: str = f"compiling numba code ({FIRST_USE})",
    ) -> None:
        self.stream, self.total, self.desc = stream, total, desc
        self.functions, self.current = 0, ""
        self.seconds, self._depth, self._since = 0.0, 0, 0.0  # time spent compiling, nesting, its start
        self._ours, self._steps, self._terminal = 0, 0, False
        self._bar: Any = None
        self._lock = threading.Lock()
        self._listener: Any = None
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def _tick(self) -> None:
        """Redraw the line while one function compiles for seconds (numba lets other threads run)."""
        while not self._stop.wait(0.25):
            with self._lock:
                if self._bar is not None:
                    self._bar.refresh()

    def __enter__(self) -> CompileProgress:
        from numba.core import event

        self._terminal = self.stream is not None and bool(getattr(self.stream, "isatty", lambda: False)())
        if self._terminal and self.total is not None:  # warm_up's steps: a line from the start
            self._open_bar()
        self._listener = _listener(self)
        event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc: object) -> None:
        from numba.core import event

        event.unregister("numba:compile", self._listener)
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
        with self._lock:
            self._close_bar()
        if self._ours and self.total is None:  # a later process loads them (warm_up records its own)
            numba_cache.write_record()
        if not self._terminal and self.stream is not None and self.total is None and self.functions:
            print(f"compiled {self.functions} numba functions in {self.seconds:.1f} s", file=self.stream, flush=True)

    def _open_bar(self) -> None:
        """The line, drawn when a compile starts (under the lock); the counts go on from the last one."""
        from tqdm import tqdm

        unit = "fn" if self.total is None else "step"
        self._bar = tqdm(total=self.total, desc=self.desc, unit=unit, file=self.stream, leave=False, dynamic_ncols=True)
        self._bar.n = self.functions if self.total is None else self._steps
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    def _close_bar(self) -> None:
        """Erase the line (under the lock): nothing compiles now."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def _left(self) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                self.seconds += time.perf_counter() - self._since
                if self.total is None:  # warm_up's steps keep their line: they compile throughout
                    self._close_bar()

    def step(self, desc: str) -> None:
        """A new step begins (its name on the line)."""
        self.desc = desc
        if self._bar is not None:
            with self._lock:
                self._bar.set_description_str(desc, refresh=True)

    def advance(self) -> None:
        with self._lock:
            self._steps += 1
            if self._bar is not None:
                self._bar.update(1)

    def write(self, line: str) -> None:
        """A line above the progress line (or plain)."""
        if self._bar is not None:
            with self._lock:
                self._bar.write(line, file=self.stream)
        elif self.stream is not None:
            print(line, file=self.stream, flush=True)

    def _compiling(self, name: str, ours: bool) -> None:
        with self._lock:
            if self._depth == 0:
                self._since = time.perf_counter()
            self._depth += 1
            self.functions += 1
            self._ours += ours
            if ours:
                self.current = name
            if not self._terminal:
                if self.functions == 1 and self.total is None and self.stream is not None:
                    print(START_LINE, file=self.stream, flush=True)
                return
            if self._bar is None:
                self._open_bar()
            known = len(numba_cache.compiled_functions())
            self._bar.set_postfix_str(f"{self.current} ({self._ours} of {known} functions)", refresh=False)
            if self.total is None:
                self._bar.n = self.functions
            self._bar.refresh()


@contextmanager
def waiting(what: str, since: float = 0.0, stream: TextIO | None = None) -> Iterator[None]:
    """The line of a wait for ``what`` (begun ``since`` seconds ago) on ``stream`` (standard error):
    on a terminal a tqdm line of the seconds waited, erased when the wait ends; elsewhere one plain
    line as it starts."""
    stream = sys.stderr if stream is None else stream
    if not bool(getattr(stream, "isatty", lambda: False)()):
        print(f"waiting for {what}", file=stream, flush=True)
        yield
        return
    from tqdm import tqdm

    bar = tqdm(desc=f"waiting for {what}", bar_format="{desc}: {elapsed}", file=stream, leave=False)
    bar.start_t -= since  # the wait began before this line: its clock counts from then
    bar.refresh()
    stop = threading.Event()

    def tick() -> None:  # the seconds go on while the caller sleeps
        while not stop.wait(0.5):
            bar.refresh()

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        yield
    finally:
        stop.set()
        ticker.join()
        bar.close()


def _listener(progress: CompileProgress) -> Any:
    """A listener of numba's compile events that tells the progress line (the functions of
    ``numba_cache.PACKAGES`` by name, numba's own internals only counted)."""
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            f = getattr(ev.data.get("dispatcher"), "py_func", None)
            module = getattr(f, "__module__", "") or ""
            ours = f is not None and module.split(".")[0] in numba_cache.PACKAGES
            progress._compiling(f"{module.rsplit('.', 1)[-1]}.{f.__name__}" if ours else "", ours)

        def on_end(self, ev: Any) -> None:
            progress._left()

    return Listener()
