"""What both games share, below either: ``checks`` (values from outside) and ``env`` (Gymnasium
and PettingZoo plumbing). Neither game imports the other."""
