"""Start the local web app and open it in the browser: ``numberdrop-web``.

    numberdrop-web                          # http://127.0.0.1:8765/, opened in the browser
    numberdrop-web --port 9000 --no-browser
    numberdrop-web --agent q                # hints from the Q network (the train extra)
    numberdrop-web --host 0.0.0.0 --allow-host box.lan   # reachable from the network as box.lan

The server answers only requests addressed to this machine's names (127.0.0.1, localhost,
[::1]), to the --host it listens on and to each --allow-host, and refuses a request that
changes a game when it comes from another site's page.

The page's address takes ``?seed=N&agent=NAME`` (a game on seed N, hints from agent NAME)
and ``mode=watch``, ``mode=replay`` or ``mode=compare``.
"""

from __future__ import annotations

import argparse
import threading
import time
import webbrowser

from agents.cli.common import HelpFormatter, plain_text, refuse
from agents.registry import install_command

PROG = "numberdrop-web"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=plain_text(__doc__), formatter_class=HelpFormatter)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1: this machine only)")
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another name the server answers to (the machine's name on the network); repeatable",
    )
    parser.add_argument("--port", type=int, default=8765, help="port to listen on (0: any free one)")
    parser.add_argument("--no-browser", action="store_true", help="do not open the page in a browser")
    parser.add_argument("--agent", default="greedy", help="the agent whose hints a new game shows")
    parser.add_argument(
        "--idle-minutes", type=float, default=60.0, help="drop a game no tab has shown for this many minutes"
    )
    parser.add_argument("--max-games", type=int, default=1000, help="games held at once (the oldest go first)")
    parser.add_argument("--workers", type=int, default=4, help="threads that compute hints and analyses")
    return parser


def cli(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be in 0..65535, got {args.port}")
    if args.idle_minutes <= 0 or args.max_games < 1 or args.workers < 1:
        parser.error("--idle-minutes, --max-games and --workers must be positive")
    try:
        import uvicorn

        from .app import create_app
        from .guard import allowed_hosts
    except ImportError as err:
        missing = ImportError(f"numberdrop-web needs the `web` extra ({err.name} is missing): {install_command('web')}")
        refuse(parser, missing)
    try:
        hosts = allowed_hosts(args.host, args.allow_host)
        app = create_app(args.idle_minutes * 60, args.max_games, args.workers, args.agent, hosts=hosts)
    except ValueError as err:
        parser.error(str(err))
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)
    threading.Thread(target=_announce, args=(server, args.host, not args.no_browser), daemon=True).start()
    server.run()
    return 0


def _announce(server: object, host: str, browser: bool) -> None:
    """Print the address once the server listens (the port chosen when --port 0), and open it."""
    while not getattr(server, "started", False):
        if getattr(server, "should_exit", False):
            return
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]  # type: ignore[attr-defined]
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    url = f"http://{shown}:{port}/"
    print(f"{PROG}: serving on {url} (Ctrl-C stops)", flush=True)
    if browser:
        webbrowser.open(url)
