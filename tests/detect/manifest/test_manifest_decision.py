"""Explain names the deciding manifest layer and version, and why each other layer lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from herdr.detect.agents import Agent
from herdr.detect.manifest.decision import decision_fields, decision_lines
from herdr.detect.manifest.sources import ManifestDirs, load_agent_manifest, load_bundled

BUNDLED = load_bundled(Agent.CLAUDE).version


def _manifest(version: str, id_: str = "claude") -> str:
    return (
        f'id = "{id_}"\nversion = "{version}"\nmin_engine_version = 3\n\n'
        '[[rules]]\nid = "probe"\nstate = "blocked"\ncontains = ["xyzzy"]\n'
    )


@pytest.fixture
def dirs(tmp_path: Path) -> ManifestDirs:
    d = ManifestDirs(
        override_dir=tmp_path / "config" / "agent-detection",
        remote_dir=tmp_path / "state" / "remote",
        status_file=tmp_path / "state" / "status.toml",
    )
    d.override_dir.mkdir(parents=True)
    d.remote_dir.mkdir(parents=True)
    return d


CASES = [
    # (remote text, override text, decided source, decided version, not_used fragments)
    (None, None, "bundled", BUNDLED, []),
    (
        _manifest("2026.08.21.1"),
        None,
        "bundled",
        BUNDLED,
        [f"remote 2026.08.21.1 ignored: older than bundled {BUNDLED}"],
    ),
    (
        _manifest("2099.1.1"),
        None,
        "remote",
        "2099.1.1",
        [f"bundled {BUNDLED} not used: remote 2099.1.1 is not older"],
    ),
    (
        _manifest("2099.1.1"),
        _manifest("2000.1.1"),
        "override",
        "2000.1.1",
        [
            f"bundled {BUNDLED} not used: remote 2099.1.1 is not older",
            "remote 2099.1.1 not used: local override",
        ],
    ),
    (None, _manifest("2000.1.1", id_="codex"), "bundled", BUNDLED, ["ignored: manifest id codex"]),
    (None, "id = [", "bundled", BUNDLED, ["ignored: it could not be loaded"]),
    ("not toml [", None, "bundled", BUNDLED, ["ignored: it could not be loaded"]),
]


@pytest.mark.parametrize(
    ("remote", "override", "source", "version", "notes"),
    CASES,
    ids=[
        "bundled-only",
        "older-remote",
        "newer-remote",
        "override-beats-newer-remote",
        "override-wrong-id",
        "override-bad-toml",
        "remote-bad-toml",
    ],
)
def test_decision_names_winner_and_losers(
    dirs: ManifestDirs,
    *,
    remote: str | None,
    override: str | None,
    source: str,
    version: str | None,
    notes: list[str],
) -> None:
    if remote is not None:
        (dirs.remote_dir / "claude.toml").write_text(remote, "utf-8")
    if override is not None:
        (dirs.override_dir / "claude.toml").write_text(override, "utf-8")
    fields = decision_fields(load_agent_manifest(Agent.CLAUDE, dirs))
    decided = fields["manifest_decided_by"]
    assert isinstance(decided, dict)
    assert (decided["source"], decided["version"]) == (source, version)
    not_used = fields["manifest_not_used"]
    assert isinstance(not_used, list) and len(not_used) == len(notes)
    for note, fragment in zip(not_used, notes, strict=True):
        assert fragment in note
    text = decision_lines(fields)
    assert text[0] == f"decided by: {source} {version}"
    assert text[1:] == [f"not used: {n}" for n in not_used]


def test_no_manifest_means_no_decision() -> None:
    assert decision_fields(None) == {"manifest_decided_by": None, "manifest_not_used": []}
    assert decision_lines(decision_fields(None)) == []
