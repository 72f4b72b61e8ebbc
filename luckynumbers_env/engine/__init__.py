"""The rules engine of Lucky Numbers: pure Python and NumPy, no Gymnasium.

- ``.rules``: the variant in one frozen ``Rules`` (players, setup, Bruno's extra action);
- ``.actions``: the flat action encoding and the phases;
- ``.game``: ``Game``, the whole state of a game;
- ``.persist``: saved games checked field by field.

``Game``, ``geometry`` and ``line_bounds`` (and the shared line cache the search agent reads)
are importable from here, where ``luckynumbers_env.engine`` (once the game module) has always
offered them.
"""

from .game import _LINE_CACHES, Game, geometry, line_bounds  # noqa: F401  (_LINE_CACHES: as before)

__all__ = ["Game", "geometry", "line_bounds"]
