"""``herdr api ensure-server [--session N] [--with-config]``: the remote side of ``--remote``.

Starts the session's server when none answers (as a bare ``herdr`` would), gives an
empty session a workspace, and prints one JSON line: herdr's version and protocol,
whether it started the server, and (``--with-config``) the remote config.toml text
for ``--remote-keybindings server``.
"""

from __future__ import annotations

import os
import sys

from herdr import PROTOCOL_VERSION, __version__
from herdr.cli import jsonlite
from herdr.cli.main import CliError
from herdr.cli.transport import RequestFailed, check_protocol, socket_path_for
from herdr.config import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

MAX_CONFIG_BYTES = 1024 * 1024


def run_ensure_server(args: argparse.Namespace) -> int:
    from herdr.cli.launch import ensure_server, ensure_workspace

    path = socket_path_for(args)
    session = paths.active_session(os.environ, getattr(args, "session", None))
    try:
        started = ensure_server(path, session)
        check_protocol(path)
        home = os.environ.get("HOME")
        if home and os.path.isdir(home):
            os.chdir(home)  # an empty session's first workspace: the remote home
        ensure_workspace(path)
    except RequestFailed as exc:
        raise CliError(f"{exc.code}: {exc.message}") from None
    doc: dict[str, object] = {
        "version": __version__,
        "protocol": PROTOCOL_VERSION,
        "started": started,
    }
    if getattr(args, "with_config", False):
        doc["config_toml"] = _config_text()
    sys.stdout.write(jsonlite.dumps_compact(doc) + "\n")
    return 0


def _config_text() -> str:
    try:
        with open(paths.config_file(os.environ), "rb") as fh:
            return fh.read(MAX_CONFIG_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""
