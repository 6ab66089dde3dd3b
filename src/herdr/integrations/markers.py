"""Version markers in the files we install (``# HERDR_INTEGRATION_VERSION=8``), pure."""

from __future__ import annotations

from dataclasses import dataclass

MARKER = "HERDR_INTEGRATION_VERSION="
NOT_INSTALLED = "not_installed"
CURRENT = "current"
OUTDATED = "outdated"


def version_of(text: str) -> int | None:
    """The first marker line's version (after stripping ``//``/``#`` and blanks)."""
    for line in text.splitlines():
        body = line.strip().lstrip("/").lstrip("#").strip()
        if body.startswith(MARKER):
            digits = body[len(MARKER) :].strip()
            end = 0
            while end < len(digits) and digits[end].isdigit():
                end += 1
            if end:
                return int(digits[:end])
    return None


@dataclass(frozen=True)
class Status:
    """``state`` is an API ``IntegrationState``; ``installed`` is None for a legacy file."""

    state: str
    path: str
    expected: int
    installed: int | None = None
    needs_repair: bool = False

    def describe(self) -> str:
        if self.state == NOT_INSTALLED:
            return "not installed"
        if self.state == CURRENT:
            return f"current (v{self.installed})"
        if self.needs_repair:
            return f"needs repair (v{self.installed})"
        have = "legacy" if self.installed is None else f"v{self.installed}"
        return f"outdated ({have} < v{self.expected})"


def status_of(text: str | None, path: str, expected: int, *, config_ok: bool = True) -> Status:
    """``text`` is the status file's content (None: not a regular file)."""
    if text is None:
        return Status(NOT_INSTALLED, path, expected)
    found = version_of(text)
    if found is not None and found >= expected:
        if config_ok:
            return Status(CURRENT, path, expected, found)
        return Status(OUTDATED, path, expected, found, needs_repair=True)
    return Status(OUTDATED, path, expected, found)
