"""The rules engine of Number Drop: pure NumPy (placements compiled with numba), no Gymnasium.

- :mod:`.rules`: every constant of the game in one frozen ``Rules``;
- :mod:`.shapes`, :mod:`.sheet`, :mod:`.combos`: tetromino placements, the sheet and its scoring,
  the combinations;
- :mod:`.actions`: the flat action encoding and the phases;
- :mod:`.solo`: ``SoloGame``; :mod:`.table`: the multiplayer ``Table``;
- :mod:`.persist`: saved games and tables checked field by field.
"""
