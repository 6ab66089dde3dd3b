"""Our generated schema is a superset of herdr's published protocol-22 schema.

A structural diff of :func:`herdr.api.schema.build_schema` against the reference
document (``herdr-api-22.schema.json``): every reference definition, in every section,
exists in ours with the same properties, the same required fields, every enum value,
the same constants and JSON types; union branches are matched by their tag (``method``,
``type``, ``op``, ``event``) rather than by position. Ours may add optional fields,
enum values, branches (our extensions) — never drop or require anything more.
This replaces the protocol-20 reference diff: nothing of protocol 20 is checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from herdr.api.schema import build_schema
from herdr_testing.schema22 import reference

OURS: dict[str, Any] = build_schema()["schemas"]
REFERENCE: dict[str, Any] = reference()["schemas"]
TAGS = ("method", "type", "op", "event")

# Reference definitions we extend under a name of our own (additive fields only; the
# extension must still accept and carry everything the reference one does).
EXTENDED = {("AgentTarget", "AgentExplainParams")}  # agent.explain's include_input


def _types(node: dict[str, Any]) -> set[str]:
    spec = node.get("type")
    if spec is None:
        return set()
    return {spec} if isinstance(spec, str) else set(spec)


def _tag(branch: dict[str, Any]) -> tuple[str, Any] | None:
    """The discriminating constant of a union branch, if it has one."""
    for key in TAGS:
        prop = branch.get("properties", {}).get(key, {})
        if "const" in prop:
            return (key, prop["const"])
        if len(prop.get("enum", ())) == 1:
            return (key, prop["enum"][0])
    return None


def diff(ref: Any, ours: Any, path: str) -> Iterator[str]:
    """Where ``ours`` fails to accept or to carry what ``ref`` declares at ``path``."""
    if not isinstance(ref, dict):
        return
    if not isinstance(ours, dict):
        yield f"{path}: missing in ours"
        return
    if "$ref" in ref:
        name = ref["$ref"].rsplit("/", 1)[-1]
        target = str(ours.get("$ref", "")).rsplit("/", 1)[-1]
        if (name, target) in EXTENDED:
            section = path.split("/", 1)[0]
            base, extended = REFERENCE[section]["$defs"][name], OURS[section]["$defs"][target]
            yield from diff(base, extended, f"{path}>{target}")
        elif name != target:
            yield f"{path}: refers to {name}, ours to {target or 'nothing'}"
    if "required" in ref or "required" in ours:
        theirs, mine_req = set(ref.get("required", ())), set(ours.get("required", ()))
        if theirs - mine_req:
            yield f"{path}: ours does not require {sorted(theirs - mine_req)}"
        if mine_req - theirs:
            yield f"{path}: ours also requires {sorted(mine_req - theirs)}"
    if "enum" in ref:
        missing = [v for v in ref["enum"] if v not in ours.get("enum", ())]
        if missing:
            yield f"{path}: ours lacks enum values {missing}"
    if "const" in ref and ours.get("const", ours.get("enum", [None])[0]) != ref["const"]:
        yield f"{path}: const {ref['const']!r}, ours {ours.get('const')!r}"
    if _types(ref) and _types(ours) and _types(ref) != _types(ours):
        yield f"{path}: type {sorted(_types(ref))}, ours {sorted(_types(ours))}"
    for name, sub in ref.get("properties", {}).items():
        yield from diff(sub, ours.get("properties", {}).get(name), f"{path}.{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(ref.get(key), dict):
            yield from diff(ref[key], ours.get(key), f"{path}.{key}")
    for key in ("oneOf", "anyOf"):
        if key not in ref:
            continue
        branches = ours.get(key)
        if not isinstance(branches, list):
            yield f"{path}: ours has no {key}"
            continue
        tagged = {_tag(b): b for b in branches if _tag(b) is not None}
        for index, branch in enumerate(ref[key]):
            tag = _tag(branch)
            mine: Any = tagged.get(tag) if tag is not None else None
            if tag is None:
                mine = branches[index] if index < len(branches) else None
            label = tag[1] if tag is not None else index
            yield from diff(branch, mine, f"{path}.{key}[{label}]")


NODES = [
    pytest.param(section, name, id=f"{section}/{name or '<root>'}")
    for section, doc in REFERENCE.items()
    for name in ("", *doc["$defs"])
]


@pytest.mark.parametrize(("section", "name"), NODES)
def test_reference_definition_is_in_ours(section: str, name: str) -> None:
    ref = REFERENCE[section]["$defs"][name] if name else REFERENCE[section]
    ours = OURS[section]["$defs"].get(name) if name else OURS[section]
    where = f"{section}/{name or '<root>'}"
    problems = list(diff(ref, ours, where))
    assert not problems, "\n".join(problems)


def test_same_protocol_and_sections() -> None:
    assert reference()["protocol"] == build_schema()["protocol"] == 22
    assert set(REFERENCE) == set(OURS)


# The diff itself catches what it should (a self-test on small hand-made documents).
OBJ: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
CAUGHT = [
    pytest.param(OBJ, {"type": "object", "properties": {}, "required": ["a"]}, "missing in ours",
                 id="dropped-property"),
    pytest.param(OBJ, {**OBJ, "required": []}, "does not require ['a']", id="not-required"),
    pytest.param(OBJ, {**OBJ, "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                       "required": ["a", "b"]}, "also requires ['b']", id="requires-more"),
    pytest.param({"enum": ["x", "y"]}, {"enum": ["x"]}, "lacks enum values ['y']", id="enum"),
    pytest.param({"type": "integer"}, {"type": "string"}, "type ['integer']", id="type"),
    pytest.param({"oneOf": [{"properties": {"type": {"const": "a"}}}]},
                 {"oneOf": [{"properties": {"type": {"const": "b"}}}]}, "missing in ours",
                 id="branch"),
]  # fmt: skip


@pytest.mark.parametrize(("ref", "ours", "message"), CAUGHT)
def test_diff_catches(ref: dict[str, Any], ours: dict[str, Any], message: str) -> None:
    assert any(message in problem for problem in diff(ref, ours, "x")), list(diff(ref, ours, "x"))


def test_diff_allows_additions() -> None:
    ours = {**OBJ, "properties": {**OBJ["properties"], "extra": {"type": "integer"}}}
    assert list(diff(OBJ, ours, "x")) == []
    assert list(diff({"enum": ["x"]}, {"enum": ["x", "y"]}, "x")) == []
