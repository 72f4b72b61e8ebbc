"""The turn planner of Number Drop: every way to play the turn, each scored by the hand-written value.

- :mod:`.turns`: ``TurnPlanner``, the candidates of a turn (compiled engine or its reference);
- :mod:`.turn_engine`: the compiled (numba) enumeration; :mod:`.turns_reference`: the same in Python;
- :mod:`.heuristic` and :mod:`.kernels`: the value of a sheet (weights, flood fills, box credits);
- :mod:`.candidates`: what a candidate holds and which phases start a turn.
"""
