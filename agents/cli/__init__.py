"""The commands: ``numberdrop-evaluate`` (``agents.cli.evaluate``), ``numberdrop-play``
(``agents.cli.play``, with ``human`` and ``replay``) and
``python -m agents.cli.plots``. Each parses its arguments and calls the library."""
