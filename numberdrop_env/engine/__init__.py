"""The rules engine of Number Drop, no Gymnasium: ``Rules``, shapes, the sheet and combinations,
the flat action encoding, ``SoloGame`` and the multiplayer ``Table``, the roll distribution and
saved games checked field by field.
"""
