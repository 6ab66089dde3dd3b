"""What the page may call in each mode: one table, every refusal with its code."""

from __future__ import annotations

import pytest

from herdr.server.methods import build_table
from herdr.web import policy

RO, TYPING = "read_only", "allow_typing"
CASES = [
    ("read", "agent.list", {}, None),
    ("read-approval", "agent.approval", {}, None),
    ("read-in-read-only", "session.snapshot", {RO: True}, None),
    ("prompt", "agent.prompt", {}, None),
    ("prompt-read-only", "agent.prompt", {RO: True}, "read_only"),
    ("approve-read-only", "agent.approve", {RO: True}, "read_only"),
    ("typing-off", "pane.send_text", {}, "typing_disabled"),
    ("typing-on", "pane.send_keys", {TYPING: True}, None),
    ("typing-on-but-read-only", "pane.send_input", {RO: True, TYPING: True}, "read_only"),
    ("never-stop", "server.stop", {RO: False, TYPING: True}, "web_method_not_allowed"),
    ("never-close", "pane.close", {TYPING: True}, "web_method_not_allowed"),
    ("never-web-start", "web.start", {}, "web_method_not_allowed"),
    ("never-held-subscribe", "events.subscribe", {}, "web_method_not_allowed"),
    ("unknown", "x" * 500, {}, "web_method_not_allowed"),
]


@pytest.mark.parametrize(
    ("method", "mode", "code"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_refusal(method: str, mode: dict[str, bool], code: str | None) -> None:
    refused = policy.refusal(
        method, read_only=mode.get(RO, False), allow_typing=mode.get(TYPING, False)
    )
    assert (refused[0] if refused else None) == code
    if refused:
        assert len(refused[1]) < 200  # a megabyte name is not echoed back


def test_every_offered_method_is_in_the_dispatch_table() -> None:
    offered = policy.READS | policy.ACTS | policy.TYPING
    assert offered <= set(build_table())
