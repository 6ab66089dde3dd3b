"""Errors raised while loading a detection manifest.

One exception type reaches callers so a bad override or remote file is reported
as a single line in a warning (detection-spec §7.2) instead of a traceback.
"""

from __future__ import annotations


class ManifestError(Exception):
    """A manifest could not be parsed, validated or compiled; ``str(e)`` is one line."""

    def __init__(self, message: str) -> None:
        # Warnings and CLI output are line oriented: never let a message span lines.
        super().__init__(" ".join(message.splitlines()))


class ManifestCompileError(ManifestError):
    """The manifest is valid herdr syntax but uses regex syntax this port cannot compile.

    The original distinguishes "could not be loaded" (parse/validation) from
    "could not be compiled"; sources use this subclass to pick the warning text.
    """
