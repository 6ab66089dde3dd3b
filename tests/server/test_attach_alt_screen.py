"""The attach stream tells the client when a pane is on the alternate screen."""

from __future__ import annotations

import time

from test_attach_stream import Stream  # type: ignore[import-not-found]

from herdr_testing import ServerHandle


def _alt_flag(stream: Stream, want: bool, timeout: float = 10.0) -> None:
    """Read until a ``rows`` line for w1:p1 carries ``alt == want``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            doc = stream.read(timeout=0.5)
        except TimeoutError:
            continue
        if doc.get("t") == "rows" and doc.get("pane_id") == "w1:p1" and doc["alt"] is want:
            return
    raise AssertionError(f"no rows line with alt={want}")


def test_rows_carry_the_alternate_screen_flag(herdr_server: ServerHandle) -> None:
    assert "result" in herdr_server.request("workspace.create", {"cwd": "/tmp", "focus": True})
    stream = Stream(str(herdr_server.socket_path), {"cols": 80, "rows": 24})
    try:
        _alt_flag(stream, False)
        stream.send({"t": "in", "pane_id": "w1:p1", "data": "printf '\\033[?1049hALT'\r"})
        _alt_flag(stream, True)
        stream.send({"t": "in", "pane_id": "w1:p1", "data": "printf '\\033[?1049l'\r"})
        _alt_flag(stream, False)
    finally:
        stream.close()
