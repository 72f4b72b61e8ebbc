"""The JAX learner's networks (``agents.training.jax_ppo``, played by the ``jax_ppo`` agent), plain
JAX functions of a parameter dict (no torch, no flax), read off Number Drop's flat observation
(``numberdrop_env.functional.observe``, value for value ``NumberDrop-v0``'s) and saved as one ``.npz``:

- ``mlp``: an MLP over the observation with a fixed head over the flat actions;
- ``cells``: the same plus, for the decisions that place numbers, logits that are one shared
  function of each action's consequence: a *select* or *start* action by a code of its cell and
  its neighbours' planes; a *place* action by what its tetromino's four landed cells (from the
  observation's landing rows and the engine's shape tables) make: landing height, gaps left
  under them, rows completed, what they touch; an *arrange* or *wild* action by the value each
  landed cell gets and how many neighbours that value matches (same or consecutive).

A masked action's logit is ``NEG``; both give the value from a separate MLP critic."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

Params = dict[str, Any]
NEG = -1e9
"""The logit of a masked action (finite, so a softmax of an all-masked row stays defined)."""
GRID_PLANES = 19
FILLED, NUMBERS, PENDING, WILD_CELL = 0, 3, 13, 14
"""Planes of the observation's grid: filled, the numbers 0..9 from 3, the pending tetromino, the next wild cell."""
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""A cell's orthogonal neighbours."""


class Layout(NamedTuple):
    """What the ``cells`` network reads of the rules: sizes, action offsets and shape tables."""

    rows: int
    cols: int
    dice: int
    start: int
    place: int
    arrange: int
    wild: int
    select: int
    dr: np.ndarray  # (P, 4) row offset of each cell of each placement
    cc: np.ndarray  # (P, 4) column of each cell
    bottom: np.ndarray  # (P, 4) lowest row offset within that cell's column
    permutations: np.ndarray  # (24, 4) sorted die of each landed cell


def layout(rules: Any = None) -> Layout:
    """The default rules' layout (the engine's own tables)."""
    from numberdrop_env.engine.actions import PERMUTATIONS, layout_for, tetromino_table
    from numberdrop_env.engine.rules import DEFAULT_RULES

    rules = DEFAULT_RULES if rules is None else rules
    a, t = layout_for(rules), tetromino_table(rules)
    return Layout(
        rules.rows, rules.cols, len(rules.number_dice), a.start, a.place, a.arrange, a.wild, a.select,
        t.dr, t.cc, t.bottom, PERMUTATIONS,
    )  # fmt: skip


def _dense(key: jax.Array, n_in: int, n_out: int, scale: float) -> dict[str, jax.Array]:
    """An orthogonal layer (PureJaxRL's init) of gain ``scale``, bias 0."""
    w = jax.nn.initializers.orthogonal(scale)(key, (n_in, n_out), jnp.float32)
    return {"w": w, "b": jnp.zeros((n_out,), jnp.float32)}


def init_params(
    key: jax.Array, obs_size: int, num_actions: int, hidden: Sequence[int], kind: str = "mlp", channels: int = 32
) -> Params:
    """Separate actor and critic torsos of ``hidden`` widths (tanh); the heads start small (gain
    0.01), so the first policy is near uniform over the legal actions."""
    keys = iter(jax.random.split(key, 2 * len(hidden) + 16))
    params: Params = {}
    for part in ("actor", "critic"):
        n = obs_size
        for i, width in enumerate(hidden):
            params[f"{part}_{i}"] = _dense(next(keys), n, width, float(np.sqrt(2)))
            n = width
    params["pi"] = _dense(next(keys), hidden[-1], num_actions, 0.01)
    params["v"] = _dense(next(keys), hidden[-1], 1, 1.0)
    if kind == "cells":
        c = channels
        params["ctx"] = _dense(next(keys), hidden[-1], c, 1.0)
        params["cell"] = _dense(next(keys), 5 * (GRID_PLANES + 1), c, 1.0)  # select, start: a cell and its neighbours
        params["drop"] = _dense(next(keys), 6, c, 1.0)  # place: its landing features
        params["valued"] = _dense(next(keys), 11 + 2, c, 1.0)  # arrange, wild: a cell's value and its matches
        params["heads"] = {"w": jax.nn.initializers.normal(0.01)(next(keys), (4, c)), "b": jnp.zeros(2)}
    return params


