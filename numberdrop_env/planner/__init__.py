"""The turn planner of Number Drop: every way to play the turn, each scored by the hand-written value.

``.turns`` (``TurnPlanner``) over the compiled engine, one job per module: ``.enumeration`` over
``.slides``, ``.tetromino`` and ``.geometry``; ``.features``, ``.batch`` and ``.packing``;
``.turns_python`` its specification in Python; ``.heuristic`` and ``.kernels`` the value of a
sheet; ``.candidates`` what a candidate holds.
"""
