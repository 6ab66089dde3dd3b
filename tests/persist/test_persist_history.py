"""Pane screen history: bounds, strict format, 0600 file, removal, unusable files."""

from __future__ import annotations

import logging
import stat
from pathlib import Path

import orjson
import pytest

from herdr.persist import history
from herdr.persist.errors import SnapshotFormatError, SnapshotVersionError
from herdr.persist.history import HistoryLimits, PaneHistory, bound, count_lines


@pytest.mark.parametrize(
    ("text", "lines"),
    [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("a\nb\n", 2), ("\n", 1), ("a\r\nb\r\n", 2)],
)
def test_count_lines_like_str_lines(text: str, lines: int) -> None:
    assert count_lines(text) == lines


BOUNDS = [
    ("under", "a\nb\nc", HistoryLimits(5, 100), "a\nb\nc"),
    ("lines", "a\nb\nc\nd", HistoryLimits(2, 100), "c\nd"),
    ("lines-trailing-nl", "a\nb\nc\n", HistoryLimits(2, 100), "b\nc\n"),
    ("crlf", "1\r\n2\r\n3\r\n", HistoryLimits(1, 100), "3\r\n"),
    ("bytes-cut-at-line-start", "aaaa\nbbbb\ncccc", HistoryLimits(10, 8), "cccc"),
    ("bytes-fit-from-line-start", "aaaa\nbbbb\ncccc", HistoryLimits(10, 9), "bbbb\ncccc"),
    ("bytes-exact", "aaaa\nbbbb", HistoryLimits(10, 9), "aaaa\nbbbb"),
    ("long-line-tail", "x" * 20, HistoryLimits(10, 8), "x" * 8),
    ("utf8-boundary", "ééééé", HistoryLimits(10, 5), "éé"),  # 2 bytes each; a split one is dropped
    ("zero-lines", "a\nb", HistoryLimits(0, 100), ""),
    ("zero-bytes", "a\nb", HistoryLimits(5, 0), ""),
    ("empty", "", HistoryLimits(5, 5), ""),
]


@pytest.mark.parametrize(
    ("text", "limits", "kept"), [(t, li, k) for _, t, li, k in BOUNDS], ids=[b[0] for b in BOUNDS]
)
def test_bound_keeps_the_newest_lines(text: str, limits: HistoryLimits, kept: str) -> None:
    result = bound(text, limits)
    assert result == PaneHistory(kept, count_lines(kept))
    assert result.lines <= limits.max_lines
    assert len(result.ansi.encode()) <= limits.max_bytes


def test_bound_replaces_lone_surrogates() -> None:
    assert bound("ok \udcff\n").ansi == "ok ?\n"


def test_encode_decode_round_trip_reapplies_bounds() -> None:
    panes = {
        "w1:p1": PaneHistory("\x1b[32mok\x1b[0m\r\n$ ", 2),
        "w2:pA": PaneHistory("1\n2\n3\n4\n", 4),
    }
    limits = HistoryLimits(max_lines=2, max_bytes=1000)
    decoded = history.decode(history.encode(panes, limits), limits)
    assert decoded == {
        "w1:p1": PaneHistory("\x1b[32mok\x1b[0m\r\n$ ", 2),
        "w2:pA": PaneHistory("3\n4\n", 2),
    }


def test_decoding_rebounds_a_hand_edited_file() -> None:
    doc = {"version": 1, "panes": {"w1:p1": {"ansi": "a\n" * 50, "lines": 1}}}
    decoded = history.decode(orjson.dumps(doc), HistoryLimits(max_lines=3, max_bytes=100))
    assert decoded["w1:p1"] == PaneHistory("a\na\na\n", 3)


MALFORMED = [
    ("not-json", b"{", "$"),
    ("no-version", b'{"panes": {}}', "$.version"),
    ("panes-list", b'{"version": 1, "panes": []}', "$.panes"),
    ("bad-pane-id", b'{"version": 1, "panes": {"p1": {"ansi": "", "lines": 0}}}', '$.panes["p1"]'),
    ("ansi-missing", b'{"version": 1, "panes": {"w1:p1": {"lines": 0}}}', '$.panes["w1:p1"].ansi'),
    (
        "lines-string",
        b'{"version": 1, "panes": {"w1:p1": {"ansi": "", "lines": "0"}}}',
        '$.panes["w1:p1"].lines',
    ),
]


@pytest.mark.parametrize(
    ("data", "path"), [(d, p) for _, d, p in MALFORMED], ids=[m[0] for m in MALFORMED]
)
def test_malformed_history_names_the_path(data: bytes, path: str) -> None:
    with pytest.raises(SnapshotFormatError) as info:
        history.decode(data)
    assert info.value.path == path


def test_newer_history_version_is_refused() -> None:
    with pytest.raises(SnapshotVersionError):
        history.decode(b'{"version": 2, "panes": {}}')


def test_encode_refuses_non_canonical_pane_ids() -> None:
    with pytest.raises(SnapshotFormatError):
        history.encode({"term_1": PaneHistory("x", 1)})


def test_file_is_0600_and_removable(tmp_path: Path) -> None:
    path = tmp_path / history.HISTORY_FILE
    history.write_history(path, {"w1:p1": PaneHistory("token=abc\n", 1)})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert history.read_history(path) == {"w1:p1": PaneHistory("token=abc\n", 1)}
    assert history.remove_history(path) is True
    assert not path.exists()
    assert history.remove_history(path) is False
    assert history.read_history(path) == {}


def test_write_bounds_each_pane(tmp_path: Path) -> None:
    path = tmp_path / history.HISTORY_FILE
    history.write_history(path, {"w1:p1": PaneHistory("x\n" * 100, 100)}, HistoryLimits(10, 1000))
    assert history.read_history(path)["w1:p1"].lines == 10


def test_unusable_history_is_ignored_with_a_warning_and_not_backed_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / history.HISTORY_FILE
    path.write_bytes(b'{"version": 1, "panes": {"w1:p1": 3}}')
    with caplog.at_level(logging.WARNING, logger="herdr.persist"):
        assert history.read_history(path) == {}
    assert "w1:p1" in caplog.text
    assert sorted(p.name for p in tmp_path.iterdir()) == [history.HISTORY_FILE]
