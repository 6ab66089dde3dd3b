"""Every problem of a ``config.toml`` text, judged by the rules herdr's readers apply.

The server and the TUI read the file leniently (a bad value keeps its default, an
unknown key is ignored), so a typo silently does nothing; this module says what each
reader would skip, and why. Pure: text in, problems out (the CLI verb does the I/O).

* a TOML syntax error: one error, with its line and column;
* a key no reader knows: a warning, with the closest known key;
* a value of the wrong type (or outside an enum or range): an error;
* ``[keys]`` entries are judged by the TUI's own binding loader.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

import msgspec

from herdr.client import settings as ui_settings
from herdr.config import server_settings
from herdr.config.reference import KEYS, ConfigKey

Severity = Literal["error", "warning"]

KNOWN: dict[str, ConfigKey] = {item.key: item for item in KEYS}
TABLES: frozenset[str] = frozenset(
    ".".join(item.key.split(".")[:depth])
    for item in KEYS
    for depth in range(1, item.key.count(".") + 1)
)


def _rules(struct: type[msgspec.Struct], keys: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """config key → the reader's msgspec type for it (its range, enum or positivity)."""
    types = {field.name: field.type for field in msgspec.structs.fields(struct)}
    return {key: types[field] for key, field in keys}


# The readers' own typed rules, beyond the reference's type.
_SERVER_RULES = _rules(server_settings.ServerSettings, server_settings.KEYS)
_UI_RULES = _rules(
    ui_settings.UiSettings, tuple((f"ui.{key}", field) for key, field in ui_settings.UI_KEYS)
)
_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")
_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_ASSIGN = re.compile(r"^\s*([A-Za-z0-9_\-.\"' ]+?)\s*=")


@dataclass(frozen=True)
class Problem:
    severity: Severity
    message: str
    key: str | None = None
    line: int | None = None
    column: int | None = None
    suggestion: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def check(text: str) -> list[Problem]:
    """Every problem of the config ``text``, in file order where lines are known."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [_syntax(exc)]
    lines = key_lines(text)
    found = list(_walk(doc, ""))
    placed = [_place(problem, lines) for problem in found]
    return sorted(placed, key=lambda p: (p.line or 0, p.key or ""))


def _syntax(exc: tomllib.TOMLDecodeError) -> Problem:
    line = getattr(exc, "lineno", None)
    column = getattr(exc, "colno", None)
    message = str(getattr(exc, "msg", "") or exc)
    matched = _POSITION.search(str(exc))
    if matched and line is None:
        line, column = int(matched.group(1)), int(matched.group(2))
    message = _POSITION.sub("", message).strip()
    return Problem("error", f"TOML syntax error: {message}", line=line, column=column)


def key_lines(text: str) -> dict[str, int]:
    """Dotted key → the line (1-based) that sets or opens it, from a light scan."""
    found: dict[str, int] = {}
    table = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(raw)
        if header:
            table = _unquote(header.group(1))
            found.setdefault(table, number)
            continue
        assign = _ASSIGN.match(raw)
        if assign:
            key = _unquote(assign.group(1))
            found.setdefault(f"{table}.{key}" if table else key, number)
    return found


def _unquote(dotted: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in dotted.split("."))


def _place(problem: Problem, lines: Mapping[str, int]) -> Problem:
    """The problem with the line of its key (or of the nearest enclosing table)."""
    key = problem.key
    while key:
        if key in lines:
            return Problem(**{**problem.as_dict(), "line": lines[key], "column": 1})
        key = key.rpartition(".")[0]
    return problem


def suggestion(dotted: str) -> str | None:
    """The known key or table closest to ``dotted``: a sibling first, then any."""
    parent = dotted.rpartition(".")[0]
    names = [*KNOWN, *TABLES]
    siblings = [name for name in names if name.rpartition(".")[0] == parent]
    for pool in (siblings, names):
        close = difflib.get_close_matches(dotted, pool, n=1, cutoff=0.6)
        if close:
            return close[0]
    return None


def _walk(node: Mapping[str, Any], prefix: str) -> Iterator[Problem]:
    for name, value in node.items():
        dotted = f"{prefix}{name}"
        if dotted == "keys":
            yield from _keys(value)
        elif dotted in KNOWN:
            yield from _value(KNOWN[dotted], value)
        elif dotted in TABLES:
            if isinstance(value, Mapping):
                yield from _walk(value, f"{dotted}.")
            else:
                yield Problem("error", f"{dotted} must be a table", key=dotted)
        else:
            close = suggestion(dotted)
            hint = f" (did you mean {close!r}?)" if close else ""
            message = f"unknown key {dotted}{hint}; herdr ignores it"
            yield Problem("warning", message, key=dotted, suggestion=close)


def _keys(value: Any) -> Iterator[Problem]:
    """``[keys]``: exactly what the TUI's binding loader reports (and skips)."""
    if not isinstance(value, Mapping):
        yield Problem("error", "keys must be a table", key="keys")
        return
    from herdr.client.bindings import load_bindings

    _, errors = load_bindings(value)
    for error in errors:
        unknown = error.message.startswith("unknown")
        close = _did_you_mean(error.message)
        if close is not None:  # the loader names the action; say the whole key
            close = f"{error.path.rpartition('.')[0]}.{close}"
        yield Problem(
            "warning" if unknown else "error",
            f"{error.path} = {error.value!r}: {error.message}",
            key=error.path,
            suggestion=close,
        )


