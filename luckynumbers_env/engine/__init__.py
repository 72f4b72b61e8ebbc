"""The rules engine of Lucky Numbers, no Gymnasium: ``.rules`` (the variant in one frozen
``Rules``), ``.actions`` (the flat action encoding), ``.game`` (``Game``), ``.persist`` (saved
games checked field by field)."""
