"""A held connection (subscriptions, waits): one request line, then NDJSON lines back."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any


class HeldConnection:
    """Send one request on a fresh connection and read its answer lines one by one."""

    def __init__(
        self,
        path: Path,
        method: str,
        params: dict[str, Any],
        rid: str = "held",
        *,
        timeout: float = 15.0,
    ) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(str(path))
        self.buf = b""
        line = {"id": rid, "method": method, "params": params}
        self.sock.sendall(json.dumps(line).encode() + b"\n")

    def next(self) -> dict[str, Any] | None:
        """The next line as JSON, or None once the server closed the connection."""
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        doc: dict[str, Any] = json.loads(line)
        return doc

    def close(self) -> None:
        self.sock.close()
