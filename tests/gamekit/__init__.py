"""Tests of what both games share: the environments' common contracts, the seat opponents,
the state loaders' checks and the old module paths."""
