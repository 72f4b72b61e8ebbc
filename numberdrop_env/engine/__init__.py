"""The rules engine of Number Drop (pure NumPy and a few compiled kernels, no Gymnasium)."""
