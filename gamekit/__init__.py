"""What both games' packages share, below either of them.

- ``gamekit.checks``: checks of values that come from outside (saved states, seeds,
  actions), pure NumPy, used by the engines;
- ``gamekit.env``: Gymnasium plumbing of the environments (the legal-sampling action
  space, the ``action_mask`` space, the illegal-action options);
- ``gamekit.aliases``: modules reached under a second name (old paths kept for one release).

Neither game imports the other; both may import this package, and it imports neither.
"""
