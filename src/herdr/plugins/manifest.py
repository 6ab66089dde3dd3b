"""Parse and validate ``herdr-plugin.toml`` (spec §9). Pure: text in, record or error out.

Every refusal names ``file:line`` so a plugin author can fix the manifest without
guessing; problems that do not stop the plugin from working (no ``platforms``, an
event name we do not know) are warnings carried on the record, as in herdr.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from herdr.vocab import ErrorCode

MANIFEST_NAME = "herdr-plugin.toml"
# The herdr release whose plugin API (v1, protocol 22) we implement; a manifest's
# ``min_herdr_version`` is compared with this, not with our own package version.
HERDR_COMPAT_VERSION = (0, 9, 99)

PLATFORMS = ("linux", "macos", "windows")
CONTEXTS = ("global", "workspace", "tab", "pane", "selection")
PLACEMENTS = ("overlay", "popup", "split", "tab", "zoomed")
# Dot event names a hook may listen on (spec §3.5 lifecycle events plus agent status).
HOOK_EVENTS = frozenset(
    {
        "workspace.created",
        "workspace.updated",
        "workspace.metadata_updated",
        "workspace.renamed",
        "workspace.moved",
        "workspace.reordered",
        "workspace.closed",
        "workspace.focused",
        "worktree.created",
        "worktree.opened",
        "worktree.removed",
        "tab.created",
        "tab.closed",
        "tab.focused",
        "tab.renamed",
        "tab.moved",
        "pane.created",
        "pane.closed",
        "pane.updated",
        "pane.focused",
        "pane.moved",
        "pane.exited",
        "pane.agent_detected",
        "pane.agent_status_changed",
        "layout.updated",
    }
)

ID_MAX = 120
_PLUGIN_ID = re.compile(r"[A-Za-z0-9.:_-]+")
_ENTRY_ID = re.compile(r"[A-Za-z0-9:_-]+")  # action/pane/link handler ids: no dots
_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?")
_PERCENT = re.compile(r"(100|[1-9][0-9]?)%")

INVALID_MANIFEST = ErrorCode.INVALID_PLUGIN_MANIFEST.value
MANIFEST_NOT_FOUND = ErrorCode.PLUGIN_MANIFEST_NOT_FOUND.value
UNSUPPORTED_VERSION = INVALID_MANIFEST  # herdr refuses it like any bad manifest

_TOP_KEYS = ("id", "name", "version", "min_herdr_version", "description", "platforms")
_SECTIONS: dict[str, tuple[str, ...]] = {
    "build": ("command", "platforms"),
    "startup": ("command", "platforms"),
    "actions": ("id", "title", "command", "contexts", "description", "platforms"),
    "events": ("on", "command", "platforms"),
    "panes": (
        "id",
        "title",
        "command",
        "description",
        "placement",
        "width",
        "height",
        "platforms",
    ),
    "link_handlers": ("id", "title", "pattern", "action", "platforms"),
}


class ManifestError(Exception):
    """A manifest that cannot be used; ``code`` is the API error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Manifest:
    """A validated manifest: ``info`` is the InstalledPluginInfo part it decides."""

    plugin_id: str
    info: dict[str, Any]
    warnings: list[str]


# --- where keys are -------------------------------------------------------------------

