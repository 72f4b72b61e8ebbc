"""Number Drop agents: ``greedy`` (the turn planner's best candidate), ``search`` (a look-ahead
over sampled rolls), ``ntuple`` (the planner's candidates valued by the n-tuple tables of
``agents.values``), ``ppo`` (a MaskablePPO network) and ``q`` (the Q-iteration network), both
the ``train`` extra and played alike (``network``, ``network_policy``), and ``rllib`` (an
RLlib module, the ``rllib`` extra). By name: ``agents.registry.AGENTS``."""
