"""Config health lines (``file:line:col``) and the TUI banner that shows them whole."""

from __future__ import annotations

import re

import pytest

from herdr.client.ansi import ansi_width, strip_ansi
from herdr.client.banner import banner_rows, overlay_banner, wrap
from herdr.client.view import Frame
from herdr.config.health import health_of_text, read_health

HEALTH = [
    pytest.param(None, "missing", [], id="no-file"),
    pytest.param("[ui]\nsidebar_width = 30\n", "ok", [], id="clean"),
    pytest.param(
        "[ui]\nsidebar_widht = 30\n",
        "warning",
        [
            "/c/config.toml:2:1: warning: unknown key ui.sidebar_widht"
            " (did you mean 'ui.sidebar_width'?)"
        ],
        id="unknown-key-did-you-mean",
    ),
    pytest.param(
        "[ui\nsidebar_width = 30\n",
        "error",
        ["/c/config.toml:1:4: error: TOML syntax error: Expected ']'"],
        id="syntax-error-line-col",
    ),
    pytest.param(
        '[ui]\nsidebar_width = "wide"\n',
        "error",
        ["/c/config.toml:2:1: error: ui.sidebar_width = 'wide': expected an integer"],
        id="wrong-type",
    ),
]


@pytest.mark.parametrize(("text", "status", "prefixes"), HEALTH)
def test_health(text: str | None, status: str, prefixes: list[str]) -> None:
    health = health_of_text("/c/config.toml", text)
    assert health.status == status
    lines = health.lines()
    assert len(lines) == len(prefixes)
    for line, prefix in zip(lines, prefixes, strict=True):
        assert line.startswith(prefix), line
    assert health.as_dict()["status"] == status
    if status in ("ok", "missing"):
        assert not health.summary().startswith(("error", "warning"))
    else:
        assert health.summary().startswith(f"{status}: /c/config.toml:")


def test_read_health_of_an_unreadable_file(tmp_path: pytest.TempPathFactory) -> None:
    assert read_health(path="/nonexistent/dir/config.toml").status == "missing"
    broken = f"{tmp_path}/config.toml"
    with open(broken, "wb") as f:
        f.write(b"\xff\xfe not utf-8")
    health = read_health(path=broken)
    assert health.status == "error"
    assert "cannot read the config file" in health.lines()[0]


WRAP = [
    pytest.param("short", 20, ["short"], id="fits"),
    pytest.param("aaaa bbbb cccc", 9, ["aaaa bbbb", "cccc"], id="at-a-space"),
    pytest.param("x" * 25, 10, ["x" * 10, "x" * 10, "x" * 5], id="no-space"),
    pytest.param("", 10, [""], id="empty"),
]


@pytest.mark.parametrize(("text", "width", "want"), WRAP)
def test_wrap(text: str, width: int, want: list[str]) -> None:
    assert wrap(text, width) == want


def test_banner_shows_the_whole_error_on_a_narrow_screen() -> None:
    line = "/home/u/.config/herdr/config.toml:12:7: error: TOML syntax error: Expected ']'"
    rows = banner_rows((line,), 40)
    assert all(ansi_width(r) == 40 for r in rows)
    text = "".join(strip_ansi(r).strip() + " " for r in rows)
    assert re.sub(r"\s+", "", line) in re.sub(r"\s+", "", text)  # nothing cut off


def test_overlay_replaces_only_the_bottom_rows() -> None:
    frame = Frame(80, tuple("." * 80 for _ in range(10)), cursor=(0, 9))
    out = overlay_banner(frame, ("c.toml:1:1: error: bad",))
    assert out.rows[:8] == frame.rows[:8]
    assert "config.toml problems" in strip_ansi(out.rows[8])
    assert "c.toml:1:1: error: bad" in strip_ansi(out.rows[9])
    assert out.cursor is None  # the cursor is not drawn inside the banner
    assert overlay_banner(frame, ()) is frame
