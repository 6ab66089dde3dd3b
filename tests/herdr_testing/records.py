"""``replace`` for the value types of both kinds the code uses: msgspec Structs (most
frozen values) and dataclasses (mutable state, and the few with per-field options)."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

import msgspec

T = TypeVar("T")


def replace(obj: T, **changes: Any) -> T:
    """A copy of ``obj`` with ``changes``, whichever of the two kinds it is."""
    if isinstance(obj, msgspec.Struct):
        return msgspec.structs.replace(obj, **changes)
    return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
