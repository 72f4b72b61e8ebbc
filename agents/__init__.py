"""Agents for Number Drop and Lucky Numbers, and how they are trained and compared; its floors
(``base`` and ``registry``, ``networks`` and ``values``, each game's policies, ``training`` and
``evaluation``, ``cli``) are in ``docs/layout.md``."""
