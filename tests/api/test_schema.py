"""The generated API schema: self-contained, in step with the server and the protocol."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from herdr.api import attach_messages, protocol
from herdr.api.schema import build_schema, method_params_refs, request_defs, summary
from herdr.api.schema_types import iter_refs
from herdr.cli.api import run_schema
from herdr.server.methods import build_table
from herdr.server.methods_attach import ATTACH_METHOD

DOC = build_schema()
SCHEMAS: dict[str, Any] = DOC["schemas"]
ATTACH: dict[str, Any] = DOC["extensions"]["attach_stream"]
# every self-contained section: herdr's, then our extensions
SECTIONS: dict[str, Any] = {
    **{f"schemas/{key}": node for key, node in SCHEMAS.items()},
    **{f"extensions/{key}": node for key, node in DOC["extensions"].items()},
}


def _resolve(doc: Any, pointer: str) -> Any:
    assert pointer.startswith("#/"), pointer
    node = doc
    for part in pointer[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _consts(union: dict[str, Any], key: str) -> list[Any]:
    return [branch["properties"][key]["const"] for branch in union["oneOf"]]


def _strings(node: Any, key: str) -> Iterator[str]:
    """Every string value stored under ``key`` (skipping property *names*)."""
    if isinstance(node, dict):
        for name, value in node.items():
            if name == key and isinstance(value, str):
                yield value
            elif name == "properties" and isinstance(value, dict):
                for sub in value.values():
                    yield from _strings(sub, key)
            else:
                yield from _strings(value, key)
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item, key)


def test_top_level() -> None:
    assert DOC["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert DOC["protocol"] == protocol.PROTOCOL_VERSION == 22
    assert DOC["schema_version"] == protocol.SCHEMA_VERSION == 1
    assert DOC["title"]
    assert set(SCHEMAS) == {
        "request",
        "success_response",
        "error_response",
        "event",
        "subscription_event",
    }
    assert set(DOC["extensions"]) == {"attach_stream"}


def _mapping_targets(node: Any) -> Iterator[str]:
    """The targets of every ``discriminator`` mapping under ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "discriminator":
                yield from value["mapping"].values()
            else:
                yield from _mapping_targets(value)
    elif isinstance(node, list):
        for item in node:
            yield from _mapping_targets(item)


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_every_ref_resolves_inside_its_section(section: str) -> None:
    refs = [*iter_refs(SECTIONS[section]), *_mapping_targets(SECTIONS[section])]
    assert refs
    for target in refs:
        assert target.startswith(f"#/{section}/$defs/"), target
        assert isinstance(_resolve(DOC, target), dict)


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_sections_carry_only_what_they_reach(section: str) -> None:
    used = {target.rsplit("/", 1)[-1] for target in iter_refs(SECTIONS[section])}
    assert set(SECTIONS[section]["$defs"]) == used


@pytest.mark.parametrize(
    ("union", "messages"),
    [
        ("ClientMessage", attach_messages.CLIENT_MESSAGES),
        ("ServerMessage", attach_messages.SERVER_MESSAGES),
    ],
    ids=["client-to-server", "server-to-client"],
)
def test_attach_extension_lists_every_message(
    union: str, messages: tuple[type[msgspec.Struct], ...]
) -> None:
    defs = ATTACH["$defs"]
    mapping = defs[union]["discriminator"]["mapping"]
    assert defs[union]["discriminator"]["propertyName"] == "t"
    assert list(mapping) == [cls.__struct_config__.tag for cls in messages]
    for cls in messages:
        node = defs[cls.__name__]
        assert mapping[node["properties"]["t"]["enum"][0]].endswith(f"/$defs/{cls.__name__}")
        assert node["description"], cls.__name__  # documented, from the struct's docstring
    # the stream is any of: the attach request, its answer, or a message either way
    assert [branch["$ref"].rsplit("/", 1)[-1] for branch in ATTACH["anyOf"]] == [
        "AttachRequest",
        "AttachResponse",
        "ClientMessage",
        "ServerMessage",
    ]
    request = defs["AttachRequest"]["properties"]
    assert request["method"]["const"] == ATTACH_METHOD


def test_shared_definitions_have_one_shape() -> None:
    seen: dict[str, str] = {}
    for section, schema in SCHEMAS.items():
        for name, node in schema["$defs"].items():
            text = json.dumps(node, sort_keys=True).replace(f"#/schemas/{section}/", "#/")
            assert seen.setdefault(name, text) == text, name