_HEADER = re.compile(r"\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"\s*([A-Za-z0-9_\-]+|\"[^\"]*\")\s*=")


class _Lines:
    """Line numbers of keys by (section, index, key), from a light scan of the text.

    tomllib gives values but no positions; this scan knows table headers and
    ``key =`` lines, which is all a manifest uses. Unknown positions fall back to the
    section's header line (or line 1).
    """

    def __init__(self, text: str) -> None:
        self.keys: dict[tuple[str, int, str], int] = {}
        self.headers: dict[tuple[str, int], int] = {}
        counts: dict[str, int] = {}
        section, index = "", 0
        in_multiline: str | None = None
        for number, line in enumerate(text.splitlines(), start=1):
            if in_multiline is not None:
                if line.count(in_multiline) % 2 == 1:
                    in_multiline = None
                continue
            header = _HEADER.match(line)
            if header and not _KEY.match(line):
                section = header.group(2).strip().strip("\"'")
                if header.group(1) == "[[":
                    index = counts.get(section, 0)
                    counts[section] = index + 1
                else:
                    index = 0
                self.headers.setdefault((section, index), number)
                continue
            key = _KEY.match(line)
            if key:
                name = key.group(1).strip('"')
                self.keys.setdefault((section, index, name), number)
                rest = line[key.end() :]
                for quote in ('"""', "'''"):
                    if rest.count(quote) % 2 == 1:
                        in_multiline = quote

    def of(self, section: str, index: int, key: str | None = None) -> int:
        if key is not None and (section, index, key) in self.keys:
            return self.keys[(section, index, key)]
        return self.headers.get((section, index), 1)


# --- validation -----------------------------------------------------------------------


class _Checker:
    def __init__(self, path: str, lines: _Lines) -> None:
        self.path = path
        self.lines = lines

    def fail(self, section: str, index: int, key: str | None, message: str) -> ManifestError:
        line = self.lines.of(section, index, key)
        where = f"{section}[{index}]." if section else ""
        field = f"{where}{key}" if key else (f"[[{section}]] #{index + 1}" if section else "")
        prefix = f"{self.path}:{line}: "
        return ManifestError(
            INVALID_MANIFEST, f"{prefix}{field}: {message}" if field else prefix + message
        )

    def string(
        self, table: Mapping[str, Any], section: str, index: int, key: str, *, required: bool
    ) -> str | None:
        if key not in table:
            if required:
                raise self.fail(section, index, None, f"missing required key {key!r}")
            return None
        value = table[key]
        if not isinstance(value, str):
            raise self.fail(section, index, key, f"must be a string, got {_kind(value)}")
        if required and not value.strip():
            raise self.fail(section, index, key, "must not be empty")
        return value

    def entry_id(self, table: Mapping[str, Any], section: str, index: int) -> str:
        value = self.string(table, section, index, "id", required=True)
        assert value is not None
        if len(value) > ID_MAX or not _ENTRY_ID.fullmatch(value):
            raise self.fail(
                section,
                index,
                "id",
                f"invalid id {value!r} (letters, digits, ':', '_' and '-'; no dots;"
                f" at most {ID_MAX})",
            )
        return value

    def command(self, table: Mapping[str, Any], section: str, index: int) -> list[str]:
        if "command" not in table:
            raise self.fail(section, index, None, "missing required key 'command'")
        value = table["command"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(section, index, "command", "must be an array of strings (argv)")
        if not value or not value[0].strip():
            raise self.fail(section, index, "command", "must name a program (argv[0])")
        if any("\0" in v for v in value):
            raise self.fail(section, index, "command", "must not contain NUL bytes")
        return list(value)

    def choices(
        self,
        table: Mapping[str, Any],
        section: str,
        index: int,
        key: str,
        allowed: tuple[str, ...],
    ) -> list[str] | None:
        if key not in table:
            return None
        value = table[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(section, index, key, "must be an array of strings")
        for item in value:
            if item not in allowed:
                raise self.fail(
                    section, index, key, f"unknown value {item!r} (one of {', '.join(allowed)})"
                )
        return list(dict.fromkeys(value))

    def size(self, table: Mapping[str, Any], section: str, index: int, key: str) -> Any:
        if key not in table:
            return None
        value = table[key]
        if isinstance(value, bool):
            raise self.fail(section, index, key, 'must be cells (an integer) or "NN%"')
        if isinstance(value, int):
            if not 1 <= value <= 65535:
                raise self.fail(section, index, key, "cells must be between 1 and 65535")
            return value
        if isinstance(value, str) and _PERCENT.fullmatch(value):
            return value
        raise self.fail(section, index, key, 'must be cells (an integer) or "NN%" (1%-100%)')

    def unknown_keys(
        self, table: Mapping[str, Any], section: str, index: int, known: tuple[str, ...]
    ) -> None:
        for key in table:
            if key not in known:
                raise self.fail(section, index, key, "unknown key")


def _kind(value: object) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a float",
        str: "a string",
        list: "an array",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def parse_version(text: str) -> tuple[int, int, int] | None:
    match = _VERSION.fullmatch(text.strip())
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def valid_plugin_id(value: str) -> bool:
    return 0 < len(value) <= ID_MAX and _PLUGIN_ID.fullmatch(value) is not None


def parse(text: str, path: str) -> Manifest:
    """Validate manifest ``text`` read from ``path``; raises :class:`ManifestError`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None) or _line_of_decode_error(str(exc))
        raise ManifestError(INVALID_MANIFEST, f"{path}:{line}: invalid TOML: {exc}") from None
    check = _Checker(path, _Lines(text))
    warnings: list[str] = []
    for key in data:
        if key not in _TOP_KEYS and key not in _SECTIONS:
            raise check.fail("", 0, key, "unknown key")
    plugin_id = check.string(data, "", 0, "id", required=True)
    assert plugin_id is not None
    if not valid_plugin_id(plugin_id):
        raise check.fail(
            "", 0, "id", f"invalid plugin id {plugin_id!r} (letters, digits, '.', ':', '_', '-')"
        )
    name = check.string(data, "", 0, "name", required=True)
    version = check.string(data, "", 0, "version", required=True)
    assert name is not None and version is not None
    if parse_version(version) is None:
        raise check.fail("", 0, "version", f"invalid version {version!r} (want MAJOR.MINOR.PATCH)")
    min_version = check.string(data, "", 0, "min_herdr_version", required=True)
    assert min_version is not None
    wanted = parse_version(min_version)
    if wanted is None:
        raise check.fail(
            "", 0, "min_herdr_version", f"invalid version {min_version!r} (want MAJOR.MINOR.PATCH)"
        )
    if wanted > HERDR_COMPAT_VERSION:
        line = check.lines.of("", 0, "min_herdr_version")
        raise ManifestError(
            UNSUPPORTED_VERSION,
            f"{path}:{line}: min_herdr_version: plugin needs herdr {min_version}; this herdr"
            f" implements the plugin API of herdr {'.'.join(map(str, HERDR_COMPAT_VERSION[:2]))}",
        )
    info: dict[str, Any] = {
        "plugin_id": plugin_id,
        "name": name,
        "version": version,
        "min_herdr_version": min_version,
    }
    description = check.string(data, "", 0, "description", required=False)
    if description is not None:
        info["description"] = description
    platforms = check.choices(data, "", 0, "platforms", PLATFORMS)
    if platforms is None:
        warnings.append(f"{path}: no 'platforms' declared; assuming every platform")
    else:
        info["platforms"] = platforms
    sections: dict[str, list[dict[str, Any]]] = {}
    for section, known in _SECTIONS.items():
        raw = data.get(section, [])
        if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
            raise check.fail("", 0, section, f"must be an array of tables ([[{section}]])")
        entries: list[dict[str, Any]] = []
        for index, table in enumerate(raw):
            check.unknown_keys(table, section, index, known)
            entries.append(_entry(check, section, index, table, warnings))
        _unique_ids(check, section, entries)
        sections[section] = entries
    action_ids = {a["id"] for a in sections["actions"]}
    for index, handler in enumerate(sections["link_handlers"]):
        if handler["action"] not in action_ids:
            raise check.fail(
                "link_handlers", index, "action", f"no action {handler['action']!r} in this plugin"
            )
    for section, entries in sections.items():
        if entries:
            info[section] = entries
    return Manifest(plugin_id, info, warnings)


def _line_of_decode_error(message: str) -> int:
    match = re.search(r"line (\d+)", message)
    return int(match.group(1)) if match else 1


def _entry(
    check: _Checker, section: str, index: int, table: Mapping[str, Any], warnings: list[str]
) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if "id" in _SECTIONS[section]:
        entry["id"] = check.entry_id(table, section, index)
    if "title" in _SECTIONS[section]:
        entry["title"] = check.string(table, section, index, "title", required=True)
    if section == "events":
        on = check.string(table, section, index, "on", required=True)
        assert on is not None
        if on not in HOOK_EVENTS:
            line = check.lines.of(section, index, "on")
            warnings.append(f"{check.path}:{line}: events[{index}].on: unknown event {on!r}")
        entry["on"] = on
    if section == "link_handlers":
        pattern = check.string(table, section, index, "pattern", required=True)
        assert pattern is not None
        try:
            re.compile(pattern)
        except re.error as exc:
            raise check.fail(section, index, "pattern", f"invalid regex: {exc}") from None
        entry["pattern"] = pattern
        entry["action"] = check.string(table, section, index, "action", required=True)
    else:
        entry["command"] = check.command(table, section, index)
    description = (
        check.string(table, section, index, "description", required=False)
        if "description" in _SECTIONS[section]
        else None
    )
    if description is not None:
        entry["description"] = description
    if section == "actions":
        contexts = check.choices(table, section, index, "contexts", CONTEXTS)
        if contexts is not None:  # none declared: offered in every context
            entry["contexts"] = contexts
    if section == "panes":
        placement = check.string(table, section, index, "placement", required=False)
        if placement is not None and placement not in PLACEMENTS:
            raise check.fail(
                section,
                index,
                "placement",
                f"unknown placement {placement!r} (one of {', '.join(PLACEMENTS)})",
            )
        entry["placement"] = placement or "overlay"
        for key in ("width", "height"):
            size = check.size(table, section, index, key)
            if size is not None:
                entry[key] = size
    platforms = check.choices(table, section, index, "platforms", PLATFORMS)
    if platforms is not None:
        entry["platforms"] = platforms
    return entry


def _unique_ids(check: _Checker, section: str, entries: list[dict[str, Any]]) -> None:
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        entry_id = entry.get("id")
        if entry_id is None:
            continue
        if entry_id in seen:
            raise check.fail(section, index, "id", f"duplicate id {entry_id!r}")
        seen.add(entry_id)


def current_platform(sys_platform: str) -> str:
    """Our name (linux/macos/windows) for ``sys.platform``."""
    if sys_platform.startswith("darwin"):
        return "macos"
    if sys_platform.startswith(("win", "cygwin", "msys")):
        return "windows"
    return "linux"


def supports(platforms: list[str] | None, platform: str) -> bool:
    """No list means every platform."""
    return platforms is None or platform in platforms
