"""Text that reaches a user's terminal (pure): nothing but printable characters survive."""

from __future__ import annotations

import pytest

from herdr.runtime.client_text import notification_text, window_title_text


@pytest.mark.parametrize(
    ("raw", "limit", "expected"),
    [
        ("build failed", 80, "build failed"),
        ("  two\n\nlines\tand  spaces  ", 80, "two lines and spaces"),
        ("\x1b]0;pwned\x07title", 80, "]0;pwnedtitle"),
        ("osc\x1b]52;c;Zm9v\x1b\\end", 80, "osc]52;c;Zm9v\\end"),
        ("c1\x9b31m\x9dx\x9c", 80, "c131mx"),
        ("bidi\u202eevil\u200b", 80, "bidievil"),
        ("x" * 100, 80, "x" * 80),
        ("\x1b\x07\x00", 80, None),
        ("   ", 80, None),
        ("日本語 ok", 80, "日本語 ok"),
    ],
    ids=[
        "plain",
        "whitespace",
        "osc0",
        "osc52",
        "c1",
        "format_chars",
        "cut",
        "only_controls",
        "blank",
        "wide",
    ],
)
def test_notification_text(raw: str, limit: int, expected: str | None) -> None:
    assert notification_text(raw, limit) == expected


def test_window_title_is_one_printable_line() -> None:
    assert window_title_text("a\x1b]2;b\x07\r\nc") == "a]2;b c"
    assert window_title_text("\x1b") is None
