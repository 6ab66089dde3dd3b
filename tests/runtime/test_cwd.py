"""The one rule for a pane's working directory (`runtime.cwd.working_dir`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from herdr.runtime.cwd import working_dir

DIRS = frozenset({"/work", "/job", "/home/u"})


def is_dir(path: str) -> bool:
    return path in DIRS


@pytest.mark.parametrize(
    ("live", "recorded", "fallback", "expected"),
    [
        (["/job", "/work"], "/old", "/home/u", "/job"),
        ([None, "/work"], "/old", "/home/u", "/work"),
        (["/gone (deleted)", "/work"], "/old", "/home/u", "/work"),
        (["relative", "/work"], "/old", "/home/u", "/work"),
        (["/missing", None], "/old", "/home/u", "/old"),
        ([], "/old", "/home/u", "/old"),
        ([], None, "/home/u", "/home/u"),
        ([], None, None, None),
        (["/old-but-recorded"], "/old-but-recorded", None, "/old-but-recorded"),
    ],
    ids=[
        "foreground-first",
        "foreground-unreadable-then-shell",
        "deleted-dir-skipped",
        "relative-skipped",
        "no-live-reading-then-recorded",
        "exited-then-recorded",
        "nothing-recorded-then-fallback",
        "nothing-at-all",
        "equal-to-recorded-is-not-rechecked",
    ],
)
def test_working_dir(
    live: list[str | None], recorded: str | None, fallback: str | None, expected: str | None
) -> None:
    assert working_dir(live, recorded, fallback, is_dir=is_dir) == expected


def test_live_readings_are_taken_lazily() -> None:
    """A usable foreground reading means the shell's cwd is never read."""
    read: list[str] = []

    def readings() -> Iterator[str | None]:
        read.append("foreground")
        yield "/job"
        read.append("shell")
        yield "/work"

    assert working_dir(readings(), None, is_dir=is_dir) == "/job"
    assert read == ["foreground"]
