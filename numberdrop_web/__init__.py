"""Play, watch, replay and analyse solo Number Drop in the browser (``numberdrop-web``): a local
Starlette server of one page and a JSON API; the server translates the game into JSON and the
page's clicks into the engine's actions, which the engine's mask checks before anything is played.
"""
