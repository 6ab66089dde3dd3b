"""The plugin registry, ``plugins.json`` in herdr's config dir (global to every session).

The CLI (``plugin link``/``install`` work without a server) and the server both change
it, so every change is a locked read-modify-write replaced atomically: a crash never
leaves half a registry, and two writers never lose each other's entry. The manifest is
re-read whenever the registry is, so editing ``herdr-plugin.toml`` needs no relink.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from herdr.config.paths import config_dir, state_dir
from herdr.persist.errors import PersistWriteError
from herdr.persist.files import atomic_write
from herdr.plugins import manifest as mf
from herdr.vocab import ErrorCode

REGISTRY_NAME = "plugins.json"
FORMAT_VERSION = 1
MAX_MANIFEST_BYTES = 1024 * 1024

PLUGIN_NOT_FOUND = ErrorCode.PLUGIN_NOT_FOUND.value
LOAD_FAILED = ErrorCode.PLUGIN_REGISTRY_LOAD_FAILED.value
SAVE_FAILED = ErrorCode.PLUGIN_REGISTRY_SAVE_FAILED.value
INVALID_PLUGIN_ID = ErrorCode.INVALID_PLUGIN_ID.value
LINK_CONFLICT = ErrorCode.PLUGIN_ALREADY_INSTALLED.value


class RegistryError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def registry_path(env: Mapping[str, str]) -> Path:
    return Path(config_dir(env)) / REGISTRY_NAME


def plugin_config_dir(env: Mapping[str, str], plugin_id: str) -> Path:
    return Path(config_dir(env)) / "plugins" / "config" / plugin_id


def plugin_state_dir(env: Mapping[str, str], plugin_id: str) -> Path:
    return Path(state_dir(env)) / "plugins" / plugin_id


def github_checkout_dir(env: Mapping[str, str], plugin_id: str) -> Path:
    return Path(config_dir(env)) / "plugins" / "github" / plugin_id


def check_plugin_id(plugin_id: str) -> str:
    """The id as given, or ``invalid_plugin_id`` (ids never contain path separators)."""
    if not mf.valid_plugin_id(plugin_id):
        raise RegistryError(INVALID_PLUGIN_ID, f"invalid plugin id {plugin_id!r}")
    return plugin_id


def manifest_path_of(path: str) -> Path:
    """A plugin directory or its manifest file, as the manifest's absolute path."""
    if not path or "\0" in path:
        raise mf.ManifestError(
            ErrorCode.INVALID_PARAMS.value, "path must be non-empty and contain no NUL byte"
        )
    given = Path(os.path.abspath(os.path.expanduser(path)))
    if given.is_dir():
        return given / mf.MANIFEST_NAME
    return given


