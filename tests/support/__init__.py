"""Positions built in game words, shared by the tests of several packages."""
