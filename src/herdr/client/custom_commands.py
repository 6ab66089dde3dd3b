"""``[[keys.command]]`` of type ``shell``: run detached from the TUI, as herdr does.

herdr runs a shell binding with ``/bin/sh -lc COMMAND``, stdin/stdout/stderr on
``/dev/null``, in the active pane's directory when that exists, with the socket, the
herdr executable and ``HERDR_ACTIVE_*`` in its environment. It runs where the TUI runs
(``HERDR_ACTIVE_MACHINE`` says which machine the TUI shows). The child is started in its
own session so it outlives a detach and never reads the TUI's terminal; a thread reaps
it so no zombie is left behind.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

SHELL = "/bin/sh"


def herdr_bin() -> str:
    """The ``herdr`` executable beside this interpreter, else the one on PATH."""
    beside = Path(sys.executable).with_name("herdr")
    return str(beside) if beside.exists() else "herdr"


def shell_env(
    base: Mapping[str, str],
    *,
    socket_path: str,
    pane: Mapping[str, Any] | None,
    machine: str | None,
) -> dict[str, str]:
    """``base`` plus what herdr gives a shell binding (PURE).

    Stale ``HERDR_PANE_ID``-style variables of the TUI's own environment are dropped:
    the command runs for the active pane, not in one.
    """
    env = {k: v for k, v in base.items() if not k.startswith("HERDR_ACTIVE_")}
    for key in ("HERDR_PANE_ID", "HERDR_TAB_ID", "HERDR_WORKSPACE_ID"):
        env.pop(key, None)
    env["HERDR_SOCKET_PATH"] = socket_path
    env["HERDR_BIN_PATH"] = herdr_bin()
    env["HERDR_ACTIVE_MACHINE"] = machine or "local"
    if pane:
        for key, name in (
            ("workspace_id", "HERDR_ACTIVE_WORKSPACE_ID"),
            ("tab_id", "HERDR_ACTIVE_TAB_ID"),
            ("pane_id", "HERDR_ACTIVE_PANE_ID"),
            ("cwd", "HERDR_ACTIVE_PANE_CWD"),
        ):
            value = pane.get(key)
            if isinstance(value, str) and value:
                env[name] = value
    return env


def shell_cwd(pane: Mapping[str, Any] | None) -> str | None:
    """The active pane's directory when it is one here, else None (inherit)."""
    cwd = pane.get("cwd") if pane else None
    if isinstance(cwd, str) and cwd.startswith("/") and os.path.isdir(cwd):
        return cwd
    return None


def run_detached(command: str, env: Mapping[str, str], cwd: str | None) -> int:
    """Start ``/bin/sh -lc command`` detached; returns its pid (OSError when it can't)."""
    with open(os.devnull, "r+b") as null:
        proc = subprocess.Popen(
            [SHELL, "-lc", command],
            stdin=null,
            stdout=null,
            stderr=null,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
            close_fds=True,
        )
    threading.Thread(target=proc.wait, name="herdr-shell-binding", daemon=True).start()
    return proc.pid


def run_binding(
    command: str, *, socket_path: str, pane: Mapping[str, Any] | None, machine: str | None
) -> int:
    """Run a ``shell`` binding for ``pane`` with this process's environment as the base."""
    env = shell_env(os.environ, socket_path=socket_path, pane=pane, machine=machine)
    return run_detached(command, env, shell_cwd(pane))
