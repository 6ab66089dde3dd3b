"""Our bundled manifests carry our own version line (docs/manifest-versions.md).

herdr publishes ``YYYY.MM.DD.N`` (four segments) in remote updates. Ours are the
herdr version a manifest was rewritten from plus a fifth segment ``R >= 1`` (our
revision), so the two lines never compare equal (trailing zeros do not count,
hence ``R`` is never 0). ``data/manifest_versions.json`` records each file's
version with its content hash, so content that changes without a version bump
fails here (the same rule remote updates enforce on herdr's side, §7.5).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from importlib.resources import files
from pathlib import Path

import pytest

from herdr.detect.manifest.version import parse_version

RECORD_FILE = Path(__file__).parent / "data" / "manifest_versions.json"
OUR_VERSION = re.compile(r"^(20[0-9]{2})\.([0-9]{2})\.([0-9]{2})\.([1-9][0-9]*)\.([1-9][0-9]*)$")
MANIFEST_DIR = files("herdr.detect") / "manifests"
FILES = sorted(entry.name for entry in MANIFEST_DIR.iterdir() if entry.name.endswith(".toml"))


def _record() -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(RECORD_FILE.read_text(encoding="utf-8"))
    return data


def _current(name: str) -> tuple[str, str]:
    raw = (MANIFEST_DIR / name).read_bytes()
    version = tomllib.loads(raw.decode("utf-8"))["version"]
    assert isinstance(version, str)
    return version, hashlib.sha256(raw).hexdigest()


@pytest.mark.parametrize("name", FILES)
def test_bundled_version_is_on_our_line(name: str) -> None:
    version, _ = _current(name)
    assert OUR_VERSION.match(version), f"{name}: {version!r} is not <herdr base>.<our revision>"
    herdr_base = parse_version(version.rsplit(".", 1)[0])
    assert parse_version(version) > herdr_base  # never equal to herdr's own release


@pytest.mark.parametrize("name", FILES)
def test_content_changes_bump_the_version(name: str) -> None:
    version, digest = _current(name)
    recorded = _record().get(name)
    entry = json.dumps({name: {"sha256": digest, "version": version}})
    assert recorded is not None, f"record missing for {name}; add {entry}"
    if recorded["sha256"] != digest:
        assert parse_version(version) > parse_version(recorded["version"]), (
            f"{name} changed without a version bump above {recorded['version']}"
        )
        pytest.fail(f"{name} was bumped to {version}: update {RECORD_FILE.name} with {entry}")
    assert version == recorded["version"], f"{name}: version changed, content did not"


def test_record_lists_exactly_the_bundled_files() -> None:
    assert sorted(_record()) == FILES


@pytest.mark.parametrize(
    ("herdr", "ours"),
    [
        pytest.param("2026.08.21.1", "2026.08.21.1.1", id="same-base"),
        pytest.param("2026.08.21.1", "2026.08.21.1.7", id="later-revision"),
    ],
)
def test_herdr_release_of_the_same_base_is_older(herdr: str, ours: str) -> None:
    assert parse_version(herdr) < parse_version(ours) < parse_version("2026.08.21.2")
