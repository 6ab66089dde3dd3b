"""The launcher's first frame, drawn before asyncio and uvloop are imported.

Importing asyncio (ssl, logging, inspect, concurrent.futures…) is most of what is left
of a reattach's CPU before the first frame. So the TUI started by the launcher attaches
on a plain blocking socket (``_socket``: the ``socket`` module's imports wait too),
applies the state document and the first rows with the app's own handlers and draws
them with its own ``draw`` (the same bytes as the loop would write for the same lines),
and only then starts the loop, which adopts the connected socket plus every byte read
but not yet applied (:class:`Handoff`). Stdin is not read here: keys typed meanwhile
wait in the tty, as they do until the first frame on the normal path.
"""

from __future__ import annotations

import _socket
import select
import time
from typing import Any, cast

import msgspec

from herdr.api.attach_messages import (
    AttachParams,
    PopupClosed,
    PopupOpened,
    Rows,
    State,
    WindowTitle,
    decode_server,
    encode_line,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from herdr.api.attach_messages import ClientMessage
    from herdr.client.app import App

ROWS_WAIT_S = 0.3  # how long to wait for a pane's rows before the loop takes over
# applied here (their handlers need no loop); a toast (a timer) or a bye (a reattach
# task) and everything after it waits for the loop
EARLY_KINDS = (State, Rows, WindowTitle, PopupOpened, PopupClosed)
BUSY_RETRY_DELAYS_S = (0.005, 0.01, 0.02, 0.04, 0.08, 0.12, 0.16, 0.2, 0.2, 0.2)


class Handoff:
    """The connected attach socket, the server's ``attach_started`` line and the bytes
    read after the lines already applied (whole lines first, then a partial one);
    ``finished``: the exit reason a handler already gave (then there is no loop)."""

    def __init__(
        self, sock: _socket.socket, first: bytes, rest: bytes, finished: str | None = None
    ) -> None:
        self.sock = sock
        self.first = first
        self.rest = rest
        self.finished = finished


class EarlyConnection:
    """What the app's handlers use of its connection before the loop: ``send`` on the
    blocking socket (the view and size messages a state document causes)."""

    def __init__(self, socket_path: str) -> None:
        self.socket_path = socket_path
        self.protocol_checked = True  # the launcher's ping just now
        self.sock: _socket.socket | None = None

    def send(self, msg: ClientMessage) -> None:
        if self.sock is not None:
            self.sock.sendall(encode_line(msg))

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None


class EarlyDone:
    """Stands in for the app's ``_done`` future before the loop: remembers a finish."""

    def __init__(self) -> None:
        self.reason: str | None = None

    def done(self) -> bool:
        return self.reason is not None

    def set_result(self, reason: str) -> None:
        self.reason = reason


def connect(path: str) -> _socket.socket:
    """A blocking connection to the server's socket, its peer checked (retried for
    ~1 s while the listen backlog is full, as the loop's connects are)."""
    from herdr.api import peercred

    for delay in (*BUSY_RETRY_DELAYS_S, None):
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.connect(path)
        except BlockingIOError:
            sock.close()
            if delay is None:
                raise
            time.sleep(delay)
            continue
        except BaseException:
            sock.close()
            raise
        uid = peercred.untrusted_server_uid(sock)
        if uid is not None:
            sock.close()
            # the loop's UntrustedServer is a ConnectionError with the same words
            raise ConnectionError(f"server_untrusted: {peercred.untrusted_message(path, uid)}")
        return sock
    raise AssertionError("unreachable")


def draw_first(app: App, params: AttachParams) -> Handoff | str:
    """Attach, apply and draw until a frame shows a pane's rows (or ``ROWS_WAIT_S``);
    a :class:`Handoff` for the loop, or why the attach failed (``server_lost``)."""
    conn = cast("EarlyConnection", app.conn)
    try:
        sock = connect(conn.socket_path)
    except (OSError, ConnectionError) as exc:
        return str(exc)
    conn.sock = sock
    request = {"id": "tui:attach", "method": "client.attach", "params": params}
    done = EarlyDone()
    app._done = cast("Any", done)
    app.__dict__["schedule_draw"] = lambda: setattr(app, "_draw_pending", True)
    try:
        sock.sendall(msgspec.json.encode(request) + b"\n")
        first, rest = _read_first(sock)
        if not first:
            sock.close()
            return "the server closed the connection"
        doc: dict[str, Any] = msgspec.json.decode(first)
        if "error" in doc:
            err = doc["error"]
            sock.close()
            return f"{err.get('code')}: {err.get('message')}"
        rest = _apply(app, sock, rest, done)
    except (OSError, ValueError) as exc:
        sock.close()
        return str(exc)
    finally:
        del app.__dict__["schedule_draw"]
        app._done = None
        conn.sock = None
    return Handoff(sock, first, rest, done.reason)


def _read_first(sock: _socket.socket) -> tuple[bytes, bytes]:
    """The first line (``b""``: the server closed first) and what came after it."""
    data = b""
    while b"\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return b"", b""
        data += chunk
    first, _, rest = data.partition(b"\n")
    return first, rest


def _apply(app: App, sock: _socket.socket, data: bytes, done: EarlyDone) -> bytes:
    """Apply each batch of whole early lines as the loop's stream callback would,
    then the draw the loop path queues right after the attach, until a frame shows
    rows; returns the bytes left for the loop (whole lines first, then a partial one)."""
    app._draw_pending = queued_draw = True  # the loop path's schedule_draw after attach
    deadline = time.monotonic() + ROWS_WAIT_S
    while True:
        end = data.rfind(b"\n")
        if end >= 0:
            lines = data[:end].split(b"\n")
            tail = data[end + 1 :]
            early = _early_count(lines)
            if early:
                app._on_stream_lines(lines[:early])
            if queued_draw or app._draw_pending:
                queued_draw = False
                app.draw()
            if early < len(lines):
                return b"".join(line + b"\n" for line in lines[early:]) + tail
            data = tail
            if done.done() or app.panes:
                return data
        elif queued_draw:
            queued_draw = False
            app.draw()
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([sock], [], [], remaining)[0]:
            return data
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def _early_count(lines: list[bytes]) -> int:
    """How many leading lines are of the early kinds (blank lines count too)."""
    for index, line in enumerate(lines):
        if line and not isinstance(decode_server(line), EARLY_KINDS):
            return index
    return len(lines)
