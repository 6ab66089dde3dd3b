"""Engine version and dotted manifest versions (detection-spec §4.5, §7.4).

Versions decide whether a cached remote manifest may replace the bundled one,
so ordering must be numeric per segment with missing trailing segments as 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from herdr.detect.agents import rust_trim
from herdr.detect.manifest.errors import ManifestError

ENGINE_VERSION: int = 3
"""``MANIFEST_ENGINE_VERSION``: v3 introduced ``top_non_empty_lines(n)``."""

TOP_NON_EMPTY_LINES_ENGINE_VERSION = 3
_U64_MAX = 2**64 - 1


@dataclass(frozen=True, order=True, slots=True)
class ManifestVersion:
    """A parsed dotted numeric version; compares numerically, displays as written."""

    key: tuple[int, ...]
    text: str = field(compare=False)

    def __str__(self) -> str:
        return self.text


def parse_version(text: str) -> ManifestVersion:
    """Parse ``2026.08.21.1``-style versions; trailing zero segments do not matter."""
    trimmed = rust_trim(text)
    if not trimmed:
        raise ManifestError("invalid manifest version: version must not be empty")
    segments: list[int] = []
    for segment in trimmed.split("."):
        if not segment or not (segment.isascii() and segment.isdigit()):
            raise ManifestError(
                f"invalid manifest version {trimmed!r}: segment {segment!r} is not a number"
            )
        value = int(segment)
        if value > _U64_MAX:
            raise ManifestError(
                f"invalid manifest version {trimmed!r}: segment {segment!r} is too large"
            )
        segments.append(value)
    while segments and segments[-1] == 0:
        segments.pop()
    return ManifestVersion(tuple(segments), trimmed)
