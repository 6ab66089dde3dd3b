"""The command prompt (``prefix+:``): CLI verbs run against this session.

``pane split --direction right`` runs as ``herdr pane split --direction right`` — the
real CLI in a child process, pointed at this client's server (``HERDR_SOCKET_PATH``)
with the focused pane as the caller (``HERDR_PANE_ID``, so ``--current`` and verbs
that default to the caller's pane act where the user is). Its first line of output
(or of its error) becomes the notice; it never writes to the TUI's terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from herdr.client.app import App

TIMEOUT_S = 30.0
# Verbs that would start a second TUI or stop the server under this one.
REFUSED = frozenset({"attach", "launch", "tui"})


def parse(text: str) -> list[str] | str:
    """The argv to run, or why not (a message)."""
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        return f"cannot parse: {exc}"
    if argv and argv[0] == "herdr":
        argv = argv[1:]
    if not argv:
        return ""
    if argv[0] in REFUSED or argv[:2] == ["session", "attach"]:
        return f"{argv[0]}: not from inside the TUI"
    return argv


def run(app: App, text: str) -> None:
    parsed = parse(text)
    if isinstance(parsed, str):
        if parsed:
            app.notice(parsed)
        return
    app.spawn(_run(app, parsed))


async def _run(app: App, argv: list[str]) -> None:
    env = dict(os.environ)
    env["HERDR_SOCKET_PATH"] = app.conn.socket_path
    pane_id = app.focused_pane_id()
    if pane_id is not None:
        env["HERDR_PANE_ID"] = pane_id
    if app.ws_id is not None:
        env["HERDR_WORKSPACE_ID"] = app.ws_id
    env.pop("HERDR_SESSION", None)
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "herdr",
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
    except OSError as exc:
        app.notice(f"{argv[0]}: {exc}")
        return
    try:
        out, err = await asyncio.wait_for(proc.communicate(), TIMEOUT_S)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        app.notice(f"{' '.join(argv)}: still running after {TIMEOUT_S:.0f}s, stopped")
        return
    app.notice(summary(argv, proc.returncode or 0, out, err))


def summary(argv: list[str], code: int, out: bytes, err: bytes) -> str:
    """One line for the notice: the error when it failed, else the first output line."""
    head = " ".join(argv)
    text = (err if code else out).decode("utf-8", "replace").strip()
    if not text and code:
        text = out.decode("utf-8", "replace").strip()
    first = text.splitlines()[0] if text else ""
    if code:
        return f"{head}: failed ({code}){f': {first}' if first else ''}"[:200]
    return f"{head}: {first}"[:200] if first else f"{head}: ok"
