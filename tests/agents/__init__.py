"""Tests of the agents package: policies, the shipped models, the command lines and training."""
