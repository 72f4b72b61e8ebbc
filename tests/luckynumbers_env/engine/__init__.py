"""Lucky Numbers' engine: rules, masks and saved states."""
