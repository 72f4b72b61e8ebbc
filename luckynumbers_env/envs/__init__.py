"""The environments of Lucky Numbers: the PettingZoo table ``.lucky_numbers_v0``, the
Gymnasium seat ``LuckyNumbers-v0`` (``.seat``) and the observation they share
(``.observe``)."""
