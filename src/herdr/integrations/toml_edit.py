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


# --- Kimi Code: a managed block of [[hooks]] tables ------------------------------------

KIMI_BEGIN = "# >>> herdr kimi integration"
KIMI_END = "# <<< herdr kimi integration"
KIMI_ENTRIES: tuple[tuple[str, str | None, str], ...] = (
    ("SessionStart", None, "session"),
    ("UserPromptSubmit", None, "working"),
    ("PreToolUse", "^(?!AskUserQuestion$).*$", "working"),
    ("PreToolUse", "^AskUserQuestion$", "blocked"),
    ("PostToolUse", "^AskUserQuestion$", "working"),
    ("PostToolUseFailure", "^AskUserQuestion$", "working"),
    ("SubagentStart", None, "working"),
    ("PreCompact", None, "working"),
    ("PermissionRequest", None, "blocked"),
    ("PermissionResult", None, "working"),
    ("Stop", None, "idle"),
    ("Interrupt", None, "idle"),
)


def _basic(value: str) -> str:
    """A TOML basic string (JSON's escapes are all valid TOML escapes)."""
    import json

    return json.dumps(value, ensure_ascii=False)


def kimi_block(commands: dict[str, str], nl: str = "\n") -> str:
    """The managed block; ``commands`` maps an action to its exact hook command."""
    lines = [KIMI_BEGIN]
    for event, matcher, action in KIMI_ENTRIES:
        lines.append("[[hooks]]")
        lines.append(f"event = {_basic(event)}")
        if matcher is not None:
            lines.append(f"matcher = {_basic(matcher)}")
        lines.append(f"command = {_basic(commands[action])}")
        lines.append("timeout = 10")
        lines.append("")
    lines.append(KIMI_END)
    return nl.join(lines) + nl


def _without_block(text: str) -> tuple[str, bool]:
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    inside = found = False
    for line in lines:
        if not inside and line.strip() == KIMI_BEGIN:
            inside = found = True
            continue
        if inside:
            if line.strip() == KIMI_END:
                inside = False
            continue
        out.append(line)
    return "".join(out), found


def set_kimi_block(text: str, block: str) -> str:
    check(text)
    rest, _ = _without_block(text)
    nl = "\r\n" if "\r\n" in text else "\n"
    rest = rest.rstrip("\r\n")
    after = (rest + nl + nl if rest else "") + block
    doc = check(after)
    hooks = doc.get("hooks")
    ours = [h for h in hooks if isinstance(h, dict)] if isinstance(hooks, list) else []
    if len(ours) < len(KIMI_ENTRIES):
        raise TomlEditError("could not add the herdr kimi hooks safely")
    return text if after == text else after


def remove_kimi_block(text: str) -> str:
    rest, found = _without_block(text)
    if not found:
        return text
    nl = "\r\n" if "\r\n" in text else "\n"
    rest = rest.rstrip("\r\n")
    result = rest + nl if rest else ""
    check(result)
    return result
