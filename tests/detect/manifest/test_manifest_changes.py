"""Which agents a reload changed, and the toast's ``label version, …`` list."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from herdr.detect.agents import Agent
from herdr.detect.manifest.changes import ManifestChange, changed_agents, toast_body


@dataclass(frozen=True)
class Loaded:
    source_kind: str
    active_version: str | None
    digest: str


BUNDLED = Loaded("bundled", "2026.1", "a")


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ({Agent.CLAUDE: BUNDLED}, {Agent.CLAUDE: BUNDLED}, []),
        (
            {Agent.CLAUDE: BUNDLED},
            {Agent.CLAUDE: Loaded("remote", "2099.1", "b")},
            [ManifestChange(Agent.CLAUDE, "2099.1")],
        ),
        (
            {Agent.CLAUDE: BUNDLED},
            {Agent.CLAUDE: Loaded("bundled", "2026.1", "c")},
            [ManifestChange(Agent.CLAUDE, "2026.1")],
        ),
        (
            {Agent.CLAUDE: BUNDLED, Agent.CODEX: BUNDLED},
            {Agent.CLAUDE: BUNDLED},
            [ManifestChange(Agent.CODEX, None, True)],
        ),
        (
            {Agent.CODEX: BUNDLED},
            {Agent.CODEX: Loaded("local override", None, "d"), Agent.CLAUDE: BUNDLED},
            [ManifestChange(Agent.CLAUDE, "2026.1"), ManifestChange(Agent.CODEX, None)],
        ),
    ],
    ids=["same", "newer-remote", "same-version-new-text", "removed", "added-and-unversioned"],
)
def test_changed_agents(
    before: dict[Agent, Loaded], after: dict[Agent, Loaded], expected: list[ManifestChange]
) -> None:
    assert changed_agents(before, after) == expected


def test_toast_body_lists_label_and_version() -> None:
    changes = [
        ManifestChange(Agent.CLAUDE, "2099.1"),
        ManifestChange(Agent.CODEX, None),
        ManifestChange(Agent.PI, None, True),
    ]
    assert toast_body(changes) == "claude 2099.1, codex unversioned, pi removed"
