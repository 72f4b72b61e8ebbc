"""Pictures of Lucky Numbers: the text picture of ``.text`` (``render_mode="ansi"``)."""
