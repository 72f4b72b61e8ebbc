"""One decision of a solo game as straight-line array code (``SoloGame.step`` in JAX). Under
``vmap`` every branch runs, so the phases share their work: one landing row of the chosen
placement serves *block* and *place*, one scatter writes the start number, a block or the
tetromino, one landing table after the write serves the slides' block checks, the piece-lost
check and the next mask, and the combination structures are built only on entering *combo*."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..engine.rules import EMPTY, WILD, X
from . import combos
from .state import State, heights
from .tables import ARRANGE, BLOCK, COMBO, OVER, PLACE, SLIDE, STAR_SLIDE, START, WILD_PHASE, Tables


def select_tree(condition: jax.Array, a: State, b: State) -> State:
    """``a`` where ``condition`` holds, else ``b``, field by field."""
    return jax.tree.map(lambda x, y: jnp.where(condition, x, y), a, b)


def score_parts(t: Tables, s: State) -> dict[str, jax.Array]:
    """The score by its parts, in the engine's terms (``Sheet.score_breakdown``), int32."""
    r = t.rules
    parts = {
        "identical": jnp.sum(jnp.where(s.identical, t.box_sizes, 0), axis=-1),
        "consecutive": jnp.sum(jnp.where(s.consecutive, t.box_sizes, 0), axis=-1),
        "bonus": jnp.where(s.bonus, r.bonus_size, 0),
        "column_bonuses": r.full_column_points
        * (jnp.all(s.identical, axis=-1).astype(jnp.int32) + jnp.all(s.consecutive, axis=-1)),
        "lines": r.line_points * jnp.sum(s.lines, axis=-1, dtype=jnp.int32),
        "penalties": -r.penalty_points * jnp.sum(s.penalties, axis=-1, dtype=jnp.int32),
    }
    parts["total"] = sum(parts.values())
    return {k: jnp.asarray(v, jnp.int32) for k, v in parts.items()}


def sorted_dice(t: Tables, dice: jax.Array) -> jax.Array:
    """The number dice by value, stars last (``SoloGame.sorted_dice``)."""
    star = t.rules.max_number + 1
    ordered = jnp.sort(jnp.where(dice == WILD, star, dice))
    return jnp.where(ordered == star, WILD, ordered)


def landing_rows(t: Tables, grid: jax.Array) -> jax.Array:
    """(P,) row of offset 0 of every placement (``ShapeTable.landing_rows``): the column heights
    under each cell come from one small matrix product (cheaper than a gather under ``vmap``)."""
    under = jnp.dot(heights(grid).astype(jnp.float32), t.column_onehot).astype(jnp.int32)
    return jnp.max(under.reshape(t.bottom.shape) - t.bottom, axis=1)


def legal_placements(t: Tables, grid: jax.Array) -> jax.Array:
    """(P,) placements inside the columns whose landed cells lie inside the rows."""
    return t.fits & (landing_rows(t, grid) + t.top < t.rows)


def legal_mask(t: Tables, s: State, placements: jax.Array) -> jax.Array:
    """The exact mask of ``s``, each phase's block of actions from a few table lookups."""
    p, last = s.phase, t.rules.last_notch
    shape = t.face_shape[jnp.maximum(s.shape_face, 0)]
    allowed = jnp.where(shape < 0, True, jnp.asarray(t.owners)[jnp.maximum(shape, 0)])
    block_shape = s.tiles[jnp.maximum(s.block_tile, 0)]
    flat, used = s.grid.reshape(-1), s.used.reshape(-1)
    select, confirm = combos.options(
        t,
        flat,
        used,
        s.structures,
        combos.open_counts(t, s.identical, s.bonus),
        combos.open_counts(t, s.consecutive, s.bonus),
        s.selection,
        s.selection_size,
    )
    parts = [
        (s.grid[0] == EMPTY) & (p == START),
        (s.notches < last) & ((p == SLIDE) | (p == STAR_SLIDE)),
        placements & jnp.asarray(t.owners)[block_shape] & (p == BLOCK),
        placements & allowed & (p == PLACE),
        distinct_arrangements(t, sorted_dice(t, s.dice)) & (p == ARRANGE),
        jnp.full(t.layout.select - t.layout.wild, p == WILD_PHASE),
        select & (p == COMBO),
        jnp.stack([confirm & (p == COMBO), p == COMBO]),
    ]
    mask = jnp.concatenate(parts)
    assert mask.shape == (t.num_actions,), "the blocks of actions follow the engine's ActionLayout"
    return mask & ~s.roll_due


def distinct_arrangements(t: Tables, dice: jax.Array) -> jax.Array:
    """(24,) the first arrangement of each distinct assignment of the sorted dice to the cells: a
    row of the table, by which neighbouring dice are equal."""
    pattern = jnp.sum((dice[1:] == dice[:-1]) * jnp.array([1, 2, 4], jnp.int32))
    return t.arrangements[pattern]


