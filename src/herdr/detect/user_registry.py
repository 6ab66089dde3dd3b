"""Loading user kinds into the live agent tables, keeping the last good set on bad edits.

"Invalid files change nothing else": a kind whose file turns invalid keeps its last
good definition (and its manifest) until the file is fixed; the error is reported.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from herdr.detect.agents import BUILTIN_NAMES, AgentInfo, HookTier, set_user_kinds
from herdr.detect.process import forget_cached_names
from herdr.detect.user_kinds import UserKind, UserKindError, load_user_kinds

SOURCE_USER_KIND = "user kind"


def _info(kind: UserKind) -> AgentInfo:
    spec = kind.spec
    return AgentInfo(
        spec.label, spec.name, spec.command[0], spec.lookup_names, None, HookTier.NONE, None
    )


@dataclass
class UserKindRegistry:
    """The user kinds in use and the diagnostics of the last load."""

    directory: str
    kinds: dict[str, UserKind] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def load(self) -> list[UserKind]:
        """Re-read the directory; registers the result and returns it (label order)."""
        with self._lock:
            fresh, errors = load_user_kinds(self.directory, BUILTIN_NAMES)
            by_label = {kind.spec.label: kind for kind in fresh}
            by_path = {kind.spec.path: kind for kind in self.kinds.values()}
            for error in errors:
                kept = by_path.get(error.path) or self._by_manifest(error)
                if kept is not None and kept.spec.label not in by_label:
                    by_label[kept.spec.label] = kept  # last good definition stays
            self.kinds = dict(sorted(by_label.items()))
            self.errors = [str(e) for e in errors]
            set_user_kinds(
                [(_info(k), k.spec.argv_patterns, k.spec.command) for k in self.kinds.values()]
            )
            forget_cached_names()
            return list(self.kinds.values())

    def _by_manifest(self, error: UserKindError) -> UserKind | None:
        for kind in self.kinds.values():
            if error.path in (kind.manifest_path, kind.spec.path):
                return kind
        return None
