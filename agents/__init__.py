"""Policies for Number Drop: they all take a game and its legal mask and return an action."""
