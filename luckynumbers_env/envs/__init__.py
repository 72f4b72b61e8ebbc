"""The environments of Lucky Numbers: the PettingZoo table and the Gymnasium seat."""
