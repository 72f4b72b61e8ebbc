"""The environments of Number Drop and what they observe.

- ``.observe``: the decision-level observation (encoders and spaces);
- ``.base``: what the solo environments share (rendering, illegal actions, saved positions);
- ``.decision``: ``NumberDrop-v0``, one decision per step;
- ``.turn``: ``NumberDropTurn-v0``, one turn per step; ``.vector``: its native vector form;
- ``.table``: ``NumberDropTable-v0``, one seat of a multiplayer table;
- ``.multiplayer_v0``: the PettingZoo table.
"""
