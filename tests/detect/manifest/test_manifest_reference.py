"""The original herdr manifests (shared/reference/herdr-manifests) parse and compile.

The reference copies live beside the repository (``../shared``), as on CI; the
test skips when they are absent. Rule counts are those of detection-spec §1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from herdr.detect.manifest import ENGINE_VERSION, parse_manifest, parse_version

REFERENCE_DIR = (
    Path(__file__).resolve().parents[3] / ".." / "shared" / "reference" / "herdr-manifests"
)

# file -> (manifest id, rule count, version, min_engine_version) per detection-spec §1
EXPECTED = {
    "amp.toml": ("amp", 6, "2026.07.09.1", 2),
    "antigravity.toml": ("agy", 3, "2026.06.24.1", 1),
    "claude.toml": ("claude", 16, "2026.08.21.1", 2),
    "cline.toml": ("cline", 2, "2026.06.10.1", 1),
    "codex.toml": ("codex", 8, "2026.08.09.1", 3),
    "cursor.toml": ("cursor", 5, "2026.08.03.1", 1),
    "devin.toml": ("devin", 7, "2026.06.15.1", 1),
    "droid.toml": ("droid", 4, "2026.06.10.1", 1),
    "gemini.toml": ("gemini", 2, "2026.06.10.1", 1),
    "github-copilot.toml": ("copilot", 2, "2026.07.07.1", 1),
    "grok.toml": ("grok", 14, "2026.07.16.2", 3),
    "hermes.toml": ("hermes", 9, "2026.07.24.1", 2),
    "kilo.toml": ("kilo", 2, "2026.06.10.1", 1),
    "kimi.toml": ("kimi", 6, "2026.06.10.1", 1),
    "kiro.toml": ("kiro", 5, "2026.08.01.1", 1),
    "maki.toml": ("maki", 5, "2026.07.09.2", 1),
    "opencode.toml": ("opencode", 3, "2026.06.10.1", 1),
    "pi.toml": ("pi", 1, "2026.06.10.1", 1),
    "qodercli.toml": ("qodercli", 3, "2026.06.10.1", 1),
    "qwen.toml": ("qwen", 10, "2026.08.14.1", 2),
}

needs_reference = pytest.mark.skipif(
    not REFERENCE_DIR.is_dir(), reason=f"reference manifests not found at {REFERENCE_DIR}"
)


@needs_reference
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reference_manifest_parses(name: str) -> None:
    manifest = parse_manifest((REFERENCE_DIR / name).read_text(encoding="utf-8"))
    manifest_id, count, version, engine = EXPECTED[name]
    assert (manifest.id, len(manifest.rules), manifest.version) == (manifest_id, count, version)
    assert manifest.min_engine_version == engine
    assert manifest.min_engine_version <= ENGINE_VERSION
    assert manifest.parsed_version == parse_version(version)
    assert len({rule.id for rule in manifest.rules}) == count


@needs_reference
def test_reference_directory_is_complete() -> None:
    assert sorted(p.name for p in REFERENCE_DIR.glob("*.toml")) == sorted(EXPECTED)
