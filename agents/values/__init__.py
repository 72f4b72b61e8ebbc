"""Learned afterstate values of Number Drop: sums of table lookups (``.ntuple``), their
plain-Python specification (``.reference``) and self-play that learns them by TD (``.selfplay``)."""