def kind_of(params: Params) -> str:
    return "cells" if "cell" in params else "mlp"


def _torso(params: Params, part: str, x: jax.Array) -> jax.Array:
    for i in range(sum(1 for k in params if k.startswith(f"{part}_"))):
        layer = params[f"{part}_{i}"]
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x


def _shift(planes: jax.Array, dr: int, dc: int) -> jax.Array:
    """``out[..., r, c] = planes[..., r + dr, c + dc]`` (0 outside the grid)."""
    padded = jnp.pad(planes, [(0, 0)] * (planes.ndim - 2) + [(1, 1), (1, 1)])
    rows, cols = planes.shape[-2:]
    return padded[..., 1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]


def _consequences(params: Params, lay: Layout, x: jax.Array, h: jax.Array) -> jax.Array:
    """(412,) the consequence logits of one observation ``x`` (``h``: its actor code). Cells are
    picked by one-hot products rather than gathers (whose gradients are slow scatters on a CPU)."""
    R, C = lay.rows, lay.cols
    n_cells, P, K = R * C, len(lay.dr), len(lay.permutations)
    grid = x[: GRID_PLANES * n_cells].reshape(GRID_PLANES, R, C)
    planes = jnp.concatenate([grid, jnp.ones((1, R, C))])
    around = jnp.concatenate([planes] + [_shift(planes, dr, dc) for dr, dc in STEPS])  # a cell and its neighbours
    ctx = h @ params["ctx"]["w"] + params["ctx"]["b"]
    u = params["heads"]["w"]
    code = jax.nn.relu(around.reshape(-1, n_cells).T @ params["cell"]["w"] + params["cell"]["b"] + ctx)
    select = code @ u[0]  # (cells,)

    heights = jnp.round(x[-P - C : -P] * R)
    row = jnp.maximum(jnp.round(x[-P:] * R) - 1, 0)  # landing row of each placement
    r = row[:, None] + jnp.asarray(lay.dr, jnp.float32)  # (P, 4)
    at = jnp.clip(r, 0, R - 1).astype(jnp.int32) * C + jnp.asarray(lay.cc)
    hits = jax.nn.one_hot(at, n_cells).sum(1)  # (P, cells): the landed cells
    filled = grid[FILLED].sum(axis=1)  # (rows,)
    same_row = (r[:, :, None] == r[:, None, :]).sum(-1)
    complete = ((jax.nn.one_hot(jnp.clip(r, 0, R - 1).astype(jnp.int32), R) @ filled) + same_row >= C).mean(-1)
    lowest = jnp.asarray(lay.dr == lay.bottom)
    gaps = jnp.where(lowest, r - heights[jnp.asarray(lay.cc)], 0.0).sum(-1) / 4.0
    taken = jnp.pad(grid[FILLED], 1, constant_values=1.0)  # walls and floor touch
    touch = sum(taken[1 + dr : 1 + dr + R, 1 + dc : 1 + dc + C] for dr, dc in STEPS).reshape(-1)
    numbers_near = sum(_shift(grid[NUMBERS : NUMBERS + 10].sum(0), dr, dc) for dr, dc in STEPS).reshape(-1)
    landed = hits @ jnp.stack([touch, numbers_near], -1) / 4.0  # (P, 2): contacts of the landed cells
    drop = jnp.concatenate([jnp.stack([row / R, r.max(-1) / R, complete, gaps], -1), landed], -1)
    place = jax.nn.relu(drop @ params["drop"]["w"] + params["drop"]["b"] + ctx) @ u[1]  # (P,)

    numbers = grid[NUMBERS : NUMBERS + 10] * (1 - grid[PENDING]) * (1 - grid[WILD_CELL])
    near = sum(_shift(numbers, dr, dc) for dr, dc in STEPS)
    near = jnp.pad(near.reshape(10, n_cells).T, ((0, 0), (1, 1)))  # (cells, 12): value v at v + 1
    match = jnp.stack([jnp.eye(12)[1:12], jnp.eye(12, k=-1)[1:12] + jnp.eye(12, k=1)[1:12]], -1).at[10].set(0)
    """(11 values, 12, 2): which of ``near``'s columns count as the same value and as consecutive (a star none)."""

    def valued(picks: jax.Array, values: jax.Array) -> jax.Array:
        """Codes (..., channels) of the cells ``picks`` (..., cells one-hot) given ``values`` (..., 11 one-hot)."""
        matched = jnp.einsum("...v,vkm,...k->...m", values, match, picks @ near)
        feats = jnp.concatenate([values, matched], -1)
        return jax.nn.relu(feats @ params["valued"]["w"] + params["valued"]["b"] + ctx)

    pend = grid[PENDING].reshape(-1)
    rank = jnp.cumsum(pend) - 1  # landed cell i: by row, then column
    picks = pend[None] * (rank[None] == jnp.arange(4)[:, None])  # (4, cells)
    dice = x[GRID_PLANES * n_cells : GRID_PLANES * n_cells + lay.dice * 11].reshape(lay.dice, 11)
    perm = jax.nn.one_hot(jnp.asarray(lay.permutations), lay.dice)  # (24, 4 cells, 4 dice)
    given = perm @ dice  # (24, 4, 11): the value each landed cell gets
    arrange = valued(jnp.broadcast_to(picks, (K, 4, n_cells)), given).sum(1) @ u[2]
    pos = jnp.stack([jnp.arange(n_cells) // C, jnp.arange(n_cells) % C], -1).astype(jnp.float32)
    pr = picks @ pos  # (4, 2)
    adjacent = (jnp.abs(pr[:, None] - pr[None]).sum(-1) == 1).astype(jnp.float32)
    num = given[..., :10]  # a star matches nothing
    pair_same = jnp.einsum("kiv,kjv,ij->k", num, num, adjacent) / 2
    pair_consec = jnp.einsum("kiv,vw,kjw,ij->k", num, jnp.eye(10, k=1) + jnp.eye(10, k=-1), num, adjacent) / 2
    arrange = arrange + params["heads"]["b"][0] * pair_same + params["heads"]["b"][1] * pair_consec

    wild_cell = grid[WILD_CELL].reshape(-1)
    wild = valued(jnp.broadcast_to(wild_cell, (10, n_cells)), jnp.eye(11)[:10]) @ u[2]
    zeros = jnp.zeros
    return jnp.concatenate(
        [select[:C], zeros(lay.place - C), place, arrange, wild, zeros(lay.select - lay.wild - 10), select, zeros(2)]
    )


def make_apply(lay: Layout | None = None) -> Any:
    """``apply(params, obs, mask) -> (masked logits, value)`` for one observation or a batch."""

    def one(params: Params, obs: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
        obs = obs.astype(jnp.float32)
        h = _torso(params, "actor", obs)
        logits = h @ params["pi"]["w"] + params["pi"]["b"]
        if "cell" in params:
            logits = logits + _consequences(params, lay, obs, h)
        value = (
            (_torso(params, "critic", obs) @ params["v"]["w"] + params["v"]["b"])[0] if "v" in params else 0.0 * h[0]
        )
        return jnp.where(mask, logits, NEG), value

    def apply(params: Params, obs: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
        if obs.ndim == 1:
            return one(params, obs, mask)
        return jax.vmap(one, in_axes=(None, 0, 0))(params, obs, mask)

    return apply


def actor(params: Params) -> Params:
    """The parameters that play (a shipped network leaves the critic out)."""
    return {k: v for k, v in params.items() if not k.startswith("critic_") and k != "v"}


def flatten(params: Params) -> dict[str, np.ndarray]:
    return {f"{name}/{k}": np.asarray(v) for name, layer in params.items() for k, v in layer.items()}


def unflatten(arrays: dict[str, np.ndarray]) -> Params:
    params: Params = {}
    for key, value in arrays.items():
        if "/" in key:
            name, k = key.split("/", 1)
            params.setdefault(name, {})[k] = jnp.asarray(value)
    return params


def save(path: str | Path, params: Params, meta: dict[str, Any]) -> None:
    """The parameters and ``meta`` (what the network plays: env, sizes) in one ``.npz``."""
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(json.dumps(meta)), **flatten(params))


def load(path: str | Path) -> tuple[Params, dict[str, Any]]:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"JAX policy {str(path)!r} not found (train one with configs/jax_ppo.yaml)")
    with np.load(path) as data:
        arrays = dict(data)
    meta = json.loads(str(arrays.pop("__meta__"))) if "__meta__" in arrays else {}
    return unflatten(arrays), meta