def test_request_branches_name_known_methods() -> None:
    branches = SCHEMAS["request"]["oneOf"]
    methods = _consts(SCHEMAS["request"], "method")
    assert methods == list(protocol.METHODS)
    for branch in branches:
        assert branch["required"] == ["method", "params"]
    assert method_params_refs() == {
        branch["properties"]["method"]["const"]: branch["properties"]["params"]["$ref"].rsplit(
            "/", 1
        )[-1]
        for branch in branches
    }


def test_every_served_method_has_params() -> None:
    refs = method_params_refs()
    defs = request_defs()
    served = set(build_table())
    for method in sorted(served - {ATTACH_METHOD}):
        assert refs[method] in defs, method
    # The TUI's attach stream is internal: served, never part of the published API.
    assert ATTACH_METHOD in served
    assert ATTACH_METHOD not in refs


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (
            lambda: SCHEMAS["event"]["$defs"]["EventKind"]["enum"],
            [
                *protocol.EVENT_KINDS,
                protocol.EVENTS_LOST,
                protocol.SUBSCRIPTION_LAGGED,
                protocol.SUBSCRIPTION_ENDED,
            ],
        ),
        (
            lambda: _consts(SCHEMAS["event"]["$defs"]["EventData"], "type"),
            [
                *protocol.EVENT_KINDS,
                protocol.EVENTS_LOST,
                protocol.SUBSCRIPTION_LAGGED,
                protocol.SUBSCRIPTION_ENDED,
            ],
        ),
        (
            lambda: sorted(_consts(request_defs()["Subscription"], "type")),
            sorted(protocol.SUBSCRIPTION_TYPES),
        ),
        (
            lambda: sorted(_consts(request_defs()["EventMatch"], "event")),
            sorted(protocol.WAITABLE_EVENTS),
        ),
        (
            lambda: SCHEMAS["subscription_event"]["$defs"]["SubscriptionEventKind"]["enum"],
            list(protocol.FILTERED_SUBSCRIPTIONS),
        ),
    ],
    ids=["event-kinds", "event-data", "subscriptions", "wait-matches", "filtered-kinds"],
)
def test_event_vocabulary_matches_protocol(values: Any, expected: list[str]) -> None:
    assert values() == expected


def test_result_types_are_unique() -> None:
    tags = _consts(SCHEMAS["success_response"]["$defs"]["ResponseResult"], "type")
    assert len(tags) == len(set(tags))
    assert {"pong", "ok", "subscription_started", "wait_matched"} <= set(tags)


@pytest.mark.parametrize(
    ("where", "field"),
    [
        (("event",), "seq"),
        (("subscription_event",), "seq"),
        (("success_response", "$defs", "EventEnvelope"), "seq"),
        (("request", "$defs", "EventsSubscribeParams"), "since_seq"),
        (("request", "$defs", "EventsWaitParams"), "since_seq"),
        (("request", "$defs", "AgentExplainParams"), "include_input"),
    ],
)
def test_extensions_are_optional_fields(where: tuple[str, ...], field: str) -> None:
    node: Any = SCHEMAS
    for part in where:
        node = node[part]
    assert field in node["properties"]
    assert field not in node.get("required", [])


def test_descriptions_are_short() -> None:
    texts = list(_strings(DOC, "description"))
    assert texts
    assert all(len(text) <= 100 for text in texts), [t for t in texts if len(t) > 100]


def test_build_schema_returns_a_fresh_copy() -> None:
    doc = build_schema()
    doc["schemas"]["request"]["$defs"].clear()
    assert build_schema() == DOC
    assert request_defs()


def test_summary_lists_every_method() -> None:
    text = summary(DOC)
    assert text.splitlines()[0].startswith(f"{DOC['title']}: protocol 22")
    for method in protocol.METHODS:
        assert f"  {method}\n" in text + "\n"
    assert text.splitlines()[-1] == (
        "extension attach_stream (client.attach): "
        "sends in, paste, scroll, resize, view, surface; "
        "pushes state, rows, bye, toast, window_title, surface_set, popup_opened, popup_closed"
    )


def test_cli_json_round_trips(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run_schema(argparse.Namespace(json=True, output=None)) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(DOC))
    out = tmp_path / "schema.json"
    assert run_schema(argparse.Namespace(json=True, output=str(out))) == 0
    assert capsys.readouterr().out == ""
    assert json.loads(out.read_text(encoding="utf-8")) == printed


def test_cli_help_does_not_import_the_schema() -> None:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "herdr", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    imported = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()]
    assert "herdr" in imported or "herdr.cli.main" in imported
    assert not [name for name in imported if name.startswith("herdr.api.schema")]
