"""``herdr web [--port P] [--bind ADDR] [--read-only] [--allow-typing] [--stop]``.

One ``web.start`` (or ``web.stop``) request to the running server, which serves the
page from its own loop; the URL with its token is printed once. Stdlib only here: the
web view itself (aiohttp) lives in the server.
"""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from herdr.cli.main import Nouns


def add_web(nouns: Nouns) -> None:
    from herdr.cli.main import NOUNS, session_parent

    web = nouns.add_parser(
        "web",
        parents=[session_parent()],
        help=NOUNS["web"][0],
        description=(
            "Serve workspaces, agents and screens to a browser from the running server "
            "(loopback only unless --i-know-this-is-exposed). See docs/web.md."
        ),
    )
    web.add_argument("--port", type=int, metavar="P", help="TCP port (default 8375; 0 = any)")
    web.add_argument("--bind", metavar="ADDR", help="listen address (default 127.0.0.1)")
    web.add_argument("--read-only", action="store_true", help="refuse every mutating call")
    web.add_argument(
        "--allow-typing", action="store_true", help="let the page type raw keys into panes"
    )
    web.add_argument(
        "--i-know-this-is-exposed",
        dest="exposed",
        action="store_true",
        help="allow a non-loopback --bind (anyone who reaches it and has the token)",
    )
    web.add_argument("--stop", action="store_true", help="stop the running web view")
    web.add_argument("--json", action="store_true", help="print the JSON envelope")
    web.set_defaults(handler=run_web)


def run_web(args: argparse.Namespace) -> int:
    from herdr.cli.transport import print_json, request_or_exit

    if args.stop:
        envelope = request_or_exit(args, "web.stop", {})
        if args.json:
            print_json(envelope)
        else:
            stopped = envelope["result"].get("stopped")
            print("web view stopped" if stopped else "no web view was running")
        return 0
    params: dict[str, object] = {}
    if args.port is not None:
        params["port"] = args.port
    for name in ("bind",):
        if getattr(args, name) is not None:
            params[name] = getattr(args, name)
    for flag in ("read_only", "allow_typing", "exposed"):
        if getattr(args, flag):
            params[flag] = True
    envelope = request_or_exit(args, "web.start", params)
    result = envelope["result"]
    if args.json:
        print_json(envelope)
        return 0
    if result.get("already_running"):
        sys.stderr.write("herdr web: already running (herdr web --stop to change options)\n")
    if args.exposed and not _loopback(str(result.get("bind", ""))):
        sys.stderr.write(
            f"herdr web: WARNING: listening on {result.get('bind')}, not loopback: anyone "
            "who can reach it and learns the token controls your agents\n"
        )
    modes = [m for m in ("read_only", "allow_typing") if result.get(m)]
    suffix = f" ({', '.join(modes)})" if modes else ""
    print(f"herdr web{suffix}: open {result['url']}")
    return 0


def _loopback(bind: str) -> bool:
    return bind in ("localhost", "::1", "[::1]") or bind.startswith("127.")
