"""The rules engine of Lucky Numbers (pure Python and NumPy, no Gymnasium)."""
