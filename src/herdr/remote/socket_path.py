"""``herdr api socket-path [--session N]``: where this machine's server listens.

The other end of a ``--machine`` stream-local forward asks this once per ControlMaster
(then connects to the socket itself, with no remote Python on the path): the absolute
socket path of the session, and the protocol of the server answering there (``null``
when none answers), as one JSON line.
"""

from __future__ import annotations

import os
import sys

from herdr import PROTOCOL_VERSION
from herdr.cli import jsonlite
from herdr.cli.transport import RequestFailed, request, socket_path_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def run_socket_path(args: argparse.Namespace) -> int:
    path = os.path.abspath(socket_path_for(args))
    try:
        result = request(path, "ping", {}, timeout=5.0).get("result")
    except RequestFailed:
        result = None
    protocol = result.get("protocol") if isinstance(result, dict) else None
    doc = {"socket_path": path, "server_protocol": protocol, "protocol": PROTOCOL_VERSION}
    sys.stdout.write(jsonlite.dumps_compact(doc) + "\n")
    return 0
