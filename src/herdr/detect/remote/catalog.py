"""Parse and validate herdr's manifest catalog ``index.toml`` (pure, no I/O).

A catalog that could point a download outside its own directory, or that lists one
agent twice, is rejected whole: partial trust in a bad catalog is worse than none.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping

from msgspec import Struct

from herdr.detect.agents import Agent, parse_agent_label, rust_trim

DEFAULT_CATALOG_URL = "https://herdr.dev/agent-detection/index.toml"
CATALOG_URL_ENV = "HERDR_AGENT_DETECTION_MANIFEST_CATALOG_URL"
SCHEMA_VERSION = 1
_ENTRY_KEYS = frozenset({"id", "path", "sha256"})
_HEX = frozenset("0123456789abcdef")


class CatalogError(ValueError):
    """The catalog as a whole is unusable; the message is the status ``failed: …`` text."""


class CatalogEntry(Struct, frozen=True):
    """One agent's manifest location and, as our extension, its optional SHA-256."""

    agent: Agent
    path: str
    sha256: str | None


class Catalog(Struct, frozen=True):
    entries: tuple[CatalogEntry, ...]
    warnings: tuple[str, ...]


def catalog_url(env: Mapping[str, str]) -> str:
    """The env override (trimmed, non-empty) or herdr's published catalog."""
    value = rust_trim(env.get(CATALOG_URL_ENV, ""))
    return value or DEFAULT_CATALOG_URL


def manifest_url(catalog: str, path: str) -> str:
    """Catalog URL up to its last ``/`` (trailing ``/`` trimmed) + ``/`` + path."""
    base = catalog[: catalog.rfind("/")] if "/" in catalog else catalog
    return base.rstrip("/") + "/" + path


def _check_path(path: object, where: str) -> str:
    if not isinstance(path, str):
        raise CatalogError(f"{where}: path must be a string")
    if not path:
        raise CatalogError(f"{where}: path must not be empty")
    if "://" in path or path.startswith("/") or ".." in path.split("/"):
        raise CatalogError(f"{where}: path {path!r} must stay below the catalog directory")
    return path


def _check_sha(value: object, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) != 64 or not set(value.lower()) <= _HEX:
        raise CatalogError(f"{where}: sha256 must be 64 hex digits")
    return value.lower()


def parse_catalog(text: str) -> Catalog:
    """Validate ``index.toml``; unknown agent ids are skipped with a warning."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"invalid catalog: {exc}") from exc
    version = doc.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise CatalogError("catalog schema_version is missing or not an integer")
    if version != SCHEMA_VERSION:
        raise CatalogError(f"unsupported catalog schema_version {version}")
    unknown_top = set(doc) - {"schema_version", "agents"}
    if unknown_top:
        raise CatalogError(f"unknown catalog key {sorted(unknown_top)[0]!r}")
    raw = doc.get("agents", [])
    if not isinstance(raw, list):
        raise CatalogError("catalog agents must be an array of tables")
    entries: list[CatalogEntry] = []
    warnings: list[str] = []
    seen: set[Agent] = set()
    for index, item in enumerate(raw):
        where = f"agents[{index}]"
        if not isinstance(item, dict):
            raise CatalogError(f"{where} must be a table")
        extra = set(item) - _ENTRY_KEYS
        if extra:
            raise CatalogError(f"{where}: unknown key {sorted(extra)[0]!r}")
        ident = item.get("id")
        if not isinstance(ident, str):
            raise CatalogError(f"{where}: id must be a string")
        path = _check_path(item.get("path"), where)
        sha = _check_sha(item.get("sha256"), where)
        agent = parse_agent_label(ident)
        if agent is None:
            warnings.append(f"skipped catalog entry {ident!r}: unknown agent")
            continue
        if agent in seen:
            raise CatalogError(f"{where}: agent {agent.label} is listed twice")
        seen.add(agent)
        entries.append(CatalogEntry(agent, path, sha))
    return Catalog(tuple(entries), tuple(warnings))
