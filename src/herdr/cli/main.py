"""The ``herdr`` command line: argparse front end with lazily imported handlers.

Start-up is a product feature (agents call the CLI hundreds of times), so this module
imports only argparse, os and sys; each noun's handler module is imported when its
command runs, and nothing here pulls in asyncio, the emulator, regex or orjson.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from herdr import PROTOCOL_VERSION, __version__

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """A command line that parses but cannot mean anything; exits 2."""


class CliError(Exception):
    """A failure to report as one line on stderr; exits 1."""


def _lazy(module: str, func: str) -> Handler:
    """Defer importing a handler module until its command actually runs."""

    def run(args: argparse.Namespace) -> int:
        import importlib

        handler: Handler = getattr(importlib.import_module(module), func)
        return handler(args)

    return run


def _config_path_hint() -> str:
    from herdr.cli.envpaths import config_file

    return config_file(os.environ)


def _terminal_width() -> int:
    """``shutil.get_terminal_size`` without importing shutil (and bz2, lzma, ...)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns - 2


class _Formatter(argparse.HelpFormatter):
    # argparse builds a formatter for every add_argument(); the default one imports
    # shutil just to ask for the terminal width, which costs each CLI call ~5 ms.
    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or _terminal_width())


class Parser(argparse.ArgumentParser):
    """Every (sub)parser uses the light formatter (subparsers inherit the class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


# noun -> (help, builder). Builders named "module:function" live in their own modules
# and are imported only when that noun is on the command line.
NOUNS: dict[str, tuple[str, str]] = {
    "agent": ("inspect and drive agents", "herdr.cli.main:_add_agent"),
    "server": (
        "run the headless server in the foreground, or control it",
        "herdr.cli.main:_add_server",
    ),
    "status": ("show client and server status", "herdr.cli.main:_add_status"),
    "session": ("list, stop and delete named sessions", "herdr.cli.main:_add_session"),
    "api": ("the socket API: schema, snapshot", "herdr.cli.main:_add_api"),
    "workspace": ("create, list and manage workspaces", "herdr.cli.workspace:add_workspace"),
    "tab": ("create, list and manage tabs", "herdr.cli.workspace:add_tab"),
    "pane": ("split, read, type into and wait on panes", "herdr.cli.pane:add_pane"),
}

_ROOT_VALUE_FLAGS = frozenset({"--session"})
_wanted: list[str | None] = [None, None]  # noun and verb of the command line being parsed


def _positionals(argv: Sequence[str]) -> list[str]:
    """The first two positionals (noun, verb), so only they get built."""
    found: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in _ROOT_VALUE_FLAGS:
            skip = True
        elif arg == "--":
            break
        elif not arg.startswith("-"):
            found.append(arg)
            if len(found) == 2:
                break
    return found


class _Skip:
    """Stands in for a verb parser that is not on this command line: ignores every call.

    Building argparse parsers is most of a CLI call's own time (each one runs several
    gettext lookups), so only the verb being run is built for real.
    """

    def __getattr__(self, name: str) -> Callable[..., _Skip]:
        return self._ignore

    def _ignore(self, *args: object, **kwargs: object) -> _Skip:
        return self


class LazyVerbs:
    """A subparsers action that builds only the verb named on the command line."""

    def __init__(self, action: Nouns, wanted: str | None) -> None:
        self._action = action
        self._wanted = wanted
        self.matched = wanted is None

    def add_parser(self, name: str, *, session: bool = True, **kwargs: Any) -> Parser:
        """Add a verb (with ``--session`` unless ``session=False``) if it is wanted."""
        if self._wanted is not None and name != self._wanted:
            return _Skip()  # type: ignore[return-value]
        self.matched = True
        if session:
            kwargs["parents"] = [*kwargs.get("parents", ()), session_parent()]
        return self._action.add_parser(name, **kwargs)


_lazy_verbs: list[LazyVerbs] = []


def add_verbs(noun: Parser, prog: str, *, required: bool = True) -> LazyVerbs:
    """The verbs of a noun; unless help is asked for, only the one being run is built."""
    action = noun.add_subparsers(dest="verb", metavar="<verb>", required=required, prog=prog)
    verbs = LazyVerbs(action, _wanted[1])
    _lazy_verbs.append(verbs)
    return verbs


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The root parser; with ``argv``, only the noun and verb it names are built."""
    if argv is None:
        return _build(None, None, full=True)
    wanted = _positionals(argv)
    noun = wanted[0] if wanted and wanted[0] in NOUNS else None
    verb = wanted[1] if noun is not None and len(wanted) > 1 else None
    parser = _build(noun, verb, full=False)
    if verb is not None and any(not verbs.matched for verbs in _lazy_verbs):
        parser = _build(noun, None, full=False)  # unknown verb: list them all in the error
    return parser


