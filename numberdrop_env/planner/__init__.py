"""The turn planner of Number Drop: every way to play the turn, scored by the hand-written value.

``.turns`` (``TurnPlanner``) runs the compiled engine: ``.enumeration`` over ``.slides``, ``.tetromino``
and ``.geometry``; ``.features``, ``.batch`` and ``.packing``; or its specification ``.turns_python``.
``.heuristic`` and ``.kernels`` value a sheet; ``.candidates`` says what a candidate holds.
"""
