"""``parse_manifest``: TOML text → validated, compiled :class:`Manifest`.

Used alike for bundled, cached remote and override files (detection-spec §7.2);
whether ``version``/``min_engine_version`` are required is the caller's business.
"""

from __future__ import annotations

from herdr.detect.manifest.model import Manifest
from herdr.detect.manifest.schema import parse_raw_manifest
from herdr.detect.manifest.validate import validate_manifest


def parse_manifest(text: str) -> Manifest:
    """Parse, validate and compile a manifest; raises :class:`ManifestError`.

    :class:`ManifestCompileError` (a subclass) means the file is valid but uses
    regex syntax this port cannot compile (the "could not be compiled" warning).
    """
    raw = parse_raw_manifest(text)
    rules = validate_manifest(raw)
    return Manifest(
        id=raw.id,
        version=None if raw.version is None else raw.version.text,
        min_engine_version=raw.min_engine_version,
        aliases=raw.aliases,
        rules=rules,
    )
