"""Number Drop's rendering: the drawn sheet."""
