"""CPU seconds of first use with an empty numba cache (each case in a child process over a fresh
``NUMBA_CACHE_DIR``), and numba's compile profile by function. ``quick`` (a first step) and ``game``
(a first ``numberdrop-play --agent ntuple`` game) as users get them, the background compile's CPU-s
apart; ``turn`` and ``game-compiled`` with the whole compile in the foreground; ``cached`` the game
again over the cache ``game`` filled. ``docs/speed.md`` tells how to read it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

CASES = ("quick", "turn", "game", "game-compiled", "cached")
QUICK = ("quick", "game")
PROFILED = ("turn", "game-compiled")


def _turn() -> None:
    import gymnasium as gym
    import numpy as np

    env = gym.make("numberdrop_env:NumberDropTurn-v0")  # imports the package, which registers it
    _, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))


def _game() -> None:
    from agents.cli.play import main

    main(["--agent", "ntuple", "--seed", "0"])


def _profiled(work, out: str) -> None:
    """Runs work recording numba's compile events: {function: [exclusive CPU-s, of it in LLVM, count]}."""
    from numba.core import event

    stack: list[list[float]] = []  # per open compile: start, CPU-s of its nested compiles, of its LLVM
    profile: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])

    class Compile(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            stack.append([time.process_time(), 0.0, 0.0])

        def on_end(self, ev: event.Event) -> None:
            start, nested, llvm = stack.pop()
            spent = time.process_time() - start
            if stack:
                stack[-1][1] += spent
            py = ev.data["dispatcher"].py_func
            row = profile[f"{py.__module__}.{py.__qualname__}"]
            row[0], row[1], row[2] = row[0] + spent - nested, row[1] + llvm, row[2] + 1

    class Llvm(event.Listener):  # optimising and emitting machine code, under numba's LLVM lock
        def on_start(self, ev: event.Event) -> None:
            self.start = time.process_time()

        def on_end(self, ev: event.Event) -> None:
            if stack:
                stack[-1][2] += time.process_time() - self.start

    with event.install_listener("numba:compile", Compile()), event.install_listener("numba:llvm_lock", Llvm()):
        work()
    with open(out, "w") as handle:
        json.dump(profile, handle)


def _child(case: str, cache: str, profile: str | None) -> tuple[float, float, float]:
    """The child's CPU seconds (user + system) and wall seconds running case over the cache folder,
    and the CPU seconds of the background compile it started (0 when none)."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    command = [sys.executable, "-m", "benchmarks.first_use", "--child", case]
    command += ["--profile", profile] if profile else []
    env = os.environ | {"NUMBA_CACHE_DIR": cache, "NUMBERDROP_QUICK_START": "1" if case in QUICK else "0"}
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    background = _background_cpu(cache) if case in QUICK else 0.0
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall, background


def _background_cpu(cache: str) -> float:
    """The CPU seconds of the background compile the quick start left running (its pid is in its
    lock file), read from ``/proc`` until it ends: it is not this process's child."""
    from numberdrop_env.startup import LOCK

    spent, pid = 0.0, None
    for _ in range(100):  # the background process takes its lock as it starts
        try:
            pid = int(Path(cache, LOCK).read_text())
            break
        except (OSError, ValueError):
            time.sleep(0.1)
    while pid is not None:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            break
        spent = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
        time.sleep(0.2)
    return spent


def _report(name: str, path: str, top: int) -> None:
    rows = sorted(json.load(open(path)).items(), key=lambda item: -item[1][0])
    total, llvm, count = (sum(row[1][i] for row in rows) for i in (0, 1, 2))
    print(f"\ncompile profile, {name}: {len(rows)} functions, {count} specialisations, {total:.1f} CPU-s")
    print(f"  (CPU-s exclusive, of them {llvm:.1f} in LLVM; specialisations; function)")
    for function, (seconds, in_llvm, n) in rows[:top]:
        print(f"  {seconds:6.2f} {in_llvm:6.2f} {n:3d}x  {function}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.first_use", description=__doc__)
    parser.add_argument("--top", type=int, default=15, help="functions listed per compile profile")
    parser.add_argument("--only", default=",".join(CASES), help="comma-separated cases to run")
    parser.add_argument("--child", choices=CASES, help=argparse.SUPPRESS)
    parser.add_argument("--profile", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    work = {"quick": _turn, "turn": _turn, "game": _game, "game-compiled": _game, "cached": _game}
    if args.child:
        return _profiled(work[args.child], args.profile) if args.profile else work[args.child]()
    cases = args.only.split(",")
    with tempfile.TemporaryDirectory() as folder:
        profiles = {}
        for case in cases:
            cache = os.path.join(folder, "game" if case in ("game", "cached") else case)
            if case == "cached" and "game" not in cases:
                _child("game", cache, None)  # its background fills the cache, not measured
            profile = profiles[case] = os.path.join(folder, f"{case}.json") if case in PROFILED else None
            seconds, wall, background = _child(case, cache, profile)
            what = "cache filled by game" if case == "cached" else "empty cache"
            extra = f", background compile {background:.1f} CPU-s" if case in QUICK else ""
            print(f"{case:<13} {seconds:6.1f} CPU-s  {wall:6.1f} s wall  ({what}{extra})", flush=True)
        for case, path in profiles.items():
            _report(case, path, args.top) if path else None


if __name__ == "__main__":
    main()
