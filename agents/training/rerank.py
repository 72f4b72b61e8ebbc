"""A re-ranker for a value network's best candidates, fitted to its own look-ahead
(``algorithm: rerank``; ``configs/q_rerank.yaml``).

    python train.py --config configs/q_rerank.yaml
    python train.py --config configs/q_rerank.yaml --resume runs/q_rerank

The Q-iteration network values a turn's candidates from summary features and picks the one
whose value it overestimates most; its one-turn look-ahead, which values them through sampled
next rolls, plays about 6.6 points a game better. Fitting the network itself to the
look-ahead's values did not move it (``docs/research/q-iteration.md``); a separate small network
that sees only the best few candidates, with what their sheets can still score
(``agents.networks.reranker``), does. Each generation:

1. **Recording**: the network ``init_from`` plays ``rerank.games`` games alone (with the best
   re-ranker so far after the first generation: the data follow the policy that plays), on
   every core. At each turn with at least ``rerank.top`` candidates the network's ``top`` best
   are valued by its look-ahead (points plus its critic's mean value of the next turn over
   ``rerank.samples`` sampled rolls, drawn from the game's seed): their input rows, the
   network's values and the look-ahead's are kept.
2. **Fit**: a new re-ranker learns, on the last ``rerank.window`` generations' recordings
   (less the ``rerank.holdout`` share of each generation's games, held out to measure it),
   corrections that bring the network's values, centred per turn, to the look-ahead's.
3. **The paired gate**: the network with the new re-ranker and with the best so far (at
   first: alone) play the same ``rerank.gate_games`` seeds; the new one becomes the best only
   when the mean paired difference is above 0. Both are logged.

The run directory holds ``recordings/gen_<g>.npz``, ``rerankers/gen_<g>.pt``,
``best_reranker.pt`` (what the closing table plays and ``ship_to`` ships; absent while no
generation beat the network alone), ``evals.jsonl``, TensorBoard events and
``rerank_state.json``, written last in each generation, which ``--resume`` continues from:
everything a generation does follows from seeds, so a resumed run ends as one never stopped.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from stable_baselines3.common.logger import Logger, configure

from numberdrop_env.engine.solo import SoloGame

from ..evaluation.solo import Progress, map_tasks, run
from ..networks.reranker import Reranker, load_reranker, save_reranker
from ..numberdrop.ppo import LearnedValue, best_candidates, is_turn_model, load_model, offer_turns, reranked, turn_setup
from ..numberdrop.search import SearchPolicy
from . import common, generations
from .checkpoints import append_jsonl, atomic_path, atomic_write
from .config import RerankConfig, RerankLoop

STATE = "rerank_state.json"
"""The run's progress, written last in a generation: what ``--resume`` continues from."""
_FREE = {"generations", "workers"}
"""The ``rerank`` settings a resumed run may change (the others decide its data and weights)."""
FIELDS = ("rows", "values", "lookahead", "game")
"""A recording's arrays: per recorded turn the re-ranker's input rows of the network's ``top``
best candidates, the network's values and the look-ahead's of them, and the game's seed."""
CHUNK = 10
"""Games per task of a recording's worker processes."""


def find_state(path: str | Path) -> Path:
    """The run directory ``--resume`` names (the directory, or its ``rerank_state.json``)."""
    return generations.find_state(path, STATE, "a re-ranker run")


def record_games(
    model_path: str, rerank_path: str | None, seeds: Sequence[int], top: int, samples: int
) -> dict[str, np.ndarray]:
    """The recordings of the games of ``seeds`` (see the module docstring, step 1), and each
    game's ``score``. A game depends only on its seed, the network and the re-ranker."""
    torch.set_num_threads(1)
    model = load_model(model_path)
    setup = turn_setup(model, getattr(model, "turn_slots", None))
    reranker = load_reranker(rerank_path) if rerank_path else None
    search = SearchPolicy(width=top, samples=samples, critic=LearnedValue(model=model))
    out: dict[str, list[Any]] = {k: [] for k in (*FIELDS, "score")}
    for seed in seeds:
        game = SoloGame(seed=int(seed))
        search.reset(int(seed))
        while not game.is_over:
            (offered,), batch, masks = offer_turns(setup, [game])
            slots, values = best_candidates(model, batch, masks, top)
            choice, rows = reranked(reranker, game, offered, batch, slots, values)
            if len(slots) == top:
                looked = np.array(search.lookahead(game, [offered[j] for j in slots], search.sample_rolls()))
                if np.isfinite(looked).all():  # a candidate repeating another is valued once
                    for key, value in zip(FIELDS, (rows, values, looked, seed)):
                        out[key].append(value)
            offered[int(slots[choice])].play(game)
        out["score"].append(game.score())
    if not out["rows"]:  # no turn recorded: empty arrays of the right rank
        out["rows"] = np.zeros((0, top, 0), np.float32)
    types = {"rows": np.float32, "values": np.float32, "lookahead": np.float32, "game": np.int64, "score": np.int64}
    arrays = {k: np.array(v, types[k]) for k, v in out.items()}
    for key in ("values", "lookahead"):
        arrays[key] = arrays[key].reshape(-1, top)
    return arrays


