"""Pictures of Number Drop: the text picture (``.text``, ``render_mode="ansi"``) and the drawn
sheet (``.draw``, Pillow: ``render_mode="rgb_array"`` and replay GIFs)."""
