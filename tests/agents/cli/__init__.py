"""The command lines as their users run them."""
