"""Play, watch, replay and analyse solo Number Drop in the browser (``numberdrop-web``): one page
and a JSON API whose actions the engine's mask checks before anything is played."""
