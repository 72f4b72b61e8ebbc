"""The environments of Number Drop and what they observe.

- :mod:`.observe`: the decision-level observation (encoders and spaces);
- :mod:`.base`: what the solo environments share (rendering, illegal actions, saved positions);
- :mod:`.decision`: ``NumberDrop-v0``, one decision per step;
- :mod:`.turn`: ``NumberDropTurn-v0``, one turn per step; :mod:`.vector`: its native vector form;
- :mod:`.seat`: ``NumberDropTable-v0``, one seat of a multiplayer table;
- :mod:`.multiplayer_v0`: the PettingZoo table.
"""
