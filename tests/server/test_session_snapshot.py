"""``session.snapshot`` on a real server: the result has the protocol-22 shape."""

from __future__ import annotations

from herdr import PROTOCOL_VERSION, __version__
from herdr.api.schema import build_schema
from herdr.api.validate import Compiler
from herdr_testing import ServerHandle

_DEFS = build_schema()["schemas"]["success_response"]["$defs"]
CHECK_SNAPSHOT = Compiler(_DEFS).ref("SessionSnapshot")


def test_snapshot_version_is_the_build_version(shared_server: ServerHandle) -> None:
    """herdr 0.9 reports its build version (a string) here, not a snapshot format number."""
    reply = shared_server.request("session.snapshot", {})
    snapshot = reply["result"]["snapshot"]
    assert snapshot["version"] == __version__
    assert snapshot["protocol"] == PROTOCOL_VERSION
    assert CHECK_SNAPSHOT(snapshot, "snapshot") is None