def _record_chunk(args: tuple[str, str | None, list[int], int, int]) -> dict[str, np.ndarray]:
    return record_games(*args)


def record(
    model_path: str,
    rerank_path: str | None,
    seeds: Sequence[int],
    x: RerankLoop,
    workers: int,
    progress: bool,
    desc: str,
) -> dict[str, np.ndarray]:
    """``record_games`` of ``seeds`` on ``workers`` processes (the same data for any number)."""
    tasks = [
        (model_path, rerank_path, list(seeds[i : i + CHUNK]), x.top, x.samples) for i in range(0, len(seeds), CHUNK)
    ]
    bar = Progress(len(seeds), progress, desc)
    parts = map_tasks(_record_chunk, tasks, workers, bar, lambda task: len(task[2]))
    bar.close()
    recorded = [p for p in parts if len(p["game"])] or parts[:1]
    return {k: np.concatenate([p[k] for p in (parts if k == "score" else recorded)]) for k in (*FIELDS, "score")}


def centred(values: np.ndarray) -> np.ndarray:
    """Values less their mean over each turn's candidates (rows): all a choice sees."""
    return values - values.mean(axis=-1, keepdims=True)


def measure(values: np.ndarray, lookahead: np.ndarray) -> dict[str, float]:
    """How far ``values`` are from the look-ahead's on the same turns: the mean absolute gap per
    candidate of the two, each centred per turn; how often their first choices agree; and what
    the first choice of ``values`` loses by the look-ahead's values (its regret, points a turn)."""
    first = values.argmax(axis=1)
    return {
        "gap": float(np.abs(centred(values) - centred(lookahead)).mean()),
        "agree": float((first == lookahead.argmax(axis=1)).mean()),
        "regret": float((lookahead.max(axis=1) - lookahead[np.arange(len(first)), first]).mean()),
    }


def split(data: dict[str, np.ndarray], holdout: float) -> tuple[np.ndarray, np.ndarray]:
    """(fit rows, held-out rows) of one generation's recording: the games of its last ``holdout``
    share of seeds are held out, whole."""
    seeds = np.unique(data["game"])
    held = seeds[len(seeds) - int(round(holdout * len(seeds))) :] if holdout > 0 else seeds[:0]
    out = np.isin(data["game"], held)
    return np.flatnonzero(~out), np.flatnonzero(out)