def read_manifest(path: Path) -> mf.Manifest:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_MANIFEST_BYTES + 1)
    except FileNotFoundError:
        raise mf.ManifestError(mf.MANIFEST_NOT_FOUND, f"{path}: no {mf.MANIFEST_NAME}") from None
    except OSError as exc:
        raise mf.ManifestError(mf.MANIFEST_NOT_FOUND, f"{path}: {exc.strerror}") from None
    if len(raw) > MAX_MANIFEST_BYTES:
        raise mf.ManifestError(mf.INVALID_MANIFEST, f"{path}:1: manifest larger than 1 MiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise mf.ManifestError(mf.INVALID_MANIFEST, f"{path}:{line}: not UTF-8") from None
    return mf.parse(text, str(path))


@dataclass
class Entry:
    """One registered plugin: where its manifest is, enabled, where it came from, and the
    last good manifest record (used when the file has since become unreadable)."""

    plugin_id: str
    manifest_path: str
    plugin_root: str
    enabled: bool
    source: dict[str, Any]
    snapshot: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "plugin_id": self.plugin_id,
            "manifest_path": self.manifest_path,
            "plugin_root": self.plugin_root,
            "enabled": self.enabled,
            "source": self.source,
            "snapshot": self.snapshot,
        }

    @classmethod
    def from_json(cls, item: Any) -> Entry | None:
        if not isinstance(item, dict):
            return None
        try:
            return cls(
                plugin_id=str(item["plugin_id"]),
                manifest_path=str(item["manifest_path"]),
                plugin_root=str(item["plugin_root"]),
                enabled=bool(item.get("enabled", True)),
                source=dict(item.get("source") or {"kind": "local"}),
                snapshot=dict(item.get("snapshot") or {}),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def info(self) -> dict[str, Any]:
        """InstalledPluginInfo from the manifest as it is now (or the last good one)."""
        warnings: list[str] = []
        try:
            loaded = read_manifest(Path(self.manifest_path))
        except mf.ManifestError as exc:
            base = dict(self.snapshot)
            warnings.append(f"manifest unavailable, showing the last good one: {exc.message}")
        else:
            if loaded.plugin_id != self.plugin_id:
                base = dict(self.snapshot)
                warnings.append(f"manifest id changed to {loaded.plugin_id!r}; relink to use it")
            else:
                base = dict(loaded.info)
                self.snapshot = dict(loaded.info)
                warnings.extend(loaded.warnings)
        base.setdefault("plugin_id", self.plugin_id)
        base.setdefault("name", self.plugin_id)
        base.setdefault("version", "0.0.0")
        base.update(
            manifest_path=self.manifest_path,
            plugin_root=self.plugin_root,
            enabled=self.enabled,
            source=self.source,
        )
        if warnings:
            base["warnings"] = warnings
        return base


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(str(path) + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def load(path: Path) -> list[Entry]:
    """The registered plugins, sorted by id; a missing file is an empty registry."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise RegistryError(LOAD_FAILED, f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RegistryError(LOAD_FAILED, f"{path}: not valid JSON: {exc}") from None
    items = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise RegistryError(LOAD_FAILED, f'{path}: expected {{"plugins": [...]}}')
    entries = [e for e in map(Entry.from_json, items) if e is not None]
    return sorted(entries, key=lambda e: e.plugin_id)


def save(path: Path, entries: list[Entry]) -> None:
    body = {"version": FORMAT_VERSION, "plugins": [e.to_json() for e in entries]}
    data = json.dumps(body, indent=2, sort_keys=True).encode() + b"\n"
    try:
        atomic_write(path, data)
    except PersistWriteError as exc:
        raise RegistryError(SAVE_FAILED, str(exc)) from None


class Registry:
    """Operations on one ``plugins.json``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def of(cls, env: Mapping[str, str]) -> Registry:
        return cls(registry_path(env))

    def entries(self) -> list[Entry]:
        return load(self.path)

    def get(self, plugin_id: str) -> Entry:
        check_plugin_id(plugin_id)
        for entry in self.entries():
            if entry.plugin_id == plugin_id:
                return entry
        raise RegistryError(PLUGIN_NOT_FOUND, f"plugin {plugin_id} is not installed")

    def link(
        self, path: str, *, enabled: bool = True, source: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Register (or re-register) the plugin at ``path``; returns its info."""
        manifest_path = manifest_path_of(path)
        loaded = read_manifest(manifest_path)
        kind = (source or {}).get("kind", "local")
        entry = Entry(
            plugin_id=loaded.plugin_id,
            manifest_path=str(manifest_path),
            plugin_root=str(manifest_path.parent),
            enabled=enabled,
            source=dict(source) if source else {"kind": "local"},
            snapshot=dict(loaded.info),
        )
        with _locked(self.path):
            entries = load(self.path)
            for old in entries:
                if old.plugin_id == entry.plugin_id and old.source.get("kind", "local") != kind:
                    raise RegistryError(
                        LINK_CONFLICT,
                        f"plugin {entry.plugin_id} is already installed from"
                        f" {old.source.get('kind', 'local')}; uninstall it first",
                    )
            entries = [e for e in entries if e.plugin_id != entry.plugin_id] + [entry]
            save(self.path, sorted(entries, key=lambda e: e.plugin_id))
        info = entry.info()
        if loaded.warnings:
            info["warnings"] = list(loaded.warnings)
        return info

    def unlink(self, plugin_id: str) -> Entry | None:
        """Remove ``plugin_id``; returns the removed entry (``None``: it was not there)."""
        check_plugin_id(plugin_id)
        with _locked(self.path):
            entries = load(self.path)
            kept = [e for e in entries if e.plugin_id != plugin_id]
            if len(kept) == len(entries):
                return None
            save(self.path, kept)
        return next(e for e in entries if e.plugin_id == plugin_id)

    def set_enabled(self, plugin_id: str, enabled: bool) -> dict[str, Any]:
        check_plugin_id(plugin_id)
        with _locked(self.path):
            entries = load(self.path)
            for entry in entries:
                if entry.plugin_id == plugin_id:
                    if entry.enabled != enabled:
                        entry.enabled = enabled
                        save(self.path, entries)
                    return entry.info()
        raise RegistryError(PLUGIN_NOT_FOUND, f"plugin {plugin_id} is not installed")

    def infos(self, plugin_id: str | None = None) -> list[dict[str, Any]]:
        if plugin_id is not None:
            check_plugin_id(plugin_id)
        return [e.info() for e in self.entries() if plugin_id in (None, e.plugin_id)]
