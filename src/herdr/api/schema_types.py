"""Tiny builders for declaring the socket API's JSON schema in Python.

The API schema is written as Python calls (``obj(pane_id=STRING, lines=opt(...))``)
instead of a JSON blob so every shared record is written once, our extensions sit next
to what they extend, and the exported document is generated. References are written
section-free (``ref("PaneInfo")``); :mod:`herdr.api.schema` rewrites them to
``#/schemas/<section>/$defs/<Name>`` when it assembles each exported section.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

Json = dict[str, Any]
"""One schema node (an object; the bare ``true`` schema appears only as a property)."""

LOCAL_REF: Final = "#/$defs/"

STRING: Final[Json] = {"type": "string"}
BOOLEAN: Final[Json] = {"type": "boolean"}
NULL: Final[Json] = {"type": "null"}
FLOAT: Final[Json] = {"type": "number", "format": "float"}
OBJECT: Final[Json] = {"type": "object"}
ANYTHING: Final = True
"""The schema that accepts any value (JSON schema ``true``)."""

_MISSING: Final = object()


def integer(
    fmt: str | None = None, *, minimum: int | None = None, maximum: int | None = None
) -> Json:
    """An integer; unsigned formats imply ``minimum: 0`` unless told otherwise."""
    node: Json = {"type": "integer"}
    if fmt is not None:
        node["format"] = fmt
    if minimum is None and fmt is not None and fmt.startswith("uint"):
        minimum = 0
    if minimum is not None:
        node["minimum"] = minimum
    if maximum is not None:
        node["maximum"] = maximum
    return node


U64: Final = integer("uint64")
U32: Final = integer("uint32")
U16: Final = integer("uint16", maximum=2**16 - 1)
USIZE: Final = integer("uint")
I32: Final = integer("int32")


def string(*, pattern: str | None = None, max_length: int | None = None) -> Json:
    """A string; ``max_length`` (code points, as JSON schema counts) is enforced by the
    params validator."""
    node: Json = {"type": "string"}
    if pattern is not None:
        node["pattern"] = pattern
    if max_length is not None:
        node["maxLength"] = max_length
    return node


def const(value: str) -> Json:
    return {"type": "string", "const": value}


def enum(*values: str) -> Json:
    return {"type": "string", "enum": list(values)}


def ref(name: str) -> Json:
    return {"$ref": LOCAL_REF + name}


def array(items: Json) -> Json:
    return {"type": "array", "items": items}


def string_map(values: Json = STRING, *, max_keys: int | None = None) -> Json:
    """An object used as a map; ``max_keys`` adds the token-name rules (§3.4)."""
    node: Json = {"type": "object", "additionalProperties": values}
    if max_keys is not None:
        node["maxProperties"] = max_keys
        node["propertyNames"] = {"pattern": "^[A-Za-z0-9_-]{1,32}$"}
    return node


def nullable(node: Json) -> Json:
    """``node`` or ``null``: a type list for plain types, ``anyOf`` for refs and unions."""
    kind = node.get("type")
    if isinstance(kind, str) and "enum" not in node and "const" not in node:
        return {**node, "type": [kind, "null"]}
    return {"anyOf": [node, NULL]}


def one_of(*branches: Json) -> Json:
    return {"oneOf": list(branches)}


def any_of(*branches: Json) -> Json:
    return {"anyOf": list(branches)}


def describe(node: Json, text: str) -> Json:
    return {**node, "description": text}


class Opt:
    """Marks an object field as optional (not in ``required``)."""

    __slots__ = ("node",)

    def __init__(self, node: Json | bool) -> None:
        self.node = node


def opt(node: Json | bool, default: Any = _MISSING) -> Opt:
    """An optional field, with the value the server assumes when it is omitted."""
    if default is not _MISSING:
        assert isinstance(node, dict)
        node = {**node, "default": default}
    return Opt(node)


def obj(**fields: Json | bool | Opt) -> Json:
    """An object; fields are required unless wrapped in :func:`opt`, in declared order."""
    props: dict[str, Json | bool] = {}
    required: list[str] = []
    for name, field in fields.items():
        if isinstance(field, Opt):
            props[name] = field.node
        else:
            props[name] = field
            required.append(name)
    node: Json = {"type": "object", "properties": props}
    if required:
        node["required"] = required
    return node


def tagged(key: str, branches: Mapping[str, Json]) -> Json:
    """A ``oneOf`` whose branches pin ``key`` to their tag (the tag is required first)."""
    out: list[Json] = []
    for tag, body in branches.items():
        props = {key: const(tag), **body.get("properties", {})}
        branch: Json = {
            "type": "object",
            "properties": props,
            "required": [key, *body.get("required", [])],
        }
        if "description" in body:
            branch["description"] = body["description"]
        out.append(branch)
    return {"oneOf": out}


def extend(node: Json, **fields: Json | bool | Opt) -> Json:
    """``node`` (an :func:`obj`) with more fields appended."""
    more = obj(**fields)
    return {
        **node,
        "properties": {**node.get("properties", {}), **more["properties"]},
        "required": [*node.get("required", []), *more.get("required", [])],
    }


def without(node: Json, *names: str) -> Json:
    """``node`` (an :func:`obj`) minus some fields."""
    props = {k: v for k, v in node["properties"].items() if k not in names}
    required = [k for k in node.get("required", []) if k not in names]
    out: Json = {**node, "properties": props}
    if required:
        out["required"] = required
    else:
        out.pop("required", None)
    return out


# --- assembly -------------------------------------------------------------------------


def iter_refs(node: Any) -> Iterator[str]:
    """Every ``$ref`` value under ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from iter_refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from iter_refs(item)


def reachable(root: Json, defs: Mapping[str, Json]) -> list[str]:
    """Names of the definitions ``root`` needs, directly or through other definitions."""
    seen: set[str] = set()
    todo = [root]
    while todo:
        for target in iter_refs(todo.pop()):
            name = target.removeprefix(LOCAL_REF)
            if name not in seen:
                seen.add(name)
                todo.append(defs[name])
    return sorted(seen)


def localise(node: Any, prefix: str) -> Any:
    """A deep copy of ``node`` with section-free refs rewritten under ``prefix`` (also
    the targets of a ``discriminator`` mapping, as msgspec writes for tagged unions)."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith(LOCAL_REF):
                out[key] = prefix + value.removeprefix(LOCAL_REF)
            elif key == "mapping" and isinstance(value, dict):
                out[key] = {
                    tag: prefix + target.removeprefix(LOCAL_REF)
                    if isinstance(target, str) and target.startswith(LOCAL_REF)
                    else target
                    for tag, target in value.items()
                }
            else:
                out[key] = localise(value, prefix)
        return out
    if isinstance(node, list):
        return [localise(item, prefix) for item in node]
    return node
