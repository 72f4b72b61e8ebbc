"""Number Drop's engine: rules, masks, saved states, the table and the golden games."""
