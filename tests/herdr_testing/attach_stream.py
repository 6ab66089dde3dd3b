"""A raw ``client.attach`` stream for server tests: what an attached TUI would see
(its pushes decoded, each pane's and popup's rows kept as text) and a way to type."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from herdr.api import attach_messages as am

COLS, ROWS = 100, 30


class Stream:
    """One attached TUI connection: the last state document (``state``), every other push
    (``pushes``) and each pane's and popup's rows as text."""

    def __init__(self, path: Path, cols: int = COLS, rows: int = ROWS) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.buf = b""
        self.state: dict[str, Any] = {}
        self.pushes: list[am.ServerMessage] = []
        self.screens: dict[str, dict[int, str]] = {}
        params = {"cols": cols, "rows": rows}
        self.send({"id": "a1", "method": "client.attach", "params": params})
        started = self._line(10.0)
        assert started is not None and json.loads(started)["result"]["type"] == "attach_started"

    def _line(self, timeout: float) -> bytes | None:
        self.sock.settimeout(timeout)
        while b"\n" not in self.buf:
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                return None
            if not chunk:
                raise EOFError
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def pump(self, until: Callable[[], bool], timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while not until():
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("condition not met on the attach stream")
            line = self._line(min(left, 0.5))
            if line is None:
                continue
            msg = am.decode_server(line)  # typed: an unknown or broken line fails here
            assert msg is not None, line
            if isinstance(msg, am.State):
                self.state = json.loads(line)["state"]
                continue
            self.pushes.append(msg)
            if isinstance(msg, am.Rows):
                screen = self.screens.setdefault(msg.pane_id, {})
                if msg.full:
                    screen.clear()
                screen.update(dict(msg.rows))

    def text(self, pane_id: str) -> str:
        rows = self.screens.get(pane_id, {})
        return "\n".join(re.sub(r"\x1b\[[0-9;:?]*[A-Za-z]", "", rows[y]) for y in sorted(rows))

    def of(self, kind: type[Any]) -> list[Any]:
        return [m for m in self.pushes if isinstance(m, kind)]

    def send(self, msg: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(msg).encode() + b"\n")

    def close(self) -> None:
        self.sock.close()
