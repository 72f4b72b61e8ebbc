"""The commands: ``numberdrop-evaluate`` (:mod:`agents.cli.evaluate`), ``numberdrop-play``
(:mod:`agents.cli.play`, with :mod:`~agents.cli.human` and :mod:`~agents.cli.replay`) and
``python -m agents.cli.plots``. Each parses its arguments and calls the library."""
