"""PURE: which agents' rules a manifest reload changed, and how the notice names them.

A reload (background update, ``server.reload_agent_manifests``, a watched file edit)
rebuilds every agent's manifest; only the agents whose deciding content changed get
their panes' detection restarted and appear in the "Agent detection rules updated"
toast (detection-spec §7.6), so a claude fix leaves a codex pane's hold timers alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from msgspec import Struct

from herdr.detect.agents import Agent

TOAST_TITLE = "Agent detection rules updated"


class _Loaded(Protocol):
    @property
    def source_kind(self) -> str: ...
    @property
    def active_version(self) -> str | None: ...
    @property
    def digest(self) -> str: ...


class ManifestChange(Struct, frozen=True):
    """One agent whose active rules differ after a reload (``version`` None: removed)."""

    agent: Agent
    version: str | None
    removed: bool = False

    @property
    def label(self) -> str:
        return self.agent.label

    def shown(self) -> str:
        """``label version`` (the toast's list item)."""
        if self.removed:
            return f"{self.label} removed"
        return f"{self.label} {self.version or 'unversioned'}"


def _identity(loaded: _Loaded) -> tuple[str, str]:
    return loaded.source_kind, loaded.digest


def changed_agents(
    before: Mapping[Agent, _Loaded], after: Mapping[Agent, _Loaded]
) -> list[ManifestChange]:
    """Agents added, removed or with other deciding content (source or file text)."""
    out: list[ManifestChange] = []
    for agent, new in after.items():
        old = before.get(agent)
        if old is None or _identity(old) != _identity(new):
            out.append(ManifestChange(agent, new.active_version))
    out.extend(ManifestChange(agent, None, True) for agent in before if agent not in after)
    return sorted(out, key=lambda change: change.label)


def toast_body(changes: list[ManifestChange]) -> str:
    """``claude 2099.1, zork 2026.12.2`` (the spec's ``label version, …``)."""
    return ", ".join(change.shown() for change in changes)
