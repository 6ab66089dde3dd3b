"""The API stays responsive while panes flood their PTYs with output."""

from __future__ import annotations

import re
import time
from typing import Any

from herdr_testing import ServerHandle, wait_until

FLOODING_PANES = 4
PING_SPAN_S = 0.5
FLOOD = "seq 1 1000000000"  # as fast as `yes`, but its progress can be read off the screen


def _last_number(server: ServerHandle, pane_id: str) -> int:
    reply = server.request("pane.read", {"pane_id": pane_id, "source": "visible"})
    numbers = re.findall(r"^(\d+)$", str(reply["result"]["read"]["text"]), re.MULTILINE)
    # the last line may still be half written: the highest complete one above it
    return max((int(n) for n in numbers[:-1]), default=0)


def test_pings_are_answered_while_four_panes_flood(herdr_server: ServerHandle) -> None:
    ws = herdr_server.request("workspace.create", {"label": "flood"})["result"]
    panes = [str(ws["root_pane"]["pane_id"])]
    while len(panes) < FLOODING_PANES:
        split = herdr_server.request(
            "pane.split",
            {"target_pane_id": panes[-1], "direction": "right" if len(panes) % 2 else "down"},
        )
        panes.append(str(split["result"]["pane"]["pane_id"]))
    for pane in panes:
        herdr_server.request("pane.send_input", {"pane_id": pane, "text": FLOOD, "keys": ["Enter"]})
    for pane in panes:
        wait_until(lambda pane=pane: _last_number(herdr_server, pane) > 1000)  # type: ignore[misc]
    try:
        before = {pane: _last_number(herdr_server, pane) for pane in panes}
        # 20 pings, and for at least PING_SPAN_S: answered at accept, 20 can be over in
        # a few ms, too short to see the floods move on a busy machine
        answers: list[dict[str, Any]] = []
        started = time.monotonic()
        while len(answers) < 20 or time.monotonic() - started < PING_SPAN_S:
            answers.append(herdr_server.request("ping", {}, rid=f"p{len(answers)}"))
        assert all(a.get("result", {}).get("type") == "pong" for a in answers), answers
        # every flood went on across the pings: they were answered during it, not after
        after = {pane: _last_number(herdr_server, pane) for pane in panes}
        assert all(after[pane] > before[pane] for pane in panes), (before, after)
    finally:
        for pane in panes:
            herdr_server.request("pane.send_input", {"pane_id": pane, "keys": ["ctrl+c"]})
