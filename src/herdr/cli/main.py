"""The ``herdr`` command line: argparse front end with lazily imported handlers.

Start-up is a product feature (agents call the CLI hundreds of times), so this module
imports only os and sys: simple verbs are answered by :mod:`herdr.cli.fast` without
argparse (or the ``re``/gettext/locale it drags in); other command lines get argparse
from :mod:`herdr.cli.parsing`, and each noun's handler module is imported when its
command runs. Nothing here pulls in asyncio, the emulator, regex or orjson.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from herdr import PROTOCOL_VERSION, __version__

Handler = Callable[["argparse.Namespace"], int]


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
    from herdr.config.paths import config_file

    return config_file(os.environ)


def __getattr__(name: str) -> object:
    """``Parser`` lives in :mod:`herdr.cli.parsing` (imported only when parsing)."""
    if name in ("Parser", "_Formatter"):
        from herdr.cli import parsing

        return getattr(parsing, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# noun -> (help, builder). Builders named "module:function" live in their own modules
# and are imported only when that noun is on the command line.
NOUNS: dict[str, tuple[str, str]] = {
    "agent": ("inspect and drive agents", "herdr.cli.agent:add_agent"),
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
    "config": ("check config.toml", "herdr.cli.config_check:add_config"),
    "completion": ("print a shell completion script", "herdr.cli.completion:add_completion"),
    "integration": (
        "install, remove and check agent hooks (no server needed)",
        "herdr.cli.integration:add_integration",
    ),
    "notification": (
        "show a notification in the attached TUI",
        "herdr.cli.notification:add_notification",
    ),
    "worktree": ("git worktrees opened as workspaces", "herdr.cli.worktree:add_worktree"),
    "plugin": ("link, install and run plugins", "herdr.cli.plugin:add_plugin"),
    "machine": ("save other machines for --machine and --remote", "herdr.cli.machine:add_machine"),
    "web": ("serve agents and screens to a browser or phone", "herdr.cli.web:add_web"),
}

_ROOT_VALUE_FLAGS = frozenset({"--session", "--remote", "--remote-keybindings"})
MACHINE_FLAG = "--machine"
# Nouns that never talk to a server: --machine cannot route them anywhere.
LOCAL_NOUNS = frozenset({"machine", "completion", "integration", "config"})


def take_machine(argv: Sequence[str]) -> tuple[list[str], str | None]:
    """``argv`` without the global ``--machine NAME|TARGET`` (anywhere before ``--``)."""
    rest: list[str] = []
    machine: str | None = None
    args = iter(argv)
    for arg in args:
        if arg == "--":
            rest += [arg, *args]
            break
        if arg == MACHINE_FLAG:
            machine = next(args, None)
            if machine is None or machine.startswith("-"):
                raise UsageError("--machine needs a machine name or an ssh target")
        elif arg.startswith(MACHINE_FLAG + "="):
            machine = arg[len(MACHINE_FLAG) + 1 :]
        else:
            rest.append(arg)
    if machine == "":
        raise UsageError("--machine needs a machine name or an ssh target")
    return rest, machine


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
    from herdr.cli.parsing import Parser

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
        "--machine",
        metavar="NAME|TARGET",
        help="run the command against the herdr on another machine (over ssh)",
    )
    parser.add_argument(
        "--remote",
        metavar="TARGET",
        nargs="?",
        const="",
        help="attach this terminal to the herdr on another machine (default: the default machine)",
    )
    parser.add_argument(
        "--remote-keybindings",
        choices=("local", "server"),
        default="local",
        help="with --remote: use local (default) or the remote's keybindings",
    )
    parser.add_argument(
        "--default-config", action="store_true", help="print the default config.toml and exit"
    )
    parser.add_argument(
        "--skill",
        action="store_true",
        help="print the skill document that teaches a coding agent to drive herdr, and exit",
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
    import argparse

    from herdr.cli.parsing import Parser

    parent = Parser(add_help=False)
    parent.add_argument(
        "--session", metavar="NAME", default=argparse.SUPPRESS, help="use a named session"
    )
    return parent


TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the CLI ~2 ms
if TYPE_CHECKING:
    import argparse
    from typing import Any, TypeAlias

    from herdr.cli.parsing import Parser as Parser  # noqa: PLC0414 (re-exported)

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
    # internal: the new server of a live handoff (started by the old one)
    from argparse import SUPPRESS  # argparse is loaded already: we are building parsers

    server.add_argument("--handoff-fd", type=int, default=None, help=SUPPRESS)
    verbs = add_verbs(server, "herdr server", required=False)
    handoff = verbs.add_parser(
        "handoff",
        help="hand every pane to a new server process (live handoff: agents keep running)",
    )
    handoff.add_argument("--herdr", metavar="PATH", help="the herdr to start (default: PATH's)")
    handoff.add_argument("--json", action="store_true", help="print JSON")
    handoff.set_defaults(handler=_lazy("herdr.cli.server", "run_handoff"))
    stop = verbs.add_parser("stop", help="stop the server and its panes")
    stop.set_defaults(handler=_lazy("herdr.cli.server", "server_stop"))
    reload_config = verbs.add_parser(
        "reload-config", help="re-read config.toml and apply the keys the server uses"
    )
    reload_config.set_defaults(handler=_lazy("herdr.cli.server", "run_reload_config"))
    manifests = verbs.add_parser("agent-manifests", help="detection manifest layers per agent")
    manifests.set_defaults(handler=_lazy("herdr.cli.agent", "run_agent_manifests"))
    reload = verbs.add_parser(
        "reload-agent-manifests", help="re-read detection manifests and restart detection"
    )
    reload.set_defaults(handler=_lazy("herdr.cli.agent", "run_reload_agent_manifests"))
    update = verbs.add_parser(
        "update-agent-manifests", help="fetch newer detection manifests now, then reload"
    )
    update.set_defaults(handler=_lazy("herdr.cli.manifest_update", "run_update_agent_manifests"))


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
    attach = verbs.add_parser("attach", help="attach the TUI to a session (starting it)")
    attach.add_argument("name", help="session name (default = the default session)")
    attach.set_defaults(handler=_lazy("herdr.cli.launch", "run_tui"))


def _add_api(nouns: Nouns) -> None:
    api = nouns.add_parser("api", help=NOUNS["api"][0])
    verbs = add_verbs(api, "herdr api")
    schema = verbs.add_parser("schema", help="print the API's JSON schema (summary by default)")
    schema.add_argument("--json", action="store_true", help="print the full JSON schema")
    schema.add_argument("--output", metavar="PATH", help="write the JSON schema to PATH")
    schema.set_defaults(handler=_lazy("herdr.cli.api", "run_schema"))
    snapshot = verbs.add_parser("snapshot", help="the whole session model as JSON")
    snapshot.set_defaults(handler=_lazy("herdr.cli.api", "run_snapshot"))
    # Hidden: the remote end of --machine/--remote (stdio <-> this machine's socket).
    proxy = verbs.add_parser("proxy")
    proxy.add_argument("--expect-protocol", type=int)
    proxy.set_defaults(handler=_lazy("herdr.remote.proxy", "run_proxy"))
    ensure = verbs.add_parser("ensure-server")
    ensure.add_argument("--with-config", action="store_true")
    ensure.set_defaults(handler=_lazy("herdr.remote.ensure", "run_ensure_server"))
    where = verbs.add_parser("socket-path")
    where.set_defaults(handler=_lazy("herdr.remote.socket_path", "run_socket_path"))


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    try:
        argv, machine = take_machine(argv)
    except UsageError as exc:
        sys.stderr.write(f"herdr: error: {exc}\n")
        return 2
    if machine is not None:
        from herdr.cli import transport

        transport.MACHINE[0] = machine
    if argv[:2] == ["api", "proxy"]:  # the remote end of every --machine call
        from herdr.remote.proxy import run_fast

        proxied = run_fast(list(argv[2:]))
        if proxied is not None:
            return proxied
    from herdr.cli.fast import run_simple

    simple = run_simple(argv)  # a simple verb, answered without building any parser
    if simple is not None:
        return simple
    if not argv and machine is None:  # bare `herdr`: start-or-attach, no parser to build
        return _bare_tui()
    if machine is None:
        served = _plain_server(argv)
        if served is not None:
            return served
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.default_config:
        from herdr.config.default_config import render

        sys.stdout.write(render())
        return 0
    if args.skill:
        from importlib.resources import files

        skill = files("herdr").joinpath("skills", "herdr", "SKILL.md")
        sys.stdout.write(skill.read_text(encoding="utf-8"))
        return 0
    session = getattr(args, "session", None)
    if session is not None:
        from herdr.config.paths import active_session

        try:
            active_session(os.environ, session)
        except ValueError as exc:
            parser.error(str(exc))
    handler: Handler | None = getattr(args, "handler", None)
    noun = getattr(args, "noun", None)
    if machine is not None and noun in LOCAL_NOUNS:
        parser.error(f"--machine does not apply to `herdr {noun}` (it never talks to a server)")
    if handler is None:
        if noun is not None:
            parser.print_help()
            return 0
        if args.remote is not None or machine is not None:
            if args.remote is None:
                args.remote = machine
            handler = _lazy("herdr.remote.attach", "run_remote")  # herdr --remote TARGET
        else:
            handler = _lazy("herdr.cli.launch", "run_tui")  # bare `herdr`: start-or-attach
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


def _plain_server(argv: Sequence[str]) -> int | None:
    """``herdr server [--session NAME]`` (how the launcher starts one) without argparse:
    ~11 ms of every cold start. Anything else, or a name the session rules refuse, is
    left to the parser (which owns the usage errors)."""
    if list(argv) == ["server"]:
        session = None
    elif len(argv) == 3 and list(argv[:2]) == ["server", "--session"] and argv[2][:1] != "-":
        session = argv[2]
    else:
        return None
    import types

    from herdr.config.paths import active_session

    try:
        active_session(os.environ, session)
    except ValueError:
        return None
    from herdr.cli.server import run_server

    return _without_parser(run_server, types.SimpleNamespace(session=session, handoff_fd=None))


def _bare_tui() -> int:
    """``herdr`` with no arguments, without argparse (~10 ms of every attach)."""
    import types

    from herdr.cli.launch import run_tui

    return _without_parser(run_tui, types.SimpleNamespace(session=None))


def _without_parser(handler: Handler, args: object) -> int:
    """Run a handler for a command line no parser read, reporting errors as main does."""
    try:
        return handler(args)  # type: ignore[arg-type]
    except UsageError as exc:
        sys.stderr.write(f"herdr: error: {exc}\n")
        return 2
    except CliError as exc:
        print(f"herdr: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
