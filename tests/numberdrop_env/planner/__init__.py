"""Number Drop's planner: the compiled sheet evaluation and turn engine against their references."""
