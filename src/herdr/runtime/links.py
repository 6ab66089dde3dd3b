"""Links in terminal text and the argv that opens them (pure).

herdr finds the link under a cell in two ways: an OSC 8 hyperlink the program printed
(the emulator knows it), else a plain ``http://``/``https://`` token in the row's text,
trimmed of trailing sentence punctuation and unbalanced closing brackets. Only web URLs
are ever handed to an opener, always as one argv element after the opener's own words,
never through a shell: a link is text a program printed, i.e. untrusted.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence

from herdr.runtime.cell_width import wcwidth

__all__ = [
    "MAX_URL_CHARS",
    "editor_argv",
    "opener_argv",
    "safe_web_url",
    "url_at_cell",
    "url_at_column",
]

MAX_URL_CHARS = 8192
_SCHEMES = ("http://", "https://")
_TRAIL = frozenset("\"'`.,;:!?")
_PAIRS = {")": "(", "]": "[", "}": "{"}


def safe_web_url(url: str) -> bool:
    """An ``http(s)://`` URL with a host, no whitespace or control characters, bounded.

    This is the only kind of link herdr opens; ``javascript:``, ``file:``, a leading
    ``-`` (which an opener would read as a flag) and anything else is refused.
    """
    if not url or len(url) > MAX_URL_CHARS or not url.startswith(_SCHEMES):
        return False
    if any(ch.isspace() or ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in url):
        return False
    rest = url.split("://", 1)[1]
    authority = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    host = authority.rsplit("@", 1)[-1]
    host = host[1:].split("]", 1)[0] if host.startswith("[") else host.split(":", 1)[0]
    return bool(host)


def _cells(row: str) -> list[tuple[str, int, int]]:
    """(char, first column, last column) for each character of ``row``."""
    out: list[tuple[str, int, int]] = []
    col = 0
    for ch in row:
        width = wcwidth(ch)
        width = 1 if width < 0 else width
        if width == 0:
            start = max(0, col - 1)
            out.append((ch, start, start))
            continue
        out.append((ch, col, col + width - 1))
        col += width
    return out


def _trim(chars: list[str]) -> list[str]:
    """Drop trailing punctuation and closers that do not balance an opener in the URL."""
    end = len(chars)
    while end > 0:
        ch = chars[end - 1]
        if ch in _TRAIL:
            end -= 1
            continue
        opener = _PAIRS.get(ch)
        if opener is not None:
            body = chars[: end - 1]
            if body.count(opener) <= body.count(ch):
                end -= 1
                continue
        break
    return chars[:end]


def url_at_column(row: str, col: int) -> str | None:
    """The web URL in ``row`` covering display column ``col``, or None."""
    cells = _cells(row)
    index = next((i for i, (_, a, b) in enumerate(cells) if a <= col <= b), None)
    if index is None:
        return None
    text = "".join(ch for ch, _, _ in cells)
    start = 0
    while start < len(cells):
        if not text.startswith(_SCHEMES, start):
            start += 1
            continue
        end = start
        while end + 1 < len(cells) and not cells[end + 1][0].isspace():
            end += 1
        if start <= index <= end:
            kept = _trim([ch for ch, _, _ in cells[start : end + 1]])
            if index >= start + len(kept):
                return None
            url = "".join(kept)
            return url if safe_web_url(url) else None
        start = end + 1
    return None


def _pad(row: str, cols: int) -> str:
    width = sum(max(0, wcwidth(ch)) for ch in row)
    return row + " " * max(0, cols - width)


def url_at_cell(
    rows: Sequence[str], wraps: Callable[[int], bool], row: int, col: int, cols: int
) -> str | None:
    """The web URL covering viewport cell (``col``, ``row``), rows that soft-wrap
    (``wraps(i)``: row i continues on row i+1) joined first, as herdr reads the
    visible text: a URL broken over two rows by the terminal width is still one URL."""
    if not 0 <= row < len(rows):
        return None
    first = row
    while first > 0 and wraps(first - 1):
        first -= 1
    last = row
    while last + 1 < len(rows) and wraps(last):
        last += 1
    line = "".join(_pad(rows[i], cols) for i in range(first, last)) + rows[last]
    return url_at_column(line, (row - first) * cols + col)


def opener_argv(opener: str, url: str) -> list[str] | None:
    """``opener`` split like a shell would (``open -a Safari``) plus ``url`` as one
    element; None when the URL is not a safe web URL or the opener is unusable."""
    if not safe_web_url(url):
        return None
    try:
        words = shlex.split(opener)
    except ValueError:
        return None
    if not words:
        return None
    return [*words, url]


def editor_argv(env: Mapping[str, str], path: str) -> list[str]:
    """``$EDITOR`` (else ``$VISUAL``, else ``vi``) split into words, then ``path``.

    ``code --wait`` becomes ``["code", "--wait", path]``; a value that does not split
    (an unbalanced quote) or is blank falls through to the next candidate.
    """
    for name in ("EDITOR", "VISUAL"):
        value = env.get(name, "")
        if not value.strip():
            continue
        try:
            words = shlex.split(value)
        except ValueError:
            continue
        if words:
            return [*words, path]
    return ["vi", path]
