"""``herdr`` on each pane's PATH: a private directory holding only a ``herdr`` shim.

Agents and people in a pane are told to run ``herdr …``; that must reach the herdr
that runs this server even when it was never installed on PATH (a venv, a checkout).
The shim directory holds nothing but ``herdr``: prepending the venv's own ``bin``
would also put its ``python`` and ``pip`` first on every pane's PATH.
"""

from __future__ import annotations

import logging
import os
import secrets
import shlex
import sys
from pathlib import Path

from herdr.config.safe_paths import UnsafePathError, ensure_private_dir

log = logging.getLogger("herdr.server.bin_dir")

SHIM_NAME = "herdr"


def shim_script(entry_point: str | None, python: str) -> str:
    """The shim's text: exec the installed entry point, else ``python -m herdr``."""
    target = shlex.quote(entry_point) if entry_point else f"{shlex.quote(python)} -m herdr"
    return f'#!/bin/sh\n# herdr: written by the herdr server for its panes\nexec {target} "$@"\n'


def with_bin_dir(path: str | None, bin_dir: str | None) -> str:
    """``path`` with ``bin_dir`` first (once); ``path`` unchanged without a ``bin_dir``."""
    current = path if path is not None else os.defpath
    if not bin_dir:
        return current
    rest = [p for p in current.split(os.pathsep) if p != bin_dir]
    return os.pathsep.join([bin_dir, *rest]) if current else bin_dir


def installed_entry_point() -> str | None:
    """The ``herdr`` console script this interpreter was installed with, if any."""
    beside = Path(sys.executable).with_name("herdr")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "herdr" and argv0.is_file():
        return str(argv0.resolve())
    return None


def ensure_shim_dir(state_dir: Path) -> str | None:
    """Create ``<state_dir>/bin/herdr`` (private dir, rewritten atomically) and return
    the dir; None (logged) when it cannot be made — panes then start without it."""
    folder = state_dir / "bin"
    try:
        ensure_private_dir(str(folder))
        text = shim_script(installed_entry_point(), sys.executable)
        shim = folder / SHIM_NAME
        if not (shim.is_file() and shim.read_text() == text and os.access(shim, os.X_OK)):
            tmp = folder / f".{SHIM_NAME}.{secrets.token_hex(4)}.tmp"
            tmp.write_text(text)
            tmp.chmod(0o755)
            tmp.replace(shim)
    except (OSError, UnsafePathError) as exc:
        log.warning("no herdr shim for pane PATHs: %s", exc)
        return None
    return str(folder)
