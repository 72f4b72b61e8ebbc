"""The turn planner of Number Drop: every way to play the turn, each scored by the hand-written value.

- ``.turns``: ``TurnPlanner``, the candidates of a turn (compiled engine or its reference);
- the compiled (numba) engine, one job per module: ``.enumeration`` (one turn's candidates)
  over ``.slides`` (the slides and block drops), ``.tetromino`` (the tetromino's
  placements and writings) and ``.geometry`` (landing rows, a sheet's shape);
  ``.features`` (the rows ``NumberDropTurn-v0`` observes); ``.batch`` (many packed games
  at once); ``.packing`` (the arrays they share: packed games, rule arrays, candidates);
- ``.turns_python``: the same enumeration in Python: its specification, and the planner of a
  multiplayer seat's block phase;
- ``.heuristic`` and ``.kernels``: the value of a sheet (weights, flood fills, box credits);
- ``.candidates``: what a candidate holds and which phases start a turn.
"""
