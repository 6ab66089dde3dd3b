"""TOML document → typed raw manifest structures (detection-spec §4.1, §4.2).

The original deserialises with serde ``deny_unknown_fields`` at all three levels
(manifest, rule, gate), so a typo such as ``contain = [...]`` is an error rather
than a silently ignored key that would change what a rule matches. Types are
checked here; semantic limits live in :mod:`validate`.
"""

from __future__ import annotations

import tomllib
from typing import Any

from msgspec import Struct

from herdr.detect.manifest.errors import ManifestError
from herdr.detect.manifest.rustfmt import debug_str
from herdr.detect.manifest.version import ManifestVersion, parse_version

STATES = ("idle", "working", "blocked", "unknown")
DEFAULT_REGION = "whole_recent"

_I32 = (-(2**31), 2**31 - 1)
_U32 = (0, 2**32 - 1)
_TOP_KEYS = ("id", "version", "min_engine_version", "updated_at", "aliases", "rules")
_GATE_KEYS = ("contains", "regex", "line_regex", "all", "any", "not")
_RULE_KEYS = (
    "id",
    "state",
    "priority",
    "region",
    "visible_idle",
    "visible_blocker",
    "visible_working",
    "skip_state_update",
    "approval",
    *_GATE_KEYS,
)
# Our extension (herdr's manifests never carry it): how to read a blocked rule's dialog.
_APPROVAL_KEYS = ("region", "question_region", "option_pattern", "keys")


class RawGate(Struct, frozen=True):
    """A gate as written: matcher strings (not lower-cased) and nested gates."""

    contains: tuple[str, ...] = ()
    regex: tuple[str, ...] = ()
    line_regex: tuple[str, ...] = ()
    all: tuple[RawGate, ...] = ()
    any: tuple[RawGate, ...] = ()
    not_: tuple[RawGate, ...] = ()


class RawApproval(Struct, frozen=True):
    """A rule's ``approval`` table as written (validated in :mod:`approval_spec`)."""

    region: str | None
    question_region: str
    option_pattern: str
    keys: str


class RawRule(Struct, frozen=True):
    id: str
    state: str | None
    priority: int
    region: str
    visible_idle: bool
    visible_blocker: bool
    visible_working: bool
    skip_state_update: bool
    gate: RawGate
    approval: RawApproval | None = None


class RawManifest(Struct, frozen=True):
    id: str
    version: ManifestVersion | None
    min_engine_version: int | None
    aliases: tuple[str, ...]
    rules: tuple[RawRule, ...]


def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return "datetime"


def _invalid(path: str, expected: str, value: object) -> ManifestError:
    return ManifestError(
        f"invalid type for `{path}`: expected {expected}, found {_type_name(value)}"
    )


def _reject_unknown(table: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in table:
        if key not in allowed:
            raise ManifestError(
                f"unknown field {debug_str(key)} in {where}, expected one of {', '.join(allowed)}"
            )


def _string(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise _invalid(path, "a string", value)
    return value


def _bool(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        raise _invalid(path, "a boolean", value)
    return value


def _int(value: object, path: str, bounds: tuple[int, int], what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _invalid(path, what, value)
    if not bounds[0] <= value <= bounds[1]:
        raise ManifestError(f"invalid value for `{path}`: {value} is out of range for {what}")
    return value


def _strings(value: object, path: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _invalid(path, "an array of strings", value)
    return tuple(_string(item, f"{path}[{k}]") for k, item in enumerate(value))


def _tables(value: object, path: str) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise _invalid(path, "an array of tables", value)
    for k, item in enumerate(value):
        if not isinstance(item, dict):
            raise _invalid(f"{path}[{k}]", "a table", item)
    return value


def _gate_field(gate: dict[str, Any], key: str, path: str) -> Any:
    value = gate.get(key)
    if value is None:
        return ()
    if key in ("contains", "regex", "line_regex"):
        return _strings(value, f"{path}.{key}")
    return tuple(
        _gate(item, f"{path}.{key}[{k}]") for k, item in enumerate(_tables(value, f"{path}.{key}"))
    )


def _gate(table: dict[str, Any], path: str) -> RawGate:
    _reject_unknown(table, _GATE_KEYS, f"gate `{path}`")
    return _gate_fields(table, path)


def _gate_fields(table: dict[str, Any], path: str) -> RawGate:
    return RawGate(
        contains=_gate_field(table, "contains", path),
        regex=_gate_field(table, "regex", path),
        line_regex=_gate_field(table, "line_regex", path),
        all=_gate_field(table, "all", path),
        any=_gate_field(table, "any", path),
        not_=_gate_field(table, "not", path),
    )


def _approval(value: object, path: str) -> RawApproval:
    if not isinstance(value, dict):
        raise _invalid(path, "a table", value)
    _reject_unknown(value, _APPROVAL_KEYS, f"approval `{path}`")
    for key in ("option_pattern", "keys"):
        if key not in value:
            raise ManifestError(f"missing field `{key}` in approval `{path}`")
    region = value.get("region")
    return RawApproval(
        region=None if region is None else _string(region, f"{path}.region"),
        question_region=_string(
            value.get("question_region", "above_options"), f"{path}.question_region"
        ),
        option_pattern=_string(value["option_pattern"], f"{path}.option_pattern"),
        keys=_string(value["keys"], f"{path}.keys"),
    )


def _rule(table: dict[str, Any], index: int) -> RawRule:
    path = f"rules[{index}]"
    _reject_unknown(table, _RULE_KEYS, f"rule `{path}`")
    if "id" not in table:
        raise ManifestError(f"missing field `id` in rule `{path}`")
    state = table.get("state")
    if state is not None:
        state = _string(state, f"{path}.state")
        if state not in STATES:
            raise ManifestError(
                f"unknown variant {debug_str(state)} for `{path}.state`, "
                f"expected one of {', '.join(STATES)}"
            )
    return RawRule(
        id=_string(table["id"], f"{path}.id"),
        state=state,
        priority=_int(table.get("priority", 0), f"{path}.priority", _I32, "an i32 integer"),
        region=_string(table.get("region", DEFAULT_REGION), f"{path}.region"),
        visible_idle=_bool(table.get("visible_idle", False), f"{path}.visible_idle"),
        visible_blocker=_bool(table.get("visible_blocker", False), f"{path}.visible_blocker"),
        visible_working=_bool(table.get("visible_working", False), f"{path}.visible_working"),
        skip_state_update=_bool(table.get("skip_state_update", False), f"{path}.skip_state_update"),
        gate=_gate_fields(table, path),
        approval=_approval(table["approval"], f"{path}.approval") if "approval" in table else None,
    )


def parse_raw_manifest(text: str) -> RawManifest:
    """Parse TOML text into a :class:`RawManifest`; raises :class:`ManifestError`."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ManifestError(f"TOML parse error: {err}") from None
    _reject_unknown(doc, _TOP_KEYS, "manifest")
    if "id" not in doc:
        raise ManifestError("missing field `id`")
    manifest_id = _string(doc["id"], "id")
    version = None
    if "version" in doc:
        version = parse_version(_string(doc["version"], "version"))
    min_engine = None
    if "min_engine_version" in doc:
        min_engine = _int(doc["min_engine_version"], "min_engine_version", _U32, "a u32 integer")
    if "updated_at" in doc:
        _string(doc["updated_at"], "updated_at")
    aliases = _strings(doc.get("aliases", []), "aliases")
    rules = tuple(_rule(table, k) for k, table in enumerate(_tables(doc.get("rules", []), "rules")))
    return RawManifest(manifest_id, version, min_engine, aliases, rules)
