"""Deprecated: the Lucky Numbers agents moved to :mod:`agents.luckynumbers` (their old module
paths here still import for one release, see :data:`agents.MOVED`)."""
