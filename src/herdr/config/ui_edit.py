"""Setting one simple ``[ui]`` value in config.toml by a minimal textual edit (PURE).

Only the value's characters change (or one line is added): comments, spacing, key
order and every other table stay byte for byte. The result is parsed again and refused
unless it parses and holds exactly the new value, so a file we cannot edit safely (a
dotted ``ui.x`` key, a multi-line value, a syntax error) is never made worse.
"""

from __future__ import annotations

import json
import re
import tomllib

Value = bool | int | str

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$")
_VALUE = r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[^\s#]+'


class EditError(ValueError):
    """The edit cannot be made safely; the message says why."""


def toml_value(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False)  # a TOML basic string


def set_ui_value(text: str, key: str, value: Value) -> str:
    """``text`` with ``[ui].key`` set to ``value``; raises `EditError` when it can't."""
    if not re.fullmatch(r"[A-Za-z0-9_-]+", key):
        raise EditError(f"{key!r} is not a simple key")
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise EditError(f"config.toml does not parse: {exc}") from exc
    lines = text.splitlines(keepends=True)
    new = toml_value(value)
    line_re = re.compile(rf"^(\s*{re.escape(key)}\s*=\s*)({_VALUE})(.*)$", re.DOTALL)
    ui_at: int | None = None
    last_key: int | None = None
    in_ui = False
    for i, line in enumerate(lines):
        header = _HEADER.match(line)
        if header:
            in_ui = header.group(1) == "ui" and not line.lstrip().startswith("[[")
            if in_ui:
                ui_at = last_key = i
            continue
        if not in_ui:
            continue
        if line.strip() and not line.lstrip().startswith("#"):
            last_key = i
        found = line_re.match(line)
        if found:
            lines[i] = found.group(1) + new + found.group(3)
            return _checked("".join(lines), key, value)
    if ui_at is None:
        sep = "" if not text or text.endswith("\n") else "\n"
        blank = "\n" if text.strip() else ""
        return _checked(f"{text}{sep}{blank}[ui]\n{key} = {new}\n", key, value)
    assert last_key is not None
    at = last_key + 1
    if not lines[last_key].endswith("\n"):
        lines[last_key] += "\n"
    lines.insert(at, f"{key} = {new}\n")
    return _checked("".join(lines), key, value)


def _checked(text: str, key: str, value: Value) -> str:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise EditError(f"the edit would break config.toml: {exc}") from exc
    ui = doc.get("ui")
    got = ui.get(key) if isinstance(ui, dict) else None
    if got != value or type(got) is not type(value):
        raise EditError(f"ui.{key} is not a plain line in [ui]; edit config.toml by hand")
    return text