def fit(
    parts: list[dict[str, np.ndarray]], x: RerankLoop, seed: int, progress: bool, desc: str
) -> tuple[Reranker, dict[str, float]]:
    """A new re-ranker fitted to the recordings ``parts`` (newest first; see step 2), and its
    measures on the newest recording's held-out games, with the network's own for comparison."""
    splits = [split(p, x.holdout) for p in parts]
    rows = np.concatenate([p["rows"][fit_rows] for p, (fit_rows, _) in zip(parts, splits)])
    values = np.concatenate([p["values"][fit_rows] for p, (fit_rows, _) in zip(parts, splits)])
    target = np.concatenate([p["lookahead"][fit_rows] for p, (fit_rows, _) in zip(parts, splits)])
    if len(rows) == 0:
        raise ValueError("the recording holds no turn to fit: record more games (rerank.games)")
    torch.manual_seed(seed)
    reranker = Reranker(rows.shape[-1], x.hidden, x.top)
    reranker.normalise_to(rows)
    inputs, base, goal = (torch.as_tensor(a) for a in (rows, centred(values), centred(target)))
    optimiser = torch.optim.Adam(reranker.parameters(), lr=x.learning_rate)
    order = np.arange(len(rows))
    rng = np.random.default_rng(seed)
    bar = Progress(x.epochs * -(-len(rows) // x.batch_size), progress, desc, unit="step")
    for _ in range(x.epochs):
        rng.shuffle(order)
        for start in range(0, len(order), x.batch_size):
            batch = torch.as_tensor(order[start : start + x.batch_size])
            correction = reranker(inputs[batch])
            predicted = base[batch] + correction - correction.mean(dim=1, keepdim=True)
            loss = torch.nn.functional.huber_loss(predicted, goal[batch], delta=2.0)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            bar.update(1)
    bar.close()
    reranker.eval()
    held = splits[0][1]
    newest = parts[0]
    if len(held) == 0:
        return reranker, {"fit_turns": float(len(rows))}
    with torch.no_grad():
        corrected = newest["values"][held] + reranker(torch.as_tensor(newest["rows"][held])).numpy()
    network, after = (
        measure(newest["values"][held], newest["lookahead"][held]),
        measure(corrected, newest["lookahead"][held]),
    )
    return reranker, {
        "fit_turns": float(len(rows)),
        **{f"network_{k}": v for k, v in network.items()},
        **{f"reranked_{k}": v for k, v in after.items()},
    }


def gate_scores(cfg: RerankConfig, rerank_path: Path | None, workers: int) -> np.ndarray:
    """The network (with the re-ranker at ``rerank_path``, else alone) on the gate's seeds, in
    seed order, played by the evaluation runner as ``numberdrop-evaluate`` plays the ``ppo`` agent."""
    x = cfg.rerank
    options = {"path": cfg.init_from, **({"rerank": str(rerank_path)} if rerank_path else {})}
    results = run(["ppo"], x.gate_games, x.gate_seed, workers, {"ppo": options}, progress=False)["ppo"]
    return np.array([r.score for r in results], float)


def _recording_file(run_dir: Path, gen: int) -> Path:
    return run_dir / "recordings" / f"gen_{gen:03d}.npz"


def _reranker_file(run_dir: Path, gen: int) -> Path:
    """The re-ranker fitted in generation ``gen`` (1, 2, ...)."""
    return run_dir / "rerankers" / f"gen_{gen:03d}.pt"


def _read_recording(path: Path) -> dict[str, np.ndarray]:
    return generations.read_arrays(path, {*FIELDS, "score"}, "recording")


def _best_file(run_dir: Path, state: dict[str, Any]) -> Path | None:
    gen = state["best_generation"]
    return _reranker_file(run_dir, gen) if gen > 0 else None


def generate(
    cfg: RerankConfig, run_dir: Path, state: dict[str, Any], workers: int, progress: bool
) -> dict[str, np.ndarray]:
    """Generation ``state['generation']``'s recording (read back when a stopped run had finished it)."""
    x, gen = cfg.rerank, state["generation"]
    path = _recording_file(run_dir, gen)
    if path.is_file():
        try:
            return _read_recording(path)
        except ValueError as err:
            print(f"note: {err}; recording generation {gen + 1} again", file=sys.stderr)
    seeds = [x.seed + gen * x.games + i for i in range(x.games)]
    best = _best_file(run_dir, state)
    data = record(
        str(cfg.init_from), str(best) if best else None, seeds, x, workers, progress, f"generation {gen + 1} recording"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path, ".npz") as tmp:
        np.savez(tmp, **data)
    return data


def _start(cfg: RerankConfig, run_dir: Path, resume: Path | None, workers: int) -> dict[str, Any]:
    """The run's state: read back on ``--resume``, else a new run (the network alone on the gate)."""
    settings = {"seed": cfg.seed, "init_from": cfg.init_from}
    settings.update(cfg.rerank.model_dump(exclude=_FREE))
    if resume is not None:
        return generations.resume_state(run_dir, STATE, settings, "rerank")
    model = load_model(cfg.init_from)
    if not is_turn_model(model) or not hasattr(model.policy, "heads"):
        raise ValueError(f"init_from {cfg.init_from!r}: a re-ranker needs a turn-level candidate-scoring network")
    for stale in ("recordings", "rerankers", "best_reranker.pt"):  # a new run never reads an earlier one's
        target = run_dir / stale
        shutil.rmtree(target, ignore_errors=True) if target.is_dir() else target.unlink(missing_ok=True)
    scores = gate_scores(cfg, None, workers)
    state = generations.first_state(run_dir, STATE, scores, settings)
    print(f"generation 0 ({cfg.init_from} alone): {scores.mean():.2f} on {len(scores)} gate games", file=sys.stderr)
    return state


def run_generation(
    cfg: RerankConfig, run_dir: Path, state: dict[str, Any], logger: Logger, workers: int, progress: bool
) -> dict[str, Any]:
    """One generation: recording, fit, gate. Its files are new ones until the state, written last, takes them in."""
    x, gen = cfg.rerank, state["generation"]
    start = time.perf_counter()
    data = generate(cfg, run_dir, state, workers, progress)
    earlier = range(gen - 1, max(-1, gen - x.window), -1)
    parts = [data] + [_read_recording(_recording_file(run_dir, g)) for g in earlier]
    reranker, measures = fit(parts, x, cfg.seed * 1000 + gen, progress, f"generation {gen + 1} fit")
    path = save_reranker(
        reranker, _reranker_file(run_dir, gen + 1), {"network": str(cfg.init_from), "generation": gen + 1}
    )
    scores = gate_scores(cfg, path, workers)
    gate = generations.paired_gate(scores, np.array(state["best_scores"]))
    turns = state["turns"] + len(data["game"])
    entry = {
        **generations.gate_entry(gen + 1, turns, scores, gate),
        "recorded_mean": float(data["score"].mean()),
        **measures,
        "seconds": time.perf_counter() - start,
    }
    _log(logger, entry)
    append_jsonl(run_dir / "evals.jsonl", entry)
    new_state = generations.next_state(run_dir, STATE, state, scores, gate, turns)
    for g in range(gen + 2 - x.window):  # recordings no later generation reads
        _recording_file(run_dir, g).unlink(missing_ok=True)
    if gate["kept"]:
        with atomic_path(run_dir / "best_reranker.pt", ".pt") as tmp:
            shutil.copy2(path, tmp)
    lo, hi = gate["paired_ci95"]
    print(
        f"generation {gen + 1}: recorded {entry['recorded_mean']:.2f}, gate {entry['score_mean']:.2f}, "
        f"paired {gate['paired_diff']:+.2f} [{lo:+.2f}, {hi:+.2f}] -> {'kept' if gate['kept'] else 'not kept'}; "
        f"held-out gap to the look-ahead {measures.get('network_gap', float('nan')):.3f} -> "
        f"{measures.get('reranked_gap', float('nan')):.3f} ({entry['seconds']:.0f} s)",
        file=sys.stderr,
    )
    return new_state


def _log(logger: Logger, entry: dict[str, Any]) -> None:
    for key, name in (
        ("recorded_mean", "game/score_mean"),
        ("score_mean", "eval/score_mean"),
        ("paired_diff", "eval/paired_diff"),
        ("kept", "eval/kept"),
        ("network_gap", "train/network_gap"),
        ("reranked_gap", "train/reranked_gap"),
        ("reranked_agree", "train/reranked_agree"),
        ("reranked_regret", "train/reranked_regret"),
    ):
        if key in entry:
            logger.record(name, float(entry[key]))
    logger.record("train/generation", entry["generation"])
    logger.dump(entry["step"])


def train(cfg: RerankConfig, args: argparse.Namespace) -> dict[str, Any]:
    """Run the generations the config asks for (continuing a stopped run with ``--resume``),
    then the closing table of the network with the best re-ranker."""
    torch.set_num_threads(1)
    resume: Path | None = getattr(args, "resume", None)
    progress = cfg.progress_bar and not getattr(args, "no_progress", False)
    run_dir = cfg.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    workers = cfg.rerank.workers or os.cpu_count() or 1
    start = time.perf_counter()
    state = _start(cfg, run_dir, resume, workers)  # a refused resume changes nothing
    atomic_write(run_dir / "config.yaml", yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    logger = configure(str(run_dir), ["tensorboard"])
    try:
        while state["generation"] < cfg.rerank.generations:
            state = run_generation(cfg, run_dir, state, logger, workers, progress)
    finally:
        logger.close()
    seconds = time.perf_counter() - start
    best = _best_file(run_dir, state)
    print(
        f"{state['generation']} generations in {seconds:.0f} s; best: generation {state['best_generation']} "
        f"({np.mean(state['best_scores']):.2f} on {cfg.rerank.gate_games} gate games); run dir {run_dir}",
        file=sys.stderr,
    )
    options = {"path": str(cfg.init_from), **({"rerank": str(run_dir / "best_reranker.pt")} if best else {})}
    summary = common.final_evaluation(cfg, "ppo", options, run_dir, progress)
    if cfg.ship_to and best:
        target = Path(cfg.ship_to)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(run_dir / "best_reranker.pt", target)
        print(f"shipped {run_dir / 'best_reranker.pt'} -> {target}", file=sys.stderr)
    return {
        "run_dir": str(run_dir),
        "best_reranker": str(run_dir / "best_reranker.pt") if best else None,
        "generations": state["generation"],
        "best_generation": state["best_generation"],
        "seconds": seconds,
        "final_eval": summary,
    }
