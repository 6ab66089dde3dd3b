"""Remote manifest updates, the pure parts: catalog validation, URLs, status files and
the bundled-vs-published version order (detection-spec §7.4, §7.5)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from herdr.detect.agents import parse_agent_label
from herdr.detect.manifest import parse_version
from herdr.detect.manifest.sources import ManifestDirs, load_agent_manifest
from herdr.detect.remote.cache import AgentStatus, read_status, render_status
from herdr.detect.remote.catalog import (
    DEFAULT_CATALOG_URL,
    CatalogError,
    catalog_url,
    manifest_url,
    parse_catalog,
)

GOOD = 'schema_version = 1\n[[agents]]\nid = "claude"\npath = "claude.toml"\n'


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("schema_version = 2\n", "unsupported catalog schema_version 2"),
        ('schema_version = "1"\n', "not an integer"),
        ("[[agents]]\nid='claude'\npath='c.toml'\n", "missing"),
        (GOOD + 'extra = "x"\n', "unknown key 'extra'"),
        ('schema_version = 1\n[[agents]]\nid = "claude"\npath = ""\n', "must not be empty"),
        ('schema_version = 1\n[[agents]]\nid = "claude"\npath = "/etc/x"\n', "below"),
        ('schema_version = 1\n[[agents]]\nid = "claude"\npath = "a/../../x"\n', "below"),
        ('schema_version = 1\n[[agents]]\nid = "claude"\npath = "http://e/x"\n', "below"),
        (GOOD + '[[agents]]\nid = "Claude-Code"\npath = "c2.toml"\n', "listed twice"),
        (GOOD.replace('path = "claude.toml"', 'path = "c.toml"\nsha256 = "zz"'), "64 hex"),
        ("schema_version = 1\nagents = 3\n", "array of tables"),
        ("not toml = = \n", "invalid catalog"),
    ],
    ids=[
        "schema-2",
        "schema-string",
        "schema-missing",
        "unknown-entry-key",
        "empty-path",
        "absolute-path",
        "dotdot-path",
        "url-path",
        "duplicate-agent",
        "bad-sha",
        "agents-not-array",
        "not-toml",
    ],
)
def test_bad_catalog_is_rejected_whole(text: str, error: str) -> None:
    with pytest.raises(CatalogError, match=error):
        parse_catalog(text)


def test_catalog_keeps_order_and_skips_unknown_agents() -> None:
    text = (
        "schema_version = 1\n"
        '[[agents]]\nid = "codex"\npath = "codex.toml"\n'
        '[[agents]]\nid = "nobody-knows"\npath = "x.toml"\n'
        f'[[agents]]\nid = "claude"\npath = "sub/claude.toml"\nsha256 = "{"A" * 64}"\n'
    )
    catalog = parse_catalog(text)
    assert [(e.agent.label, e.path) for e in catalog.entries] == [
        ("codex", "codex.toml"),
        ("claude", "sub/claude.toml"),
    ]
    assert catalog.entries[1].sha256 == "a" * 64
    assert catalog.warnings == ("skipped catalog entry 'nobody-knows': unknown agent",)


@pytest.mark.parametrize(
    ("catalog", "path", "url"),
    [
        (
            "https://h.dev/agent-detection/index.toml",
            "claude.toml",
            "https://h.dev/agent-detection/claude.toml",
        ),
        ("http://127.0.0.1:8/a//index.toml", "x/c.toml", "http://127.0.0.1:8/a/x/c.toml"),
        ("file:///srv/m/index.toml", "c.toml", "file:///srv/m/c.toml"),
    ],
    ids=["https", "trailing-slashes", "file"],
)
def test_manifest_url_is_relative_to_the_catalog(catalog: str, path: str, url: str) -> None:
    assert manifest_url(catalog, path) == url


@pytest.mark.parametrize(
    ("env", "url"),
    [
        ({}, DEFAULT_CATALOG_URL),
        ({"HERDR_AGENT_DETECTION_MANIFEST_CATALOG_URL": "  "}, DEFAULT_CATALOG_URL),
        ({"HERDR_AGENT_DETECTION_MANIFEST_CATALOG_URL": " http://x/i.toml\n"}, "http://x/i.toml"),
    ],
    ids=["default", "blank", "trimmed"],
)
def test_catalog_url_from_env(env: dict[str, str], url: str) -> None:
    assert catalog_url(env) == url


def test_status_round_trips_and_is_toml(tmp_path: Path) -> None:
    agents = {
        "claude": AgentStatus("2099.1", "2099.1", 10, "updated", None),
        "github-copilot": AgentStatus(None, None, 11, "failed", 'fetch "failed"\n\x7f é'),
    }
    text = render_status(12, "checked", agents)
    doc = tomllib.loads(text)
    assert doc["last_check_unix"] == 12 and doc["last_result"] == "checked"
    path = tmp_path / "status.toml"
    path.write_text(text, "utf-8")
    assert read_status(path) == (agents, None)


def test_corrupt_status_reads_as_empty_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "status.toml"
    path.write_bytes(b"last_result = \x00\xff")
    entries, warning = read_status(path)
    assert entries == {} and warning is not None and str(path) in warning


@pytest.mark.parametrize(
    ("bundled", "published", "remote_wins"),
    [
        ("2026.08.21.1.1", "2026.08.21.1", False),  # herdr's same base is older than ours
        ("2026.08.21.1.1", "2026.08.21.2", True),  # herdr's next release beats ours
        ("2026.08.21.1.2", "2026.08.22", True),
        ("2026.08.21.1.1", "2026.08.21.1.1", True),  # equal: remote is used (§7.2)
    ],
    ids=["same-base", "next-release", "next-day", "equal"],
)
def test_bundled_fifth_segment_order(bundled: str, published: str, remote_wins: bool) -> None:
    assert (parse_version(published) >= parse_version(bundled)) is remote_wins


def test_newer_published_manifest_is_not_shadowed_by_bundled(tmp_path: Path) -> None:
    claude = parse_agent_label("claude")
    assert claude is not None
    dirs = ManifestDirs(tmp_path / "override", tmp_path / "remote", tmp_path / "status.toml")
    dirs.remote_dir.mkdir()
    bundled = load_agent_manifest(claude, dirs).active_version
    assert bundled is not None and len(bundled.split(".")) == 5
    base = ".".join(bundled.split(".")[:4])
    for version, kind in ((base, "bundled"), (f"{base[:-1]}{int(base[-1]) + 1}", "remote")):
        (dirs.remote_dir / "claude.toml").write_text(
            f'id = "claude"\nversion = "{version}"\nmin_engine_version = 1\n'
            '[[rules]]\nid = "r"\nstate = "idle"\npriority = 1\n'
            "region = \"bottom_non_empty_lines(3)\"\nline_regex = ['x']\n",
            "utf-8",
        )
        loaded = load_agent_manifest(claude, dirs)
        assert loaded.source_kind == kind, loaded.warning
        assert loaded.cached_remote_version == version
