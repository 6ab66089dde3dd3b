"""The schema builders produce the JSON-schema nodes the validator and exporters expect."""

from __future__ import annotations

from typing import Any

import pytest

from herdr.api.schema_types import (
    BOOLEAN,
    NULL,
    STRING,
    U16,
    U64,
    array,
    enum,
    extend,
    integer,
    localise,
    nullable,
    obj,
    opt,
    reachable,
    ref,
    tagged,
    without,
)


@pytest.mark.parametrize(
    ("node", "expected"),
    [
        (integer("uint32"), {"type": "integer", "format": "uint32", "minimum": 0}),
        (integer("int32"), {"type": "integer", "format": "int32"}),
        (integer(minimum=1, maximum=9), {"type": "integer", "minimum": 1, "maximum": 9}),
        (U16, {"type": "integer", "format": "uint16", "minimum": 0, "maximum": 65535}),
        (nullable(STRING), {"type": ["string", "null"]}),
        (nullable(U64), {"type": ["integer", "null"], "format": "uint64", "minimum": 0}),
        (nullable(array(STRING)), {"type": ["array", "null"], "items": STRING}),
        (nullable(ref("X")), {"anyOf": [{"$ref": "#/$defs/X"}, NULL]}),
        (nullable(enum("a")), {"anyOf": [{"type": "string", "enum": ["a"]}, NULL]}),
    ],
)
def test_leaf_builders(node: dict[str, Any], expected: dict[str, Any]) -> None:
    assert node == expected


def test_obj_keeps_order_and_marks_optional_fields() -> None:
    node = obj(b=STRING, a=opt(BOOLEAN, default=False), c=U64)
    assert list(node["properties"]) == ["b", "a", "c"]
    assert node["required"] == ["b", "c"]
    assert node["properties"]["a"] == {"type": "boolean", "default": False}
    assert "required" not in obj(x=opt(STRING))


def test_extend_and_without() -> None:
    base = obj(a=STRING, b=opt(STRING))
    assert extend(base, c=BOOLEAN)["required"] == ["a", "c"]
    assert without(base, "a") == {"type": "object", "properties": {"b": STRING}}


def test_tagged_pins_the_tag_first() -> None:
    union = tagged("op", {"not": obj(filter=ref("F")), "all": obj()})
    first, second = union["oneOf"]
    assert first["required"] == ["op", "filter"]
    assert list(first["properties"]) == ["op", "filter"]
    assert second["properties"]["op"] == {"type": "string", "const": "all"}


def test_reachable_follows_refs_transitively_and_localise_rewrites_them() -> None:
    defs = {"A": obj(b=ref("B")), "B": array(ref("A")), "C": STRING}
    assert reachable(obj(x=ref("A")), defs) == ["A", "B"]
    assert localise(defs["A"], "#/schemas/s/$defs/") == obj(b={"$ref": "#/schemas/s/$defs/B"})
    assert defs["A"] == obj(b=ref("B"))  # the declaration itself is untouched
