"""What both games' packages share, below either of them: ``gamekit.checks`` (checks of values
that come from outside, used by the engines) and ``gamekit.env`` (Gymnasium plumbing of the
environments). Neither game imports the other; both may import this package.
"""
