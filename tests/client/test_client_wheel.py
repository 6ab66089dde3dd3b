"""The wheel over alternate-screen programs without mouse mode: arrow keys."""

from __future__ import annotations

import pytest

from herdr.client.wheel import sends_arrows, wheel_keys

KEYS = [
    pytest.param(True, 3, False, "\x1b[A" * 3, id="up-csi"),
    pytest.param(False, 3, False, "\x1b[B" * 3, id="down-csi"),
    pytest.param(True, 1, True, "\x1bOA", id="up-ss3-decckm"),
    pytest.param(False, 5, True, "\x1bOB" * 5, id="down-ss3-decckm"),
    pytest.param(True, 0, False, "", id="zero-lines"),
]


@pytest.mark.parametrize(("up", "lines", "app_cursor", "want"), KEYS)
def test_wheel_keys(up: bool, lines: int, app_cursor: bool, want: str) -> None:
    assert wheel_keys(up, lines, app_cursor=app_cursor) == want


ARROWS = [
    pytest.param(True, 0, True, id="less-man"),
    pytest.param(True, 1000, False, id="alt-with-mouse-gets-mouse-events"),
    pytest.param(False, 0, False, id="shell-gets-copy-mode-scrollback"),
    pytest.param(False, 1002, False, id="normal-screen-with-mouse"),
]


@pytest.mark.parametrize(("alt", "mouse", "want"), ARROWS)
def test_sends_arrows(alt: bool, mouse: int, want: bool) -> None:
    assert sends_arrows(alt, mouse) is want
