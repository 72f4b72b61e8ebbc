"""Pictures of Number Drop: the text picture (``.text``, what ``render_mode="ansi"`` shows) and
the drawn sheet (``.draw``, Pillow: ``render_mode="rgb_array"`` and replay GIFs).

The text module's names are importable from here too, where ``numberdrop_env.render`` (once
the text module itself) has always offered them.
"""

from .text import PHASE_WORDS, cell_name, decision_words, render_table, render_text

__all__ = ["PHASE_WORDS", "cell_name", "decision_words", "render_table", "render_text"]
