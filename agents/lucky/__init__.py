"""Agents for Lucky Numbers: random, greedy, search and a MaskablePPO model, by name in
``agents.lucky.registry``; ``python -m agents.evaluate --game luckynumbers --players 4`` compares them."""
