"""The JSON schema of the socket API, as exported by ``herdr api schema --json``.

The base is herdr's published protocol-20 schema, kept verbatim as data in
``_reference_schema`` so names and shapes cannot drift; :func:`build_schema` layers our
additive extensions on top (``seq`` on events, ``since_seq`` replay, stream bookkeeping
events). The server validates request params against the same document, so what we
export is exactly what we enforce.

Regenerate the data module with ``python -m herdr.api.schema --regenerate PATH``.
"""

from __future__ import annotations

import copy
import json
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from herdr.api import protocol

Json = dict[str, Any]

_SEQ = {"format": "uint64", "minimum": 0, "type": "integer"}
_OPT_SEQ = {"format": "uint64", "minimum": 0, "type": ["integer", "null"]}


def _reference() -> Json:
    from herdr.api._reference_schema import SCHEMA_JSON

    doc: Json = json.loads(SCHEMA_JSON)
    return doc


def _add_seq_to_envelope(envelope: Json) -> None:
    props = envelope.setdefault("properties", {})
    props["seq"] = {
        **_SEQ,
        "description": "herdr-python: monotonically increasing event sequence number",
    }


def _extend_requests(request: Json) -> None:
    defs = request["$defs"]
    defs["EventsSubscribeParams"]["properties"]["since_seq"] = {
        **_OPT_SEQ,
        "description": "herdr-python: replay logged events with seq > since_seq first",
    }
    defs["EventsWaitParams"]["properties"]["since_seq"] = {
        **_OPT_SEQ,
        "description": "herdr-python: also match logged events with seq > since_seq",
    }


def _extend_results(success: Json) -> None:
    for branch in success["$defs"]["ResponseResult"]["oneOf"]:
        kind = branch["properties"]["type"].get("const")
        if kind == "subscription_started":
            branch["properties"].update(
                {
                    "last_seq": _SEQ,
                    "replayed": {"minimum": 0, "type": "integer"},
                    "gap": {"type": "boolean"},
                    "oldest_seq": _OPT_SEQ,
                }
            )
    _add_seq_to_envelope(success["$defs"]["EventEnvelope"])


def _extend_events(event: Json) -> None:
    _add_seq_to_envelope(event)
    defs = event["$defs"]
    defs["EventKind"]["enum"] += [protocol.SUBSCRIPTION_LAGGED, protocol.SUBSCRIPTION_ENDED]
    defs["EventData"]["oneOf"] += [
        {
            "description": "herdr-python: events were dropped for this slow subscriber",
            "properties": {
                "type": {"const": protocol.SUBSCRIPTION_LAGGED, "type": "string"},
                "dropped": {"minimum": 1, "type": "integer"},
                "first_seq": _SEQ,
                "last_seq": _SEQ,
            },
            "required": ["type", "dropped", "first_seq", "last_seq"],
            "type": "object",
        },
        {
            "description": "herdr-python: a pane-scoped subscription ended",
            "properties": {
                "type": {"const": protocol.SUBSCRIPTION_ENDED, "type": "string"},
                "subscription": {"type": "object"},
                "reason": {"enum": ["pane_closed", "server_stopping"], "type": "string"},
                "pane_id": {"type": ["string", "null"]},
            },
            "required": ["type", "subscription", "reason"],
            "type": "object",
        },
    ]


@lru_cache(maxsize=1)
def _built() -> Json:
    doc = _reference()
    schemas = doc["schemas"]
    _extend_requests(schemas["request"])
    _extend_results(schemas["success_response"])
    _extend_events(schemas["event"])
    _add_seq_to_envelope(schemas["subscription_event"])
    doc["title"] = "Herdr API (herdr-python)"
    return doc


def build_schema() -> Json:
    """The full exported document (a fresh copy the caller may modify)."""
    return copy.deepcopy(_built())


def request_defs() -> Json:
    """``$defs`` of the request schema (shared, do not modify)."""
    defs: Json = _built()["schemas"]["request"]["$defs"]
    return defs


def method_params_refs() -> dict[str, str]:
    """Method name → name of its params definition in :func:`request_defs`."""
    out: dict[str, str] = {}
    for branch in _built()["schemas"]["request"]["oneOf"]:
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
    return "\n".join(lines)


def _regenerate(reference: Path, target: Path) -> None:
    doc = json.loads(reference.read_text(encoding="utf-8"))
    text = json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=True)
    if "'''" in text:
        raise SystemExit("reference schema contains ''' and cannot be embedded")
    target.write_text(
        '"""herdr\'s published API schema (protocol '
        f"{doc['protocol']}), kept verbatim as data.\n\n"
        "Generated by ``python -m herdr.api.schema --regenerate PATH``; do not edit.\n"
        '"""\n\n'
        "# ruff: noqa: E501\n"
        "from __future__ import annotations\n\n"
        "from typing import Final\n\n"
        f"SCHEMA_JSON: Final = r'''{text}'''\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--regenerate":
        _regenerate(Path(sys.argv[2]), Path(__file__).with_name("_reference_schema.py"))
    else:
        print(json.dumps(build_schema(), indent=2))