def _did_you_mean(message: str) -> str | None:
    matched = re.search(r"did you mean '([^']+)'", message)
    return matched.group(1) if matched else None


_TYPE_NAMES = {
    bool: "a boolean",
    int: "an integer",
    str: "a string",
    list: "an array",
    dict: "a table",
}


def _value(item: ConfigKey, value: Any) -> Iterator[Problem]:
    problem = _type_problem(item, value)
    if problem is None:
        rule = _SERVER_RULES.get(item.key) or _UI_RULES.get(item.key)
        if rule is not None:
            try:
                msgspec.convert(value, rule, strict=True)
            except msgspec.ValidationError as exc:
                problem = _friendly(str(exc).removesuffix(" - at `$`"))
    if problem is not None:
        yield Problem(
            "error", f"{item.key} = {value!r}: {problem}; herdr uses the default", key=item.key
        )


def _friendly(message: str) -> str:
    """msgspec's ``Expected `int` >= 1`` as ``expected an integer >= 1``."""
    for spelled, said in (("`int`", "an integer"), ("`str`", "a string"), ("`bool`", "a boolean")):
        message = message.replace(f"Expected {spelled}", f"expected {said}")
    return message


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _rows(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(row, list) and all(isinstance(token, str) for token in row) for row in value
    )


def _type_problem(item: ConfigKey, value: Any) -> str | None:
    """Why ``value`` is not of the reference type of ``item`` (``None``: it is)."""
    kind = item.type
    if kind == "boolean":
        ok = isinstance(value, bool)
    elif kind == "integer":
        ok = _is_int(value)
    elif kind in ("string", "path", "color", "keybinding"):
        ok = isinstance(value, str)
    elif kind == "enum":
        if not isinstance(value, str):
            return f"expected one of {', '.join(item.values)}"
        if value not in item.values:
            close = difflib.get_close_matches(value, item.values, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            return f"expected one of {', '.join(item.values)}{hint}"
        return None
    elif kind == "list of strings":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    elif kind == "list of token rows":
        ok = _rows(value)
    elif kind == "table of token rows":
        ok = isinstance(value, Mapping) and all(_rows(v) for v in value.values())
    elif kind == "array":
        ok = isinstance(value, list)
    else:  # a type this checker does not know: accept what TOML parsed
        return None
    return None if ok else f"expected {_expected(kind)}, got {_type_name(value)}"


def _expected(kind: str) -> str:
    return {
        "boolean": "a boolean",
        "integer": "an integer",
        "list of strings": "an array of strings",
        "list of token rows": "an array of arrays of strings",
        "table of token rows": "a table of arrays of arrays of strings",
        "array": "an array",
    }.get(kind, "a string")


def _type_name(value: Any) -> str:
    for kind, name in _TYPE_NAMES.items():
        if type(value) is kind:
            return name
    return type(value).__name__


def counts(problems: list[Problem]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = sum(1 for p in problems if p.severity == "error")
    return errors, len(problems) - errors


__all__ = ["KNOWN", "TABLES", "Problem", "check", "counts", "key_lines"]
