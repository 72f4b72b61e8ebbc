"""The turn planner of Number Drop: every way to play the turn, scored by the hand-written value
(``.heuristic``, ``.kernels``): ``.turns`` (``TurnPlanner``) over the compiled engine (``.enumeration``
and the modules it calls) or its specification in Python (``.turns_python``).
"""
