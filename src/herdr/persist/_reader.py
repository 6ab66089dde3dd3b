"""Typed reads from decoded JSON that fail with the JSON path of the bad value.

Shared by the snapshot and history decoders so every error says *where* the file is
wrong (``$.workspaces[0].tabs[1].layout``), not just that it is.
"""

from __future__ import annotations

import math
from typing import NoReturn

from herdr.persist.errors import SnapshotFormatError


def fail(path: str, reason: str) -> NoReturn:
    raise SnapshotFormatError(path, reason)


def key_path(path: str, key: str) -> str:
    """A member of a map-like object: ``$.panes`` + ``12`` -> ``$.panes["12"]``."""
    return f"{path}[{_quote(key)}]"


def _quote(key: str) -> str:
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def index_path(path: str, index: int) -> str:
    return f"{path}[{index}]"


def obj(raw: object, path: str) -> dict[str, object]:
    if not isinstance(raw, dict):
        fail(path, f"expected an object, got {_kind(raw)}")
    return raw


def lst(raw: object, path: str) -> list[object]:
    if not isinstance(raw, list):
        fail(path, f"expected an array, got {_kind(raw)}")
    return raw


def field(doc: dict[str, object], key: str, path: str) -> object:
    """A required member (present; it may still be null)."""
    if key not in doc:
        fail(f"{path}.{key}", "missing")
    return doc[key]


def integer(raw: object, path: str, *, minimum: int = 0) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int):
        fail(path, f"expected an integer, got {_kind(raw)}")
    if raw < minimum:
        fail(path, f"must be at least {minimum}, got {raw}")
    return raw


def opt_integer(raw: object, path: str, *, minimum: int = 0) -> int | None:
    return None if raw is None else integer(raw, path, minimum=minimum)


def number(raw: object, path: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        fail(path, f"expected a number, got {_kind(raw)}")
    value = float(raw)
    if not math.isfinite(value):
        fail(path, "must be finite")
    return value


def boolean(raw: object, path: str) -> bool:
    if not isinstance(raw, bool):
        fail(path, f"expected true or false, got {_kind(raw)}")
    return raw


def string(raw: object, path: str, *, nonempty: bool = False) -> str:
    if not isinstance(raw, str):
        fail(path, f"expected a string, got {_kind(raw)}")
    if nonempty and not raw:
        fail(path, "must not be empty")
    return raw


def opt_string(raw: object, path: str) -> str | None:
    return None if raw is None else string(raw, path)


def int_key(key: str, path: str) -> int:
    """Object keys that stand for numbers: plain decimal, no sign, no padding."""
    if not key.isascii() or not key.isdigit() or (len(key) > 1 and key[0] == "0"):
        fail(key_path(path, key), "key must be a decimal number")
    return int(key)


def _kind(raw: object) -> str:
    if raw is None:
        return "null"
    if isinstance(raw, bool):
        return "a boolean"
    if isinstance(raw, int | float):
        return "a number"
    if isinstance(raw, str):
        return "a string"
    if isinstance(raw, list):
        return "an array"
    if isinstance(raw, dict):
        return "an object"
    return type(raw).__name__