def decide(t: Tables, s: State, action: jax.Array, illegal_reward: float) -> State:
    """Apply one decision; a roll it makes due is left to ``roll`` (``state.roll_due``). An
    illegal action ends the game with ``illegal_reward`` (pgx's rule); a finished game stays."""
    a = jnp.asarray(action, jnp.int32)
    inside = (a >= 0) & (a < t.num_actions)
    legal = inside & s.legal_action_mask[jnp.clip(a, 0, t.num_actions - 1)]
    played = _apply(t, s, jnp.clip(a, 0, t.num_actions - 1))
    gained = score_parts(t, played)["total"] - score_parts(t, s)["total"]
    played = played.replace(rewards=gained.astype(jnp.float32)[None])
    refused = s.replace(
        terminated=jnp.array(True),
        legal_action_mask=jnp.zeros_like(s.legal_action_mask),
        rewards=jnp.full(1, illegal_reward, jnp.float32),
    )
    out = select_tree(legal, played, refused)
    return select_tree(s.terminated, s.replace(rewards=jnp.zeros(1, jnp.float32)), out)


def roll(t: Tables, s: State, faces: jax.Array) -> State:
    """Give a due roll its faces (each number die's face index, then the shape die's); nothing
    changes when no roll is due."""
    due = s.roll_due
    n_dice = t.die_faces.shape[0]
    dice = jnp.asarray(t.die_faces)[jnp.arange(n_dice), faces[:n_dice]]
    face = faces[n_dice]
    star = jnp.any(dice == WILD) | (t.face_shape[face] < 0)
    slide = jnp.zeros(t.num_actions, bool)
    slide = slide.at[t.layout.slide : t.layout.block].set(s.notches < t.rules.last_notch)
    return s.replace(
        dice=jnp.where(due, dice, s.dice),
        shape_face=jnp.where(due, face, s.shape_face),
        star_pending=jnp.where(due, star, s.star_pending),
        roll_due=jnp.array(False),
        legal_action_mask=jnp.where(due, slide, s.legal_action_mask),
    )


def _apply(t: Tables, s: State, a: jax.Array) -> State:
    """The decision ``a`` (legal) on ``s``: write, slide, select or score, then end the turn."""
    L, p, n = t.layout, s.phase, t.cells
    is_start, is_block, is_place = p == START, p == BLOCK, p == PLACE
    is_arrange, is_wild, is_combo = p == ARRANGE, p == WILD_PHASE, p == COMBO

    # the landed cells of the chosen block or tetromino placement, sorted by (row, column)
    pl = jnp.clip(jnp.where(is_block, a - L.block, a - L.place), 0, t.placements - 1)
    r0 = jnp.max(heights(s.grid)[t.cc[pl]] - t.bottom[pl])
    landed = (r0 + t.dr[pl]) * t.cols + t.dc[pl]

    # the tetromino's values: an arrangement of the sorted dice, then a wild value at a time
    arranged = sorted_dice(t, s.dice)[t.permutations[jnp.clip(a - L.arrange, 0, len(t.permutations) - 1)]]
    wilded = s.pending_values.at[jnp.argmax(s.pending_values == WILD)].set(a - L.wild)
    values = jnp.where(is_arrange, arranged, wilded)
    valued = is_arrange | is_wild
    complete = valued & ~jnp.any(values == WILD)

    # one scatter: the start number, a block's X cells or the finished tetromino
    start_cells = jnp.full(4, n, jnp.int32).at[0].set(a - L.start)
    cells = jnp.where(is_start, start_cells, jnp.where(is_block, landed, jnp.where(complete, s.pending_cells, n)))
    written = jnp.where(is_start, t.rules.start_number, jnp.where(is_block, X, values))
    flat = jnp.append(s.grid.reshape(-1), EMPTY).at[cells].set(written)[:n]
    grid = flat.reshape(t.rows, t.cols)
    placements = legal_placements(t, grid)

    slid = _slides(t, s, a, placements)
    sheet = _combination(t, s, a, flat, is_combo)
    is_select = is_combo & (a >= L.select) & (a < L.confirm)
    end = (is_combo & (a >= L.confirm)) | slid["lost"]

    filled = grid >= 0
    regular = t.rules.regular_rows
    lines = s.lines | (end & jnp.all(filled[:regular], axis=1))
    penalties = s.penalties | (end & jnp.any(filled[regular:], axis=1))
    all_down = jnp.all(slid["notches"] >= t.rules.last_notch)
    over = end & (jnp.any(penalties) | slid["lost"] | all_down)
    roll_due = is_start | (end & ~over)

    phase = jnp.where(is_place, ARRANGE, p)
    phase = jnp.where(valued, jnp.where(complete, COMBO, WILD_PHASE), phase)
    phase = jnp.where(slid["phase"] >= 0, slid["phase"], phase)
    phase = jnp.where(over, OVER, jnp.where(roll_due, SLIDE, phase))

    size = s.selection_size
    selection = jnp.where(
        is_select, s.selection.at[jnp.clip(size, 0, len(s.selection) - 1)].set(a - L.select), s.selection
    )
    cleared = complete | end
    used_flat = sheet["used"]
    fresh = combos.structures(t, flat, used_flat, complete)
    new = s.replace(
        grid=grid,
        used=used_flat.reshape(t.rows, t.cols),
        identical=sheet["identical"],
        consecutive=sheet["consecutive"],
        bonus=sheet["bonus"],
        letters=sheet["letters"],
        lines=lines,
        penalties=penalties,
        notches=slid["notches"],
        phase=phase,
        turn=s.turn + roll_due,
        star_pending=slid["star_pending"],
        block_tile=slid["block_tile"],
        pending_cells=jnp.where(is_place, landed, jnp.where(complete, -1, s.pending_cells)),
        pending_values=jnp.where(valued & ~complete, values, jnp.where(complete | is_place, WILD, s.pending_values)),
        selection=jnp.where(cleared, -1, selection),
        selection_size=jnp.where(cleared, 0, size + is_select),
        structures=jnp.where(complete, fresh, jnp.where(end, 0, s.structures)),
        roll_due=roll_due,
        terminated=over,
    )
    return new.replace(legal_action_mask=legal_mask(t, new, placements))


