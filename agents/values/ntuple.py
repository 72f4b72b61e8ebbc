"""An afterstate value of Number Drop as a sum of table lookups (n-tuple style): its weights
(``NTupleValue``) and how they learn (``lambda_targets``, ``td_update``).

No multiplications: valuing a sheet costs its flood fills and a few dozen memory reads, so every
candidate of a turn is valued in one compiled call and the tables learn from very many games.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from numba import njit

from numberdrop_env.engine.rules import DEFAULT_RULES, Rules
from numberdrop_env.engine.solo import SoloGame
from numberdrop_env.planner.packing import TurnArrays
from numberdrop_env.planner.turns import TurnPlanner

from .lookups import Layout, candidate_values
from .spec import DEFAULT_SPEC, FAMILIES, NTupleSpec

__all__ = ["FAMILIES", "Layout", "NTupleSpec", "NTupleValue", "lambda_targets", "td_update", "warm_up"]


@njit(cache=True)
def lambda_targets(rewards, played, best, drawn, lam):
    """Each afterstate's lambda-return: the next turn's points plus ``1 - lam`` times the next
    afterstate's value at play and ``lam`` its return. After a random draw (``drawn``) the target is
    the best the next turn offered, so exploring lowers no target. The last afterstate is worth 0."""
    t_end = len(rewards)
    out = np.zeros(t_end)
    after = 0.0
    for t in range(t_end - 2, -1, -1):
        if drawn[t + 1]:
            after = best[t + 1]
        else:
            nxt = 0.0 if t + 1 == t_end - 1 else (1.0 - lam) * played[t + 1] + lam * after
            after = rewards[t + 1] + nxt
        out[t] = after
    return out


@njit(cache=True)
def td_update(weights, lookups, n_lookups, base, targets, alpha, errors, sizes):
    """Move each afterstate's value (``base`` plus its lookups) ``alpha`` of the way to its target,
    the step shared by its lookups (the last, worth 0, learns nothing); returns the squared errors.
    With ``errors`` and ``sizes`` as long as the weights (temporal coherence) each step is scaled
    by |sum of the weight's errors| / sum of their sizes: errors that cancel out slow it down."""
    coherent = len(errors) > 0
    sse = 0.0
    for t in range(len(targets) - 1):
        m = n_lookups[t]
        if m == 0:
            continue
        v = base[t]
        for a in range(m):
            v += weights[lookups[t, a]]
        err = targets[t] - v
        sse += err * err
        step = alpha * err / m
        for a in range(m):
            i = lookups[t, a]
            if coherent:
                rate = abs(errors[i]) / sizes[i] if sizes[i] > 0 else 1.0
                errors[i] += step
                sizes[i] += abs(step)
                weights[i] += step * rate
            else:
                weights[i] += step
    return sse


class NTupleValue:
    """The tables' weights with their layout: the value of every candidate of many games at once.
    ``planner_share`` adds that share of the planner's own value of the sheet, so zero tables with
    a share of 1 play as the greedy does, and learn a correction."""

    def __init__(
        self,
        spec: NTupleSpec = DEFAULT_SPEC,
        rules: Rules = DEFAULT_RULES,
        weights: np.ndarray | None = None,
        planner_share: float = 0.0,
        threads: int = 1,
    ) -> None:
        self.spec, self.layout = spec, Layout(spec, rules)
        if weights is None:
            weights = np.zeros(self.layout.size)
        elif not isinstance(weights, np.ndarray) or weights.shape != (self.layout.size,):
            raise ValueError(f"weights must be an array of shape ({self.layout.size},) for this spec")
        self.weights = np.ascontiguousarray(weights, np.float64)
        self.planner_share, self.threads = float(planner_share), threads
        self._pool = ThreadPoolExecutor(threads) if threads > 1 else None

    def candidate_values(
        self, states: np.ndarray, rows: np.ndarray, count: np.ndarray, arrays: TurnArrays
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(value, base, lookups, lookup counts) of every candidate of the games ``rows`` (of
        ``TurnPlanner.candidate_arrays``): the base (the planner's share) plus the tables', 0 for
        one that ends the game, other games and padding."""
        lay = self.layout
        games, slots = arrays.value.shape
        values = np.zeros((games, slots))
        lookups = np.zeros((games, slots, lay.max_lookups), np.int64)
        n_lookups = np.zeros((games, slots), np.int64)
        rows = np.ascontiguousarray(rows, np.int64)
        args = (
            states,
            rows,
            count,
            arrays,
            self.weights,
            lay.offsets,
            lay.spec.stages,
            lay.ints,
            lay.nbrs,
            lay.on_dice,
        )
        outs = (values, lookups, n_lookups)
        if self._pool is None or len(rows) < 2 * self.threads:
            candidate_values(*args, 0, len(rows), *outs)
        else:
            bounds = np.linspace(0, len(rows), self.threads + 1).astype(int).tolist()
            jobs = [self._pool.submit(candidate_values, *args, lo, hi, *outs) for lo, hi in zip(bounds, bounds[1:])]
            for job in jobs:
                job.result()
        base = np.zeros((games, slots))
        if self.planner_share:
            live = np.arange(slots)[None, :] < count[:, None]
            base = np.where(live & ~arrays.ends_game, self.planner_share * (arrays.value - arrays.points), 0.0)
        return values + base, base, lookups, n_lookups

    def save(self, path: str | Path, **extra: np.ndarray) -> None:
        """Write the weights and what they mean (``.npz``), with any ``extra`` arrays beside them."""
        np.savez_compressed(
            path,
            weights=self.weights,
            families=np.array(self.spec.families),
            stages=self.spec.stages,
            planner_share=self.planner_share,
            **extra,
        )

    @classmethod
    def load(cls, path: str | Path, rules: Rules = DEFAULT_RULES, threads: int = 1) -> NTupleValue:
        with np.load(path) as f:
            spec = NTupleSpec(tuple(str(x) for x in f["families"]), int(f["stages"]))
            return cls(spec, rules, f["weights"].copy(), float(f["planner_share"]), threads)


def warm_up() -> str:
    """Compile the value's kernels (or load them from numba's cache) on a game's first turn, valued
    and learnt with and without temporal coherence: ``python -m numberdrop_env.warmup`` runs it."""
    planner, game = TurnPlanner(), SoloGame(DEFAULT_RULES, seed=0)
    game.step(game.layout.start)
    states = planner.pack_batch([game], 16)
    count, arrays, _ = planner.candidate_arrays(states, DEFAULT_RULES, 16)
    value = NTupleValue(NTupleSpec(FAMILIES), planner_share=1.0)
    _, base, lookups, n_lookups = value.candidate_values(states, np.arange(1), count, arrays)
    targets = lambda_targets(np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2, np.bool_), 0.5)
    size = value.layout.size
    for errors, sizes in ((np.zeros(size), np.zeros(size)), (np.zeros(0), np.zeros(0))):
        td_update(value.weights, lookups[0, :2], n_lookups[0, :2], base[0, :2], targets, 1.0, errors, sizes)
    return "the n-tuple value's lookups and learning, one turn"
