"""The state document is re-sent only when it changed: typing into a shell pane (output,
so a new pane revision, on every key) sends none across several periodic re-checks,
while a title change — which no event announces — still sends one."""

from __future__ import annotations

import time

from herdr.api import attach_messages as am
from herdr.server.attach import STATE_REFRESH_S
from herdr_testing import ServerHandle
from herdr_testing.attach_stream import Stream

PANE = "w1:p1"


def test_typing_sends_no_state_document_but_a_title_change_does(
    herdr_server: ServerHandle,
) -> None:
    herdr_server.request("workspace.create", {"cwd": "/tmp", "focus": True})
    stream = Stream(herdr_server.socket_path)
    states: list[dict[str, object]] = []
    try:
        stream.send({"t": "in", "pane_id": PANE, "data": "echo rea''dy\r"})
        stream.pump(lambda: "ready" in stream.text(PANE))
        settled = time.monotonic() + 1.5 * STATE_REFRESH_S  # the echo's document is out
        stream.pump(lambda: time.monotonic() > settled)
        # Count state documents from here: Stream keeps only the last, so watch it change.
        seen = stream.state
        before = stream.state.get("panes")

        def count() -> None:
            nonlocal seen
            if stream.state is not seen:
                states.append(stream.state)
                seen = stream.state

        typed = ""
        end = time.monotonic() + 3 * STATE_REFRESH_S  # spans several periodic re-checks
        while time.monotonic() < end or len(typed) < 20:
            key = "abdefg"[len(typed) % 6]
            typed += key
            stream.send({"t": "in", "pane_id": PANE, "data": key})
            echoed = typed
            stream.pump(lambda: echoed in stream.text(PANE))  # noqa: B023 (this key's)
            count()
            time.sleep(0.005)
            if len(typed) % 30 == 0:
                stream.send({"t": "in", "pane_id": PANE, "data": "\x7f" * len(typed)})
                typed = ""
                stream.pump(lambda: "abd" not in stream.text(PANE))
                count()
        assert states == [], [(s.get("panes"), before) for s in states]

        title = "printf '\\033]0;zz%s\\007' top\r"
        stream.send({"t": "in", "pane_id": PANE, "data": "\x7f" * len(typed) + title})
        try:
            stream.pump(lambda: any(p.get("terminal_title") == "zztop" for p in _panes(stream)))
        except TimeoutError:
            raise AssertionError(stream.text(PANE) + repr(_panes(stream))) from None
        assert stream.of(am.Rows)  # rows kept flowing all along
    finally:
        stream.close()


def _panes(stream: Stream) -> list[dict[str, object]]:
    panes = stream.state.get("panes", [])
    return [p for p in panes if isinstance(p, dict)] if isinstance(panes, list) else []
