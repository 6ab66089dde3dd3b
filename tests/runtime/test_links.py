"""The link grammar of ``pane.link.activate`` and the argv built for openers/editors."""

from __future__ import annotations

import pytest

from herdr.runtime.links import (
    MAX_URL_CHARS,
    editor_argv,
    opener_argv,
    safe_web_url,
    url_at_cell,
    url_at_column,
)


def col_of(row: str, needle: str) -> int:
    return row.index(needle)


@pytest.mark.parametrize(
    ("row", "click", "expected"),
    [
        ("see https://example.com/a(b)c.", "example", "https://example.com/a(b)c"),
        ("[docs](https://example.com/docs),", "example", "https://example.com/docs"),
        ("[docs](https://example.com/docs)", "docs", None),
        ("open file:///tmp/report", "file", None),
        ("go http://h.test/x?y=1; then", "h.test", "http://h.test/x?y=1"),
        ("quoted 'https://q.test/p' here", "q.test", "https://q.test/p"),
        ("end https://e.test/x!?", "e.test", "https://e.test/x"),
        ("end https://e.test/x!?", "!?", None),
        ("two https://a.test https://b.test", "b.test", "https://b.test"),
        ("https:// nothing", "https", None),
        ("javascript:alert(1) https://ok.test", "javascript", None),
        ("-x https://ok.test", "-x", None),
        ("", "", None),
    ],
    ids=[
        "balanced-paren-kept-dot-trimmed",
        "markdown-closer-and-comma-trimmed",
        "markdown-label-is-not-a-link",
        "file-url-not-detected",
        "semicolon-trimmed",
        "quotes-trimmed",
        "trailing-bang-question-trimmed",
        "click-on-trimmed-punctuation",
        "second-url-on-the-row",
        "scheme-without-host",
        "javascript-text-is-not-a-link",
        "dash-word-is-not-a-link",
        "empty-row",
    ],
)
def test_url_at_column(row: str, click: str, expected: str | None) -> None:
    col = col_of(row, click) if click else 0
    assert url_at_column(row, col) == expected


def test_wide_characters_count_two_columns() -> None:
    row = "你好 https://w.test/z"
    # "你好" takes columns 0-3, the space column 4, the URL starts at column 5
    assert url_at_column(row, 5) == "https://w.test/z"
    assert url_at_column(row, 4) is None
    assert url_at_column(row, 1) is None


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://example.test/a", True),
        ("http://[::1]:8080/x", True),
        ("https://user@host.test/", True),
        ("javascript:alert(1)", False),
        ("file:///etc/passwd", False),
        ("-x", False),
        ("--help", False),
        ("https://", False),
        ("https:///path", False),
        ("https://a.test/\nb", False),
        ("https://a.test/ b", False),
        ("https://a.test/\x1b]", False),
        ("https://a.test/" + "a" * MAX_URL_CHARS, False),
        ("HTTPS://upper.test/", False),
    ],
    ids=[
        "https",
        "ipv6-host",
        "userinfo",
        "javascript",
        "file",
        "flag",
        "long-flag",
        "no-host",
        "empty-host",
        "newline",
        "space",
        "escape",
        "too-long",
        "uppercase-scheme-as-herdr",
    ],
)
def test_safe_web_url(url: str, safe: bool) -> None:
    assert safe_web_url(url) is safe


@pytest.mark.parametrize(
    ("opener", "url", "argv"),
    [
        ("xdg-open", "https://a.test/", ["xdg-open", "https://a.test/"]),
        (
            "open -a 'Safari Tech'",
            "https://a.test/",
            ["open", "-a", "Safari Tech", "https://a.test/"],
        ),
        ("xdg-open", "https://a.test/$(id);x'`id`", ["xdg-open", "https://a.test/$(id);x'`id`"]),
        ("xdg-open", "-x", None),
        ("xdg-open", "javascript:alert(1)", None),
        ("", "https://a.test/", None),
        ("'unbalanced", "https://a.test/", None),
    ],
    ids=[
        "plain",
        "opener-args",
        "shell-text-stays-one-arg",
        "flag",
        "javascript",
        "empty",
        "bad-quote",
    ],
)
def test_opener_argv(opener: str, url: str, argv: list[str] | None) -> None:
    assert opener_argv(opener, url) == argv


@pytest.mark.parametrize(
    ("env", "argv"),
    [
        ({"EDITOR": "code --wait", "VISUAL": "vim"}, ["code", "--wait", "/p"]),
        ({"EDITOR": "  ", "VISUAL": "nano -w"}, ["nano", "-w", "/p"]),
        ({"EDITOR": "'broken", "VISUAL": "emacs"}, ["emacs", "/p"]),
        ({}, ["vi", "/p"]),
        ({"EDITOR": "ed; rm -rf ~"}, ["ed;", "rm", "-rf", "~", "/p"]),
    ],
    ids=[
        "editor-with-args",
        "blank-editor-uses-visual",
        "unsplittable-uses-visual",
        "vi",
        "no-shell",
    ],
)
def test_editor_argv(env: dict[str, str], argv: list[str]) -> None:
    assert editor_argv(env, "/p") == argv


@pytest.mark.parametrize(
    ("rows", "wraps", "row", "col", "expected"),
    [
        (["go https://w", "rap.test/x y"], {0}, 1, 1, "https://wrap.test/x"),
        (["go https://w", "rap.test/x y"], {0}, 0, 5, "https://wrap.test/x"),
        (["go https://w", "rap.test/x y"], set(), 1, 1, None),
        (["go https://w", "rap.test/x y"], set(), 0, 5, "https://w"),
        (["a https:/", "/b.test/ok", "next"], {0}, 2, 0, None),
        (["tail", "https://c.", "test/more"], {0, 1}, 2, 1, "https://c.test/more"),
        (["x" * 8 + "ht", "tps://d.test"], {0}, 1, 3, "https://d.test"),
    ],
    ids=[
        "click-on-continuation",
        "click-on-first-part",
        "hard-newline-splits",
        "hard-newline-first-part",
        "unrelated-next-row",
        "short-row-padded-to-width",
        "scheme-split-by-wrap",
    ],
)
def test_url_at_cell_joins_soft_wrapped_rows(
    rows: list[str], wraps: set[int], row: int, col: int, expected: str | None
) -> None:
    assert url_at_cell(rows, wraps.__contains__, row, col, 10) == expected
