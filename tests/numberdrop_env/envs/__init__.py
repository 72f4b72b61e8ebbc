"""Number Drop's environments: Gymnasium and PettingZoo APIs, the fast paths, vector envs and pipelines."""
