"""Tests of what both games share: the environments' common contracts, the seat opponents and the state loaders' checks."""
