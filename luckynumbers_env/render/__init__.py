"""Pictures of Lucky Numbers: the text picture of ``.text`` (``render_mode="ansi"``).

``render_text`` is importable from here, where ``luckynumbers_env.render`` (once the text
module) has always offered it.
"""

from .text import render_text

__all__ = ["render_text"]
