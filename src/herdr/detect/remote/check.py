"""One remote update pass: catalog → each manifest → validate → monotonic → commit.

Blocking (network and fsync), so the server runs it in a worker thread. Every failure
is a line in the report and in ``status.toml``; nothing here raises to the caller.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from herdr.detect.agents import SCREEN_MANIFEST_AGENTS, Agent
from herdr.detect.manifest import ManifestError, parse_version
from herdr.detect.manifest.sources import ManifestDirs, parse_remote_manifest
from herdr.detect.remote import cache
from herdr.detect.remote.catalog import CatalogError, manifest_url, parse_catalog
from herdr.detect.remote.fetch import FetchError, fetch_text

Fetcher = Callable[[str, "str | None"], str]


def default_fetcher(url: str, sha256: str | None) -> str:
    return fetch_text(url, sha256=sha256)


@dataclass(slots=True)
class CheckReport:
    """What one pass did: ``updated`` lists (label, version) committed this time."""

    last_result: str
    updated: list[tuple[str, str]] = field(default_factory=list)
    agents: dict[str, cache.AgentStatus] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _cached(remote_dir: Path, agent: Agent) -> tuple[str | None, str | None]:
    """(version, exact text) of the cached remote file; invalid counts as no cache."""
    path = remote_dir / f"{agent.label}.toml"
    try:
        text = path.read_bytes().decode("utf-8")
        manifest = parse_remote_manifest(text, agent)
    except (OSError, UnicodeDecodeError, ManifestError):
        return None, None
    return manifest.version, text


def _check_one(
    agent: Agent, text: str, remote_dir: Path, now: int, write: cache.Writer
) -> tuple[cache.AgentStatus, str | None]:
    """Status for one fetched manifest, and the version committed (None if not)."""
    cached_version, cached_text = _cached(remote_dir, agent)

    def failed(error: str) -> cache.AgentStatus:
        return cache.AgentStatus(cached_version, None, now, "failed", error)

    try:
        manifest = parse_remote_manifest(text, agent)
    except ManifestError as exc:
        return failed(f"invalid manifest: {' '.join(str(exc).split())}"), None
    assert manifest.version is not None  # parse_remote_manifest requires it
    new = manifest.version
    if cached_version is not None:
        order = parse_version(new), parse_version(cached_version)
        if order[0] < order[1]:
            return failed(f"remote version {new} is older than cached {cached_version}"), None
        if order[0] == order[1]:
            if cached_text != text:
                return failed(f"remote version {new} changed content without a version bump"), None
            return cache.AgentStatus(cached_version, None, now, "current", None), None
    try:
        cache.write_manifest(write, remote_dir, agent.label, text)
    except Exception as exc:  # any write failure is reported, never raised
        return failed(f"cannot save manifest: {exc}"), None
    return cache.AgentStatus(new, new, now, "updated", None), new


def run_check(
    dirs: ManifestDirs,
    url: str,
    write: cache.Writer,
    *,
    fetcher: Fetcher = default_fetcher,
    now: Callable[[], float] = time.time,
) -> CheckReport:
    """Fetch the catalog at ``url`` and commit every acceptable newer manifest."""
    previous, warning = cache.read_status(dirs.status_file)
    report = CheckReport("checked", agents=dict(previous))
    if warning is not None:
        report.warnings.append(warning)
    started = int(now())
    try:
        catalog = parse_catalog(fetcher(url, None))
    except (FetchError, CatalogError) as exc:
        report.last_result = f"failed: {exc}"
    else:
        report.warnings.extend(catalog.warnings)
        for entry in catalog.entries:
            if entry.agent not in SCREEN_MANIFEST_AGENTS:
                label = entry.agent.label
                report.warnings.append(f"skipped catalog entry {label}: no screen manifest")
                continue
            stamp = int(now())
            try:
                text = fetcher(manifest_url(url, entry.path), entry.sha256)
            except FetchError as exc:
                cached_version, _ = _cached(dirs.remote_dir, entry.agent)
                error = f"fetch failed: {exc}"
                status = cache.AgentStatus(cached_version, None, stamp, "failed", error)
                committed = None
            else:
                status, committed = _check_one(entry.agent, text, dirs.remote_dir, stamp, write)
            report.agents[entry.agent.label] = status
            if committed is not None:
                report.updated.append((entry.agent.label, committed))
    try:
        cache.write_status(
            write, dirs.status_file, cache.render_status(started, report.last_result, report.agents)
        )
    except Exception as exc:  # any write failure is reported, never raised
        report.last_result = f"failed_to_save_status: {exc}"
    return report
