"""The rules engine of Number Drop: pure NumPy (placements compiled with numba), no Gymnasium.

- ``.rules``: every constant of the game in one frozen ``Rules``;
- ``.shapes``, ``.sheet``, ``.combos``: tetromino placements, the sheet and its scoring,
  the combinations;
- ``.actions``: the flat action encoding and the phases;
- ``.solo``: ``SoloGame``; ``.table``: the multiplayer ``Table``;
- ``.dice``: the exact distribution of a roll, merged by the decisions it allows;
- ``.persist``: saved games and tables checked field by field.
"""
