"""Does the web app's analysis explain the agent's choice? Counted over whole games.

``python -m benchmarks.web_analysis --agents best,greedy --seeds 0,1,2`` plays each agent's
own game on each seed (the game ``numberdrop-evaluate`` plays, through the app's ``SharedLine``)
and analyses every turn after the first (the first writes the 1 by a fixed rule): a turn counts
when the agent's chosen move is not a row with a number in every column, and when two of its
rows read alike. The target is 0 and 0.
"""

from __future__ import annotations

import argparse
import json
import time

from numberdrop_web.analysis import Job
from numberdrop_web.policies import line_of
from numberdrop_web.sessions import GameSession


def measure(agent: str, seed: int, turns: int) -> dict[str, int | float]:
    session = GameSession(seed=seed, agent=agent)
    line, out = line_of(session, agent), {"turns": 0, "lacking": 0, "alike": 0}
    start = time.perf_counter()
    while not session.game.is_over and out["turns"] < turns:
        result = line.analyse(session.game.clone(), Job("analysis"))
        if session.game.turn > 0:
            rows, columns = result["candidates"], result["columns"]
            chosen = [r for r in rows if r["chosen"]]
            texts = [r["summary"] for r in rows]
            out["turns"] += 1
            out["lacking"] += len(chosen) != 1 or any(chosen[0].get(k) is None for k in columns)
            out["alike"] += len(set(texts)) < len(texts)
        session.play(result["hint"]["actions"], auto=True)
    out["seconds"] = round(time.perf_counter() - start, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="best,greedy", help="agents, comma-separated")
    parser.add_argument("--seeds", default="0,1,2", help="seeds, comma-separated")
    parser.add_argument("--turns", type=int, default=33, help="turns analysed per game at most")
    args = parser.parse_args(argv)
    report = {}
    for agent in args.agents.split(","):
        totals = {"turns": 0, "lacking": 0, "alike": 0, "seconds": 0.0}
        for seed in map(int, args.seeds.split(",")):
            for k, v in measure(agent, seed, args.turns).items():
                totals[k] += v
        report[agent] = totals
        print(
            f"{agent}: {totals['turns']} turns analysed, chosen move without its numbers in {totals['lacking']},"
            f" two rows alike in {totals['alike']} ({totals['seconds']:.0f} s)",
            flush=True,
        )
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
