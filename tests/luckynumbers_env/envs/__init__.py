"""Lucky Numbers' environments."""
