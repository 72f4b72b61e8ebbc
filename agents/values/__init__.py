"""The learned afterstate value of Number Drop, torch-free: what its tables read (``.spec``), the
compiled lookups (``.lookups``), the weights and their TD update (``.ntuple``) and self-play (``.selfplay``)."""
