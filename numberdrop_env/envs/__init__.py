"""The environments of Number Drop: ``NumberDrop-v0`` (``.decision``), ``NumberDropTurn-v0``
(``.turn``, and ``.vector`` its native vector form), ``NumberDropTable-v0`` (``.table``), the
PettingZoo table (``.multiplayer_v0``), and what they share (``.base``, ``.observe``).
"""
