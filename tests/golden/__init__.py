"""Recorded games (the .jsonl files) and the modules that record and replay them.

After a deliberate change of the rules or the encoding, ``python -m tests.golden.golden_playthrough``
(Number Drop) and ``python -m tests.golden.lucky_golden`` (Lucky Numbers) rewrite them for review.
"""
