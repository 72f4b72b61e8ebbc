"""One line of progress while numba compiles: what it compiles and how far.

A tqdm line in a terminal, else a plain line when the first compile starts and one at the end
(nothing if nothing compiled); the commands and ``python -m numberdrop_env.warmup`` show it.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

from . import numba_cache

__all__ = ["START_LINE", "CompileProgress"]

START_LINE = "compiling numba code for this machine (once; `python -m numberdrop_env.warmup` does it ahead of time)"


class CompileProgress:
    """A context manager: a tqdm line on a terminal ``stream``, a closing line elsewhere; ``total``
    steps (``step`` advances them) or none (then the bar counts functions)."""

    def __init__(self, stream: TextIO | None = sys.stderr, total: int | None = None, desc: str = "compiling") -> None:
        self.stream, self.total, self.desc = stream, total, desc
        self.functions, self.current = 0, ""
        self.seconds, self._depth, self._since = 0.0, 0, 0.0  # time spent compiling, nesting, its start
        self._ours = 0
        self._bar: Any = None
        self._lock = threading.Lock()
        self._listener: Any = None
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def _tick(self) -> None:
        """Redraw the line while one function compiles for seconds (numba lets other threads run)."""
        while not self._stop.wait(0.25):
            with self._lock:
                self._bar.refresh()

    def __enter__(self) -> CompileProgress:
        from numba.core import event

        if self.stream is not None and bool(getattr(self.stream, "isatty", lambda: False)()):
            from tqdm import tqdm

            unit = "fn" if self.total is None else "step"
            self._bar = tqdm(
                total=self.total, desc=self.desc, unit=unit, file=self.stream, leave=False, dynamic_ncols=True
            )
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()
        self._listener = _listener(self)
        event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc: object) -> None:
        from numba.core import event

        event.unregister("numba:compile", self._listener)
        if self._bar is not None:
            self._stop.set()
            self._ticker.join()
            self._bar.close()
        elif self.stream is not None and self.total is None and self.functions:
            print(f"compiled {self.functions} numba functions in {self.seconds:.1f} s", file=self.stream, flush=True)

    def _left(self) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                self.seconds += time.perf_counter() - self._since

    def step(self, desc: str) -> None:
        """A new step begins (its name on the line)."""
        self.desc = desc
        if self._bar is not None:
            with self._lock:
                self._bar.set_description_str(desc, refresh=True)

    def advance(self) -> None:
        if self._bar is not None:
            with self._lock:
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
            if self._bar is None:
                if self.functions == 1 and self.total is None and self.stream is not None:
                    print(START_LINE, file=self.stream, flush=True)
                return
            known = len(numba_cache.compiled_functions())
            self._bar.set_postfix_str(f"{self.current} ({self._ours} of {known} functions)", refresh=False)
            if self.total is None:
                self._bar.n = self.functions
            self._bar.refresh()


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
