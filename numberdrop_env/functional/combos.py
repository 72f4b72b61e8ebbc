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
    descending paths (0 elsewhere); all zeros unless ``wanted``, at the cost of one loop pass.

    One loop grows all three until nothing changes: each cell takes the smallest label among its
    region's neighbours (and its label's label), and a path gains a cell per pass. Neighbours are
    the grid shifted by one row or column (elementwise, where gathers cost more under ``vmap``)."""
    values, free = free_values(t, flat_grid, used_flat)
    free = (free[:-1] & wanted).reshape(t.rows, t.cols)
    values = values[:-1].reshape(t.rows, t.cols)
    near = _neighbours(values, _PAD_VALUE)
    same = free & _neighbours(free, False) & (near == values)  # (4, rows, cols)
    rising, falling = near == values + 1, near == values - 1
    n = t.cells
    label = jnp.where(free, jnp.arange(n, dtype=jnp.int32).reshape(t.rows, t.cols), n)
    one = free.astype(jnp.int32)

    def grow(carry: tuple[jax.Array, jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, ...]:
        label, up, down, _ = carry
        nearest = jnp.min(jnp.where(same, _neighbours(label, n), n), axis=0)
        new = jnp.minimum(label, nearest).reshape(-1)
        new = jnp.append(new, n)[new].reshape(label.shape)  # its label's label
        new_up = jnp.where(free, 1 + jnp.max(jnp.where(rising, _neighbours(up, 0), 0), axis=0), 0)
        new_down = jnp.where(free, 1 + jnp.max(jnp.where(falling, _neighbours(down, 0), 0), axis=0), 0)
        changed = jnp.any(new != label) | jnp.any(new_up != up) | jnp.any(new_down != down)
        return new, new_up, new_down, changed

    label, up, down, _ = lax.while_loop(lambda c: c[3], grow, (label, one, one, jnp.array(True)))
    flat_label = label.reshape(-1)
    counts = jnp.zeros(n + 1, jnp.int32).at[flat_label].add(1)
    region = jnp.where(free.reshape(-1), counts[flat_label], 0)
    return jnp.stack([region, up.reshape(-1), down.reshape(-1)])


def _neighbours(x: jax.Array, fill: object) -> jax.Array:
    """(4, rows, cols): each cell's neighbour below, above, to the left and to the right (``fill``
    beyond the grid)."""
    rows = jnp.full((1, x.shape[1]), fill, x.dtype)
    cols = jnp.full((x.shape[0], 1), fill, x.dtype)
    return jnp.stack(
        [
            jnp.concatenate([rows, x[:-1]], axis=0),
            jnp.concatenate([x[1:], rows], axis=0),
            jnp.concatenate([cols, x[:, :-1]], axis=1),
            jnp.concatenate([x[:, 1:], cols], axis=1),
        ]
    )


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
