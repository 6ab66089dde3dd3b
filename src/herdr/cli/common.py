"""Shared pieces of the noun modules: flag → param helpers and the verb table glue.

Imported only when a control noun runs; stdlib argparse/os only.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from herdr.cli.main import UsageError
from herdr.cli.transport import TABLE_METHODS

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from typing import Any

    from herdr.cli.main import LazyVerbs as Verbs

Params = dict[str, "Any"]
Build = Callable[[argparse.Namespace], Params]


def env_pairs(values: list[str] | None) -> dict[str, str] | None:
    """``--env K=V`` (repeatable) → ``{"K": "V"}``; a value without ``=`` is a usage error."""
    if not values:
        return None
    env: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--env expects KEY=VALUE, got {item!r}")
        env[key] = value
    return env


def abs_cwd(value: str | None) -> str | None:
    """``--cwd`` is expanded by the CLI (the API needs an absolute path)."""
    if value is None:
        return None
    return os.path.abspath(os.path.expanduser(value))


def current_pane() -> str | None:
    """``--current``: the caller's ``$HERDR_PANE_ID`` (unset → the focused pane)."""
    return os.environ.get("HERDR_PANE_ID") or None


def clean(params: Params) -> Params:
    return {k: v for k, v in params.items() if v is not None}


def verb(
    verbs: Verbs,
    name: str,
    helptext: str,
    method: str,
    build: Build,
    *,
    silent: bool = False,
    held: bool = False,
) -> argparse.ArgumentParser:
    """A verb that sends ``method`` with ``build(args)`` and prints the envelope."""
    parser = verbs.add_parser(name, help=helptext)
    if method in TABLE_METHODS:
        parser.add_argument(
            "--json", action="store_true", help="print JSON (the default when not a terminal)"
        )

    def run(args: argparse.Namespace) -> int:
        from herdr.cli.transport import call_and_print

        timeout = None if held else 30.0
        return call_and_print(args, method, build(args), silent=silent, timeout=timeout)

    parser.set_defaults(handler=run)
    return parser


def add_cwd_env_focus(parser: argparse.ArgumentParser, *, label: bool = True) -> None:
    parser.add_argument("--cwd", metavar="DIR", help="working directory (default: follow)")
    if label:
        parser.add_argument("--label", help="label")
    parser.add_argument(
        "--env", action="append", metavar="K=V", help="environment for the new process"
    )
    focus = parser.add_mutually_exclusive_group()
    focus.add_argument("--focus", dest="focus", action="store_true", help="take focus")
    focus.add_argument(
        "--no-focus", dest="focus", action="store_false", help="do not take focus (default)"
    )
