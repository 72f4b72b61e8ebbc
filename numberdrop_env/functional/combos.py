"""Which cells may join the combination being selected (``engine.combos`` in JAX): the region
sizes and path lengths are computed once, when the combination phase is entered, so every
*select* step is a few gathers over them."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from .tables import MIN_COMBINATION, Tables

_PAD_VALUE = -100  # of non-free cells and the padding cell: no neighbour relation holds


def free_values(t: Tables, flat_grid: jax.Array, used_flat: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(cells + 1,) values of the free (unused number) cells, ``_PAD_VALUE`` elsewhere, and the mask."""
    free = (flat_grid >= 0) & (flat_grid <= t.rules.max_number) & ~used_flat
    free = jnp.append(free, False)
    values = jnp.where(free, jnp.append(flat_grid, _PAD_VALUE), _PAD_VALUE)
    return values, free


def structures(t: Tables, flat_grid: jax.Array, used_flat: jax.Array, wanted: jax.Array) -> jax.Array:
    """(3, cells): the size of each free cell's same-valued region and its longest ascending and
    descending paths (0 elsewhere); all zeros unless ``wanted``, at the cost of one loop pass."""
    values, free = free_values(t, flat_grid, used_flat)
    free = free & wanted
    nbr = jnp.asarray(t.nbr)
    same = free[:, None] & free[nbr] & (values[nbr] == values[:, None])  # (cells + 1, 4)
    return jnp.stack([_regions(same, free, nbr), *_paths(t, values, free, nbr)])[:, :-1]


def _regions(same: jax.Array, free: jax.Array, nbr: jax.Array) -> jax.Array:
    """Region sizes by label propagation: each cell takes the smallest label among its region's
    neighbours (and its label's label) until nothing changes."""
    n = free.shape[0] - 1
    label0 = jnp.where(free, jnp.arange(n + 1, dtype=jnp.int32), n)

    def body(carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        label, _ = carry
        nearest = jnp.min(jnp.where(same, label[nbr], n), axis=1)
        new = jnp.minimum(label, nearest)
        new = new[new]
        return new, jnp.any(new != label)

    label, _ = lax.while_loop(lambda c: c[1], body, (label0, jnp.array(True)))
    counts = jnp.zeros(n + 1, jnp.int32).at[label].add(1)
    return jnp.where(free, counts[label], 0)


def _paths(t: Tables, values: jax.Array, free: jax.Array, nbr: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Longest ascending and descending paths from each free cell: a path gains a cell per pass,
    and it holds at most ``max_number + 1`` values."""
    steps = jnp.array([1, -1], jnp.int32)[:, None, None]
    follows = values[nbr][None] == values[None, :, None] + steps  # (2, cells + 1, 4)
    start = jnp.broadcast_to(free.astype(jnp.int32), (2, free.shape[0]))

    def grow(_: int, length: jax.Array) -> jax.Array:
        longest = jnp.max(jnp.where(follows, length[:, nbr], 0), axis=2)
        return jnp.where(free[None], longest + 1, 0)

    length = lax.fori_loop(0, t.rules.max_number, grow, start)
    return length[0], length[1]


def open_counts(t: Tables, boxes: jax.Array, bonus: jax.Array) -> jax.Array:
    """(bonus + 1,) prefix counts of the open sizes of one kind (the bonus size included)."""
    open_ = jnp.zeros(t.rules.bonus_size + 1, jnp.int32).at[t.box_sizes].set((~boxes).astype(jnp.int32))
    open_ = open_.at[t.rules.bonus_size].set((~bonus).astype(jnp.int32))
    return jnp.cumsum(open_)


def any_open(counts: jax.Array, lo: jax.Array, hi: jax.Array) -> jax.Array:
    """Whether some open size k has ``max(3, lo) <= k <= hi``."""
    top = counts.shape[0] - 1
    lo = jnp.minimum(jnp.maximum(lo, MIN_COMBINATION), top + 1)
    hi = jnp.minimum(jnp.maximum(hi, 0), top)
    return (hi >= lo) & (counts[hi] > counts[lo - 1])


def options(
    t: Tables,
    flat_grid: jax.Array,
    used_flat: jax.Array,
    struct: jax.Array,
    identical_ok: jax.Array,
    consecutive_ok: jax.Array,
    selection: jax.Array,
    size: jax.Array,
) -> tuple[jax.Array, jax.Array]:
    """(cells,) the cells that may be added to the selection next, and whether *confirm* is legal."""
    n = t.cells
    values, free = free_values(t, flat_grid, used_flat)
    region, up, down = (jnp.append(s, 0) for s in struct)
    nbr = jnp.asarray(t.nbr)
    sel = jnp.where(selection >= 0, selection, n)
    tail = sel[jnp.maximum(size - 1, 0)]
    step = jnp.where(size >= 2, values[sel[1]] - values[sel[0]], 2)

    first = free & (any_open(identical_ok, 3, region) | any_open(consecutive_ok, 3, jnp.maximum(up, down)))

    chosen = jnp.zeros(n + 1, bool).at[sel].set(True)
    touching = jnp.zeros(n + 1, bool).at[nbr[sel]].set(True)
    same = free & (values == values[tail]) & touching & ~chosen
    grow = any_open(identical_ok, size + 1, region[tail])
    identical = same & grow

    k = nbr[tail]
    vk, vt = values[k], values[tail]
    rising = free[k] & (vk == vt + 1) & (step != -1)
    falling = free[k] & (vk == vt - 1) & (step != 1)
    level = free[k] & (vk == vt) & (size == 1)
    ok = jnp.where(
        rising,
        any_open(consecutive_ok, size + 1, size + up[k]),
        jnp.where(
            falling, any_open(consecutive_ok, size + 1, size + down[k]), level & any_open(identical_ok, 2, region[tail])
        ),
    )
    path = jnp.zeros(n + 1, bool).at[k].set(ok)  # the neighbours differ, but for the padding cell

    out = jnp.where(size == 0, first, jnp.where(step == 0, identical, path))[:n]
    counts = jnp.where(step == 0, identical_ok, consecutive_ok)
    confirm = (size >= 3) & any_open(counts, size, size)
    return out, confirm
