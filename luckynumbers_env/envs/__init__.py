"""The environments of Lucky Numbers: the PettingZoo table :mod:`.lucky_numbers_v0`, the
Gymnasium seat ``LuckyNumbers-v0`` (:mod:`.seat`) and the observation they share
(:mod:`.observe`)."""
