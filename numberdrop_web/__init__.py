"""Play, watch, replay and analyse solo Number Drop in the browser: ``numberdrop-web``.

A local server (Starlette on uvicorn, the ``web`` extra) serves one page and a JSON API;
each tab plays its own game. The rules live in the engine alone: the server translates
the game into JSON and the page's clicks into the engine's actions, which the engine's
mask checks before anything is played (``numberdrop_web.views``).
"""
