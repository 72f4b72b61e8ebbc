"""Number Drop agents: ``greedy`` (the turn planner's best candidate), ``search`` (a look-ahead
over sampled rolls), ``ppo`` (a MaskablePPO model, the ``train`` extra) and ``rllib`` (an RLlib
module, the ``rllib`` extra). By name: ``agents.registry.AGENTS``."""
