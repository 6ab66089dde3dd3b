"""A value type put into a record as is encodes the same whether it is a msgspec Struct
or a dataclass (orjson writes dataclasses itself; Structs go through ``struct_fields``)."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from herdr.runtime.rect import Rect
from herdr.server.core import encode


class Inner(msgspec.Struct, frozen=True):
    name: str
    sizes: tuple[int, ...] = ()


class Outer(msgspec.Struct, frozen=True):
    inner: Inner
    rect: Rect
    note: str | None = None


@dataclasses.dataclass(frozen=True)
class InnerDc:
    name: str
    sizes: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True)
class OuterDc:
    inner: InnerDc
    rect: Rect
    note: str | None = None


def test_a_struct_encodes_as_the_dataclass_did() -> None:
    rect = Rect(1, 2, 3, 4)
    struct = {"value": Outer(Inner("a", (1, 2)), rect), "list": [Inner("b")]}
    dataclass = {"value": OuterDc(InnerDc("a", (1, 2)), rect), "list": [InnerDc("b")]}
    assert encode(struct) == encode(dataclass)
    assert encode(struct).endswith(b"\n")


def test_anything_else_unknown_is_still_refused() -> None:
    with pytest.raises(TypeError):
        encode({"x": object()})
