"""Which manifest layer decided an agent's rules, at which version, and why others lost.

Explain answers "why is this old rule still used?" only if it names the winner and
every layer it beat (issue 17 item 4). These fields are additive to the protocol-22
explain object, which the schema leaves open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from herdr.detect.manifest.sources import LoadedManifest

# The source names explain reports (``manifest_decided_by.source``).
DECIDED_BUNDLED = "bundled"
DECIDED_REMOTE = "remote"
DECIDED_OVERRIDE = "override"
DECIDED_USER_KIND = "user kind"

_BY_SOURCE_KIND = {
    "bundled": DECIDED_BUNDLED,
    "remote": DECIDED_REMOTE,
    "local override": DECIDED_OVERRIDE,
    "user kind": DECIDED_USER_KIND,
}


def decision_fields(loaded: LoadedManifest | None) -> dict[str, object]:
    """``manifest_decided_by`` ({source, version, path}) and ``manifest_not_used`` (reasons)."""
    if loaded is None:
        return {"manifest_decided_by": None, "manifest_not_used": []}
    return {
        "manifest_decided_by": {
            "source": _BY_SOURCE_KIND.get(loaded.source_kind, loaded.source_kind),
            "version": loaded.manifest.version,
            "path": str(loaded.path) if loaded.path is not None else None,
        },
        "manifest_not_used": list(loaded.not_used),
    }


def decision_lines(doc: dict[str, object]) -> list[str]:
    """Text lines for ``herdr agent explain``: the winner, then each layer it beat."""
    decided = doc.get("manifest_decided_by")
    if not isinstance(decided, dict):
        return []
    source = decided.get("source")
    version = decided.get("version")
    lines = [
        f"decided by: {source if isinstance(source, str) else 'unknown'} "
        f"{version if isinstance(version, str) else 'unversioned'}"
    ]
    not_used = doc.get("manifest_not_used")
    if isinstance(not_used, list):
        lines.extend(f"not used: {note}" for note in not_used if isinstance(note, str))
    return lines