def _slides(t: Tables, s: State, a: jax.Array, placements: jax.Array) -> dict[str, jax.Array]:
    """The mandatory or free slide ``a``, or the block just dropped, and what follows: a block due
    at the last notch, the star slide (free, or the rolled shape's tile), then the tetromino, or
    the piece lost when it cannot land. ``phase`` is -1 where this decides no phase."""
    L, p, last = t.layout, s.phase, t.rules.last_notch
    owners = jnp.asarray(t.owners)
    can_land = jnp.any(owners & placements, axis=1)  # (shapes,)

    def slide(notches: jax.Array, tile: jax.Array, go: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        notches = notches.at[tile].add(go.astype(jnp.int32))
        drop = go & (notches[tile] == last) & ~s.letters[tile] & can_land[s.tiles[tile]]
        return notches, drop, go & ~drop

    tile = jnp.clip(a - L.slide, 0, t.letters - 1)
    notches, drop1, after1 = slide(s.notches, tile, (p == SLIDE) | (p == STAR_SLIDE))
    resolve = after1 | (p == BLOCK)  # ``_after_slides``
    star = resolve & s.star_pending
    shape = t.face_shape[jnp.maximum(s.shape_face, 0)]
    free_star = star & (shape < 0) & jnp.any(notches < last)
    rolled_tile = jnp.argmax(s.tiles == shape).astype(jnp.int32)
    auto = star & (shape >= 0) & (notches[rolled_tile] < last)
    notches, drop2, after2 = slide(notches, rolled_tile, auto)
    to_place = (resolve & ~free_star & ~auto) | after2
    allowed = jnp.where(shape < 0, True, owners[jnp.maximum(shape, 0)])
    can_place = jnp.any(placements & allowed)

    phase = jnp.where(drop1 | drop2, BLOCK, jnp.where(free_star, STAR_SLIDE, -1))
    phase = jnp.where(to_place & can_place, PLACE, phase)
    block_tile = jnp.where(drop2, rolled_tile, jnp.where(drop1, tile, jnp.where(resolve, -1, s.block_tile)))
    return {
        "notches": notches,
        "phase": phase,
        "block_tile": block_tile,
        "star_pending": s.star_pending & ~resolve,
        "lost": to_place & ~can_place,
    }


def _combination(t: Tables, s: State, a: jax.Array, flat: jax.Array, is_combo: jax.Array) -> dict[str, jax.Array]:
    """*confirm*: the selected cells become used, the box of their kind and size is ticked and a
    letter whose two boxes are now ticked is circled."""
    confirm = is_combo & (a == t.layout.confirm)
    size = s.selection_size
    sel = jnp.where(s.selection >= 0, s.selection, t.cells)
    used = jnp.append(s.used.reshape(-1), False).at[sel].set(True)[: t.cells]
    same = jnp.append(flat, EMPTY)[sel[0]] == jnp.append(flat, EMPTY)[sel[1]]
    box = t.box_of_size[jnp.clip(size, 0, t.rules.bonus_size)]
    is_bonus = size == t.rules.bonus_size
    tick = confirm & ~is_bonus & (jnp.arange(len(t.box_sizes)) == box)
    identical = s.identical | (tick & same)
    consecutive = s.consecutive | (tick & ~same)
    return {
        "used": jnp.where(confirm, used, s.used.reshape(-1)),
        "identical": identical,
        "consecutive": consecutive,
        "bonus": s.bonus | (confirm & is_bonus),
        "letters": s.letters | (identical & consecutive),
    }
