"""Codex's ``config.toml``: ``[features] hooks = true`` by line edits, pure.

Codex runs ``hooks.json`` only with the ``hooks`` feature on. We touch one line of the
top-level ``[features]`` table and mark it with a trailing comment, so uninstall can
give the file back byte for byte: a line we added is removed (with the ``[features]``
header we added, if we added one), a line we switched on gets its original text back.
No TOML parser exists in the standard library's writer side, so the result is checked
with ``tomllib``: it must parse and hold ``features.hooks = true``.
"""

from __future__ import annotations

import tomllib

ADDED = "# added by herdr integration"
WAS = "# herdr integration; was: "
HEADER_ADDED = "[features] # added by herdr integration"


class TomlEditError(ValueError):
    """The file is not valid TOML (``line`` is 1-based, 0 if unknown)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.line = line


def check(text: str) -> dict[str, object]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlEditError(str(exc), _line_of(str(exc))) from None


def _line_of(message: str) -> int:
    """tomllib says "(at line N, column M)" (``lineno`` exists only from Python 3.14)."""
    _, found, rest = message.partition("at line ")
    digits = rest.split(",", 1)[0].strip()
    return int(digits) if found and digits.isdigit() else 0


def _header(line: str) -> str | None:
    """The table name of a ``[table]`` header line (without any comment), else None."""
    body = line.split("#", 1)[0].strip()
    if body.startswith("[") and body.endswith("]") and not body.startswith("[["):
        return body[1:-1].strip()
    if body.startswith("[["):
        return "[[array]]"
    return None


def _key(line: str) -> str | None:
    body = line.split("#", 1)[0]
    if "=" not in body:
        return None
    return body.split("=", 1)[0].strip().strip('"')


def _split(text: str) -> tuple[list[str], str]:
    nl = "\r\n" if "\r\n" in text else "\n"
    return text.split(nl), nl


def enable_hooks(text: str) -> str:
    """``text`` with ``hooks = true`` in ``[features]`` (unchanged if already on)."""
    before = check(text)
    features = before.get("features")
    if isinstance(features, dict) and features.get("hooks") is True:
        return text
    lines, nl = _split(text)
    table: str | None = None
    header_at: int | None = None
    for i, line in enumerate(lines):
        name = _header(line)
        if name is not None:
            table = name
            if name == "features" and header_at is None:
                header_at = i
            continue
        if table == "features" and _key(line) == "hooks":
            lines[i] = f"hooks = true {WAS}{line}"
            return _checked(nl.join(lines))
    if header_at is not None:
        lines.insert(header_at + 1, f"hooks = true {ADDED}")
        return _checked(nl.join(lines))
    ending = nl if text.endswith(nl) or not text else ""
    body = text[: -len(nl)] if text.endswith(nl) else text
    sep = nl if body else ""
    return _checked(
        f"{body}{sep}{nl if body else ''}{HEADER_ADDED}{nl}hooks = true {ADDED}{ending}"
    )


def disable_hooks(text: str) -> str:
    """Undo :func:`enable_hooks`: only lines carrying our marker change."""
    lines, nl = _split(text)
    out: list[str] = []
    for line in lines:
        if line.endswith(ADDED) and line.startswith("hooks = true"):
            continue
        if line.startswith("hooks = true " + WAS):
            out.append(line[len("hooks = true " + WAS) :])
            continue
        out.append(line)
    if HEADER_ADDED in out:
        at = out.index(HEADER_ADDED)
        rest = out[at + 1 :]
        if not rest or _header(rest[0]) is not None or rest == [""]:
            del out[at]
            if at > 0 and out[at - 1] == "":  # the blank line we put before it
                del out[at - 1]
        else:
            out[at] = "[features]"
    result = nl.join(out)
    check(result)
    return result


def _checked(text: str) -> str:
    doc = check(text)
    features = doc.get("features")
    if not isinstance(features, dict) or features.get("hooks") is not True:
        raise TomlEditError("could not enable [features] hooks safely")
    return text
