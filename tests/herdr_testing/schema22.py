"""Strict validation against herdr's published protocol-22 schema (not our own copy).

The reference document lives beside the repository (``../shared/reference``); results
are checked with ``jsonschema`` (draft 2020-12) plus the integer formats herdr's schema
uses (``uint16``, ``uint64``, …), so a test that passes here is a result a protocol-22
tool can read: right types, required fields present, enum values known.
"""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REFERENCE = os.path.join(os.path.dirname(ROOT), "shared", "reference", "herdr-api-22.schema.json")

_URN = "urn:herdr-api-22"

_INT_FORMATS = {
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
    "uint": (0, 2**64 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}


def _formats() -> FormatChecker:
    checker = FormatChecker()
    for name, (low, high) in _INT_FORMATS.items():

        def check(value: object, low: int = low, high: int = high) -> bool:
            if not isinstance(value, int) or isinstance(value, bool):
                return True  # the "type" keyword judges non-integers
            return low <= value <= high

        checker.checks(name)(check)
    return checker


@cache
def reference() -> dict[str, Any]:
    with open(REFERENCE, encoding="utf-8") as handle:
        doc: dict[str, Any] = json.load(handle)
    return doc


@cache
def _registry() -> Registry[Any]:
    registry: Registry[Any] = Registry().with_resource(_URN, Resource.from_contents(reference()))
    return registry


@cache
def _validator(pointer: str) -> Draft202012Validator:
    """A validator for the node at ``pointer`` (a JSON pointer into the reference)."""
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": _URN + pointer}
    return Draft202012Validator(schema, registry=_registry(), format_checker=_formats())


def _branch(result: Any) -> str | None:
    """The pointer of the ResponseResult branch whose ``type`` const ``result`` names."""
    if not isinstance(result, dict):
        return None
    branches = reference()["schemas"]["success_response"]["$defs"]["ResponseResult"]["oneOf"]
    for index, branch in enumerate(branches):
        tag = branch.get("properties", {}).get("type", {})
        if result.get("type") in (tag.get("const"), *tag.get("enum", ())):
            return f"#/schemas/success_response/$defs/ResponseResult/oneOf/{index}"
    return None


def _messages(validator: Draft202012Validator, value: Any) -> list[str]:
    return [
        f"{'/'.join(str(p) for p in error.absolute_path) or '<root>'}: {error.message}"
        for error in sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    ]


def problems(result: Any, definition: str = "ResponseResult") -> list[str]:
    """Why ``result`` is not a valid protocol-22 ``definition`` (empty: it is).

    For ``ResponseResult`` the branch named by ``type`` is checked first, so the
    reasons name the field at fault instead of "not valid under any of the schemas".
    """
    if definition == "ResponseResult":
        branch = _branch(result)
        if branch is None:
            tag = result.get("type") if isinstance(result, dict) else None
            return [f"<root>: no protocol-22 result has type {tag!r}"]
        found = _messages(_validator(branch), result)
        if found:
            return found
    return _messages(_validator(f"#/schemas/success_response/$defs/{definition}"), result)


def assert_valid_result(result: Any, definition: str = "ResponseResult") -> None:
    """Fail with every reason when ``result`` would not parse in a protocol-22 client."""
    found = problems(result, definition)
    assert not found, f"not a valid protocol-22 {definition}: {found}\n{result!r}"


def assert_valid_response(line: dict[str, Any]) -> None:
    """A whole response envelope: a success or an error, as herdr's schema spells it."""
    section = "error_response" if "error" in line else "success_response"
    errors = _messages(_validator(f"#/schemas/{section}"), line)
    if section == "success_response" and not errors:
        errors = problems(line.get("result"))
    assert not errors, f"not a valid protocol-22 {section}: {errors}\n{line!r}"


def section_problems(value: Any, section: str) -> list[str]:
    """Why ``value`` is not a valid document of the reference's ``section`` (empty: it is)."""
    return _messages(_validator(f"#/schemas/{section}"), value)


def assert_valid_request(line: dict[str, Any]) -> None:
    """A whole request (id, method, params) that herdr 0.9 itself would accept."""
    errors = section_problems(line, "request")
    if errors:  # name the method's own params branch, not "not valid under any of"
        for index, branch in enumerate(reference()["schemas"]["request"]["oneOf"]):
            if branch["properties"]["method"].get("const") == line.get("method"):
                pointer = f"#/schemas/request/oneOf/{index}"
                errors = _messages(_validator(pointer), line) or errors
    assert not errors, f"not a valid protocol-22 request: {errors}\n{line!r}"


def assert_valid_event(line: dict[str, Any]) -> None:
    """A pushed event line: a global ``event`` or a filtered ``subscription_event``."""
    filtered = reference()["schemas"]["subscription_event"]["$defs"]["SubscriptionEventKind"]
    section = "subscription_event" if line.get("event") in filtered["enum"] else "event"
    errors = section_problems(line, section)
    data = line.get("data")
    if errors and section == "event" and isinstance(data, dict):  # the data's own branch
        branches = reference()["schemas"]["event"]["$defs"]["EventData"]["oneOf"]
        for index, branch in enumerate(branches):
            if branch.get("properties", {}).get("type", {}).get("const") == data.get("type"):
                pointer = f"#/schemas/event/$defs/EventData/oneOf/{index}"
                errors = [f"data/{e}" for e in _messages(_validator(pointer), data)] or errors
    assert not errors, f"not a valid protocol-22 {section}: {errors}\n{line!r}"


__all__ = [
    "assert_valid_event",
    "assert_valid_request",
    "assert_valid_response",
    "assert_valid_result",
    "jsonschema",
    "problems",
    "reference",
    "section_problems",
]
