"""The turn planner of Number Drop: every way to play the turn, each scored by the hand-written value.

- :mod:`.turns`: ``TurnPlanner``, the candidates of a turn (compiled engine or its reference);
- the compiled (numba) engine, one job per module: :mod:`.enumeration` (one turn's candidates)
  over :mod:`.slides` (the slides and block drops), :mod:`.tetromino` (the tetromino's
  placements and writings) and :mod:`.geometry` (landing rows, a sheet's shape);
  :mod:`.features` (the rows ``NumberDropTurn-v0`` observes); :mod:`.batch` (many packed games
  at once); :mod:`.packing` (the arrays they share: packed games, rule arrays, candidates);
- :mod:`.turns_reference`: the same enumeration in Python, its specification;
- :mod:`.heuristic` and :mod:`.kernels`: the value of a sheet (weights, flood fills, box credits);
- :mod:`.candidates`: what a candidate holds and which phases start a turn.
"""
