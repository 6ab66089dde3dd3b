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
    from herdr.config.paths import config_file

    return str(config_file(os.environ))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
    nouns = parser.add_subparsers(dest="noun", metavar="<command>")

    _add_agent(nouns)
    return parser


def _add_agent(nouns: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    agent = nouns.add_parser("agent", help="inspect and drive agents")
    verbs = agent.add_subparsers(dest="verb", metavar="<verb>", required=True)

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
    parser = build_parser()
    args = parser.parse_args(argv)
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
