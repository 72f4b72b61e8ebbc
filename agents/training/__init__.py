"""The trainers, one module each with its schema beside it (``<trainer>_config``); the shared
sections and the loader are in ``agents.training.config``. The command is ``agents.cli.train``."""
