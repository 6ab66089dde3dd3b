"""The JSON schema of the socket API, as exported by ``herdr api schema --json``.

Generated from our Python declaration (``schema_common``, ``schema_requests``,
``schema_results``, ``schema_events``), which keeps the names and shapes of herdr's
protocol-20 API and adds our extensions in place (``seq`` on events, ``since_seq``
replay, stream bookkeeping events). The server validates request params against the
same document, so what we export is exactly what we enforce. Beyond herdr's sections,
``extensions`` holds what only herdr for Python speaks: ``attach_stream``, the TUI's
held ``client.attach`` connection (:mod:`herdr.api.schema_attach`).

Each exported section is self-contained: it carries the definitions it references,
under ``#/schemas/<section>/$defs/<Name>`` (``#/extensions/<name>/$defs/<Name>``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from functools import lru_cache
from typing import Final

from herdr.api import (
    protocol,
    schema_attach,
    schema_common,
    schema_events,
    schema_requests,
    schema_results,
)
from herdr.api.schema_types import STRING, Json, localise, obj, reachable, ref

DRAFT: Final = "https://json-schema.org/draft/2020-12/schema"
TITLE: Final = "Herdr API (herdr-python)"


def _all_defs() -> dict[str, Json]:
    """Every named definition; a name has exactly one shape across sections."""
    merged: dict[str, Json] = {"ErrorBody": obj(code=STRING, message=STRING)}
    for part in (schema_common.DEFS, schema_requests.DEFS, schema_results.DEFS, schema_events.DEFS):
        for name, node in part.items():
            if merged.setdefault(name, node) is not node:
                raise AssertionError(f"schema definition {name} is declared twice")
    return merged


def _request_root() -> Json:
    """``{id, method, params}`` with one branch per method pinning its params."""
    branches = [
        obj(method={"type": "string", "const": method}, params=ref(params))
        for method, params in schema_requests.METHOD_PARAMS.items()
    ]
    return {**obj(id=STRING), "oneOf": branches}


# (section key, title, root); each section carries the definitions its root reaches.
_SECTIONS: Final = (
    ("request", "Request", _request_root()),
    ("success_response", "SuccessResponse", obj(id=STRING, result=ref("ResponseResult"))),
    ("error_response", "ErrorResponse", obj(id=STRING, error=ref("ErrorBody"))),
    ("event", "EventEnvelope", schema_events.envelope("EventKind", "EventData")),
    (
        "subscription_event",
        "SubscriptionEventEnvelope",
        schema_events.envelope("SubscriptionEventKind", "SubscriptionEventData"),
    ),
)


def _section(path: str, title: str, root: Json, defs: Mapping[str, Json]) -> Json:
    prefix = f"#/{path}/$defs/"
    section: Json = {"$schema": DRAFT, "title": title, **localise(root, prefix)}
    section["$defs"] = {name: localise(defs[name], prefix) for name in reachable(root, defs)}
    return section


@lru_cache(maxsize=1)
def _all_defs_once() -> dict[str, Json]:
    return _all_defs()


@lru_cache(maxsize=1)
def _request_section() -> Json:
    """The request section alone: all the server's validator needs at start-up (the other
    sections are built only when the whole document is asked for)."""
    key, title, root = _SECTIONS[0]
    return _section(f"schemas/{key}", title, root, _all_defs_once())


@lru_cache(maxsize=1)
def _built() -> Json:
    defs = _all_defs_once()
    attach_root, attach_defs = schema_attach.root_and_defs()
    attach_path = f"extensions/{schema_attach.KEY}"
    return {
        "$schema": DRAFT,
        "title": TITLE,
        "protocol": protocol.PROTOCOL_VERSION,
        "schema_version": protocol.SCHEMA_VERSION,
        "schemas": {
            key: _request_section()
            if key == "request"
            else _section(f"schemas/{key}", title, root, defs)
            for key, title, root in _SECTIONS
        },
        "extensions": {
            schema_attach.KEY: _section(attach_path, schema_attach.TITLE, attach_root, attach_defs),
        },
    }


def build_schema() -> Json:
    """The full exported document (a fresh copy the caller may modify)."""
    return copy.deepcopy(_built())


def request_defs() -> Json:
    """``$defs`` of the request schema (shared, do not modify)."""
    defs: Json = _request_section()["$defs"]
    return defs


def method_params_refs() -> dict[str, str]:
    """Method name → name of its params definition in :func:`request_defs`."""
    out: dict[str, str] = {}
    for branch in _request_section()["oneOf"]:
        props = branch["properties"]
        out[props["method"]["const"]] = props["params"]["$ref"].rsplit("/", 1)[-1]
    return out


def summary(doc: Json) -> str:
    """Human text for ``herdr api schema`` without ``--json``."""
    methods = sorted(method_params_refs())
    lines = [
        f"{doc.get('title', 'Herdr API')}: protocol {doc['protocol']}, "
        f"schema_version {doc['schema_version']}",
        f"schemas: {', '.join(sorted(doc['schemas']))}",
        f"methods ({len(methods)}):",
    ]
    lines += [f"  {name}" for name in methods]
    attach = doc["extensions"][schema_attach.KEY]["$defs"]
    sends = ", ".join(attach["ClientMessage"]["discriminator"]["mapping"])
    pushes = ", ".join(attach["ServerMessage"]["discriminator"]["mapping"])
    lines.append(f"extension {schema_attach.KEY} (client.attach): sends {sends}; pushes {pushes}")
    return "\n".join(lines)


if __name__ == "__main__":  # ``python -m herdr.api.schema``: the document, for diffing
    import json

    print(json.dumps(build_schema(), indent=2, sort_keys=True))