def _build(noun: str | None, verb: str | None, *, full: bool) -> argparse.ArgumentParser:
    _wanted[:] = [noun, verb]
    _lazy_verbs.clear()
    parser = Parser(
        prog="herdr",
        description=(
            "A terminal multiplexer for AI coding agents: workspaces, tabs and panes "
            "that know which agent runs where and whether it needs you."
        ),
        epilog=f"config: {_config_path_hint()}",
    )
    parser.add_argument(
        "-V",
        "--version",
        action="version",
        version=f"herdr {__version__} (protocol {PROTOCOL_VERSION})",
    )
    parser.add_argument("--session", metavar="NAME", help="use a named session")
    parser.add_argument(
        "--default-config", action="store_true", help="print the default config.toml and exit"
    )
    nouns = parser.add_subparsers(dest="noun", metavar="<command>", prog="herdr")
    for name, (helptext, builder) in NOUNS.items():
        if noun is not None and name != noun:
            continue
        if noun is None and not full:
            nouns.add_parser(name, help=helptext, add_help=False)
            continue
        import importlib

        module, func = builder.split(":")
        getattr(importlib.import_module(module), func)(nouns)
    return parser


def session_parent() -> Parser:
    """``--session`` accepted after the verb too (``herdr server stop --session work``)."""
    parent = Parser(add_help=False)
    parent.add_argument(
        "--session", metavar="NAME", default=argparse.SUPPRESS, help="use a named session"
    )
    return parent


TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the CLI ~2 ms
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    Nouns: TypeAlias = argparse._SubParsersAction["Parser"]


def _add_server(nouns: Nouns) -> None:
    common = session_parent()
    server = nouns.add_parser(
        "server",
        parents=[common],
        help=NOUNS["server"][0],
        description="Without a verb: run the server in the foreground until stopped.",
    )
    server.set_defaults(handler=_lazy("herdr.cli.server", "run_server"))
    verbs = add_verbs(server, "herdr server", required=False)
    stop = verbs.add_parser("stop", help="stop the server and its panes")
    stop.set_defaults(handler=_lazy("herdr.cli.server", "server_stop"))


def _add_status(nouns: Nouns) -> None:
    status = nouns.add_parser("status", parents=[session_parent()], help=NOUNS["status"][0])
    status.add_argument("scope", nargs="?", choices=("server", "client"), help="only this part")
    status.add_argument("--json", action="store_true", help="print JSON")
    status.set_defaults(handler=_lazy("herdr.cli.status", "run_status"))


def _add_session(nouns: Nouns) -> None:
    session = nouns.add_parser("session", help=NOUNS["session"][0])
    verbs = add_verbs(session, "herdr session")
    listing = verbs.add_parser("list", help="list sessions (default first)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=_lazy("herdr.cli.session", "run_list"))
    for verb, helptext in (
        ("stop", "stop a session's server and panes"),
        ("delete", "delete a stopped session's data (not default)"),
    ):
        cmd = verbs.add_parser(verb, help=helptext)
        cmd.add_argument("name", help="session name (default = the default session)")
        cmd.add_argument("--json", action="store_true", help="print JSON")
        cmd.set_defaults(handler=_lazy("herdr.cli.session", f"run_{verb}"))


def _add_api(nouns: Nouns) -> None:
    api = nouns.add_parser("api", help=NOUNS["api"][0])
    verbs = add_verbs(api, "herdr api")
    schema = verbs.add_parser("schema", help="print the API's JSON schema (summary by default)")
    schema.add_argument("--json", action="store_true", help="print the full JSON schema")
    schema.add_argument("--output", metavar="PATH", help="write the JSON schema to PATH")
    schema.set_defaults(handler=_lazy("herdr.cli.api", "run_schema"))
    snapshot = verbs.add_parser("snapshot", help="the whole session model as JSON")
    snapshot.set_defaults(handler=_lazy("herdr.cli.api", "run_snapshot"))


def _add_agent(nouns: Nouns) -> None:
    agent = nouns.add_parser("agent", help=NOUNS["agent"][0])
    verbs = agent.add_subparsers(dest="verb", metavar="<verb>", required=True, prog="herdr agent")

    explain = verbs.add_parser(
        "explain",
        help="show which detection rule decides an agent's state",
        description=(
            "Explain detection for a live agent, or offline for a saved screen with "
            "--file SCREEN --agent LABEL (no server needed)."
        ),
    )
    explain.add_argument("target", nargs="?", help="agent name or pane id (live mode)")
    explain.add_argument("--file", metavar="SCREEN", help="screen text file (offline mode)")
    explain.add_argument("--agent", metavar="LABEL", help="agent label for --file")
    explain.add_argument("--osc-title", default="", metavar="T", help="OSC title (offline)")
    explain.add_argument("--osc-progress", default="", metavar="P", help="OSC 9 progress")
    fmt = explain.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the explain JSON")
    fmt.add_argument("--verbose", action="store_true", help="add flags and every rule")
    explain.set_defaults(handler=_lazy("herdr.cli.explain", "run_explain"))


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.default_config:
        from herdr.config.default_config import render

        sys.stdout.write(render())
        return 0
    session = getattr(args, "session", None)
    if session is not None:
        from herdr.cli.envpaths import active_session

        try:
            active_session(os.environ, session)
        except ValueError as exc:
            parser.error(str(exc))
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    try:
        return handler(args)
    except UsageError as exc:
        parser.exit(2, f"herdr: error: {exc}\n")
    except CliError as exc:
        print(f"herdr: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # stdout closed early (e.g. `| head`): not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
