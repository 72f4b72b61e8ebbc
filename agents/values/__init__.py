"""Learned afterstate values of Number Drop: sums of table lookups (:mod:`.ntuple`), their
plain-Python specification (:mod:`.reference`) and self-play that learns them by TD (:mod:`.selfplay`)."""
