"""The learned afterstate value of Number Drop, torch-free: what its tables read (``.spec``),
the compiled lookups (``.lookups``), the weights and their TD update (``.ntuple``), the
expectimax over the next roll (``.expectimax``) and self-play that learns them (``.selfplay``)."""
