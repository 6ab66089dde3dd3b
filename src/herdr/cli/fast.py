"""The CLI's fast path: simple read verbs answered without argparse.

Agents poll ``herdr pane list`` and friends hundreds of times, and argparse (with the
``re``, gettext and locale modules it imports) plus building the parsers is most of
such a call's own cost. The verbs in :data:`SIMPLE` take only ``--session NAME``,
their own value flags and a fixed number of positionals, so they are recognised here
and sent through the very same :func:`herdr.cli.transport.call_and_print` the argparse
path uses. Anything else (help, a flag this table does not know, ``--flag=value``, a
missing or extra positional, a bad session name...) returns ``None`` and is left to
argparse, which also owns every usage error. ``tests/cli/test_cli_fast_path.py``
checks that both paths send the same request.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

# (noun, verb) -> (method, positional param names, {value flag: param name})
SIMPLE: dict[tuple[str, str], tuple[str, tuple[str, ...], dict[str, str]]] = {
    ("pane", "list"): ("pane.list", (), {"--workspace": "workspace_id"}),
    ("pane", "get"): ("pane.get", ("pane_id",), {}),
    ("workspace", "list"): ("workspace.list", (), {}),
    ("workspace", "get"): ("workspace.get", ("workspace_id",), {}),
    ("tab", "list"): ("tab.list", (), {"--workspace": "workspace_id"}),
    ("tab", "get"): ("tab.get", ("tab_id",), {}),
    ("agent", "list"): ("agent.list", (), {}),
    ("agent", "get"): ("agent.get", ("target",), {}),
}
SESSION_FLAG = "--session"


class Args:
    """What :func:`~herdr.cli.transport.call_and_print` reads of an argparse namespace."""

    def __init__(self, session: str | None, noun: str, verb: str, json: bool = False) -> None:
        self.session = session
        self.json = json  # list verbs: JSON even on a terminal
        self.noun = noun  # the request id is cli:<noun>:<verb>, as on the argparse path
        self.verb = verb


def parse(
    argv: Sequence[str],
) -> tuple[str, dict[str, Any], str | None, tuple[str, str]] | None:
    """``(method, params, session, (noun, verb))`` for a simple command line, else ``None``."""
    words: list[str] = []
    values: dict[str, str] = {}
    args = iter(argv)
    for arg in args:
        if arg.startswith("-"):
            value = next(args, None)
            if value is None or value.startswith("-"):
                return None  # a bare flag, a missing value: argparse decides
            values[arg] = value  # last one wins, as with argparse
        else:
            words.append(arg)
    if len(words) < 2:
        return None
    spec = SIMPLE.get((words[0], words[1]))
    if spec is None:
        return None
    method, positionals, flags = spec
    if len(words) - 2 != len(positionals) or not set(values) <= {SESSION_FLAG, *flags}:
        return None
    session = values.get(SESSION_FLAG)
    if session is not None:
        from herdr.config.paths import active_session

        try:
            active_session(os.environ, session)
        except ValueError:
            return None  # argparse reports it
    params: dict[str, Any] = dict(zip(positionals, words[2:], strict=True))
    params.update((flags[flag], value) for flag, value in values.items() if flag in flags)
    return method, params, session, (words[0], words[1])


def run_simple(argv: Sequence[str]) -> int | None:
    """Run a simple command line and return its exit code, or ``None`` if it is not one."""
    as_json = "--json" in argv
    parsed = parse([a for a in argv if a != "--json"] if as_json else argv)
    if parsed is None:
        return None
    method, params, session, (noun, verb) = parsed
    from herdr.cli.transport import TABLE_METHODS, call_and_print

    if as_json and method not in TABLE_METHODS:
        return None  # --json belongs to the list verbs: argparse reports it
    try:
        args = Args(session, noun, verb, as_json)
        return call_and_print(args, method, params)  # type: ignore[arg-type]
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # stdout closed early (e.g. `| head`): not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
