"""``persist.dismissals``: the per-user file of dismissed release notes and announcements.

Pure parse/render round trips, hostile file contents read as "nothing dismissed",
bounded growth, and the hint decision (none on a first install or once dismissed).
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from herdr.persist import dismissals as d


def test_round_trip_and_dedup() -> None:
    doc = d.Dismissed().with_release_notes("0.9.1").with_release_notes("0.9.2")
    doc = doc.with_release_notes("0.9.1").with_announcement("0.9.2", "launch")
    doc = doc.with_announcement("0.9.2", "launch")
    assert doc.release_notes == ("0.9.2", "0.9.1")  # re-dismissed moves to the newest end
    assert doc.announcements == (("0.9.2", "launch"),)
    assert d.parse(d.render(doc)) == doc


def test_growth_is_bounded() -> None:
    doc = d.Dismissed()
    for index in range(d.KEEP * 3):
        doc = doc.with_release_notes(str(index)).with_announcement(str(index), "a")
    assert len(doc.release_notes) == d.KEEP and doc.release_notes[-1] == str(d.KEEP * 3 - 1)
    assert len(doc.announcements) == d.KEEP


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xff\xfe",
        b"[]",
        b"null",
        b'{"release_notes": "0.9.2"}',
        b'{"release_notes": [1, null, {}], "product_announcements": [1, {"id": 2}]}',
        b'{"product_announcements": {"version": "1", "id": "x"}}',
        b"{" * 10000,
    ],
    ids=[
        "empty",
        "not-utf8",
        "list",
        "null",
        "notes-not-list",
        "wrong-item-types",
        "announcements-not-list",
        "deeply-nested",
    ],
)
def test_malformed_files_read_as_nothing_dismissed(data: bytes) -> None:
    assert d.parse(data) == d.Dismissed()


def test_save_is_private_and_load_reads_it(tmp_path: Path) -> None:
    doc = d.Dismissed().with_release_notes("1.0")
    d.save(tmp_path / "state", doc)
    path = tmp_path / "state" / d.FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert d.load(tmp_path / "state") == doc


def test_missing_huge_and_unreadable_files(tmp_path: Path) -> None:
    assert d.load_optional(tmp_path) is None
    assert d.load(tmp_path) == d.Dismissed()
    (tmp_path / d.FILE_NAME).write_bytes(b" " * (d._MAX_FILE_BYTES + 10))
    assert d.load_optional(tmp_path) == d.Dismissed()
    (tmp_path / d.FILE_NAME).unlink()
    (tmp_path / d.FILE_NAME).mkdir()  # not a file at all
    assert d.load_optional(tmp_path) == d.Dismissed()


@pytest.mark.parametrize(
    ("seen", "hint"),
    [
        (None, False),
        (d.Dismissed(), True),
        (d.Dismissed(("0.9.1",)), True),
        (d.Dismissed(("0.9.1", "0.9.2")), False),
    ],
    ids=["first-install", "empty-file", "older-version", "dismissed"],
)
def test_release_hint(seen: d.Dismissed | None, hint: bool) -> None:
    text = d.release_hint(seen, "0.9.2")
    assert (text is not None) == hint
    if text is not None:
        assert text.startswith("herdr 0.9.2: what's new")
