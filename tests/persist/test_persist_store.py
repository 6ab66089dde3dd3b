"""session.json on disk: atomic writes, backups of unusable files, read-only data dirs."""

from __future__ import annotations

import errno
import logging
import os
import random
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from herdr.persist import files, snapshot
from herdr.persist.errors import PersistWriteError
from herdr.persist.health import PersistHealth, SaveError
from herdr.persist.history import PaneHistory
from herdr.persist.snapshot import PaneSnapshot, SessionSnapshot, TabSnapshot, WorkspaceSnapshot
from herdr.persist.store import (
    BACKUP_DIR,
    HISTORY_FILE,
    SESSION_FILE,
    SessionStore,
    backup_bytes,
    list_backups,
    rotate_backups,
)
from herdr.runtime.layout import Leaf

SRC = str(Path(__file__).resolve().parents[2] / "src")


def one_workspace(label: str = "keep", cwd: str = "/tmp") -> SessionSnapshot:
    tab = TabSnapshot(layout=Leaf(1), panes={1: PaneSnapshot(cwd)}, focused=1, root_pane=1)
    ws = WorkspaceSnapshot(
        id="w1",
        identity_cwd=cwd,
        tabs=(tab,),
        public_pane_numbers={1: 1},
        public_tab_numbers=(1,),
        next_public_pane_number=2,
        next_public_tab_number=2,
        custom_name=label,
    )
    return SessionSnapshot((ws,), active=0)


class Clock:
    """Wall clock for backup names, advanced by hand."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def leftovers(directory: Path) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.endswith(files.TEMP_SUFFIX))


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "data"
    path.mkdir()
    yield path
    for sub in (path, path / BACKUP_DIR):
        if sub.exists():
            sub.chmod(0o700)  # undo read-only tests so tmp_path can be cleaned


# --------------------------------------------------------------------------- atomic write


def test_atomic_write_creates_0600_file_and_leaves_no_temp(data_dir: Path) -> None:
    target = data_dir / "f.json"
    old = os.umask(0)
    try:
        files.atomic_write(target, b"one")
    finally:
        os.umask(old)
    assert target.read_bytes() == b"one"
    assert mode_of(target) == 0o600
    assert leftovers(data_dir) == []


def test_atomic_write_replaces_and_tightens_mode(data_dir: Path) -> None:
    target = data_dir / "f.json"
    target.write_bytes(b"old")
    target.chmod(0o644)
    (data_dir / "f.json.tmp").write_bytes(b"crash leftover")
    (data_dir / "f.json.tmp").chmod(0o666)
    files.atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert mode_of(target) == 0o600
    assert leftovers(data_dir) == []


def test_atomic_write_creates_missing_parents(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "f.json"
    files.atomic_write(target, b"x")
    assert target.read_bytes() == b"x"
    assert mode_of(target.parent) == 0o700


@pytest.mark.parametrize("step", ["write", "fsync", "replace"])
def test_failure_before_rename_keeps_old_file_and_removes_temp(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    target = data_dir / SESSION_FILE
    target.write_bytes(b"last good")

    def boom(*args: object, **kwargs: object) -> object:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(f"os.{step}", boom)
    with pytest.raises(PersistWriteError) as info:
        files.atomic_write(target, b"new")
    monkeypatch.undo()
    assert info.value.cause.errno == errno.ENOSPC
    assert info.value.path == target
    assert target.read_bytes() == b"last good"
    assert leftovers(data_dir) == []


def test_file_and_directory_are_fsynced(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[bool] = []
    real = os.fsync

    def record(fd: int) -> None:
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        real(fd)

    monkeypatch.setattr("os.fsync", record)
    files.atomic_write(data_dir / "f.json", b"x")
    assert synced == [False, True]  # the file before the rename, the directory after


def test_write_through_symlink_keeps_the_link(data_dir: Path) -> None:
    real = data_dir / "real.json"
    link = data_dir / SESSION_FILE
    link.symlink_to("real.json")  # dangling: the first save creates the target
    assert files.atomic_write(link, b"1") == real
    files.atomic_write(link, b"2")
    assert link.is_symlink()
    assert real.read_bytes() == b"2"


# --------------------------------------------------------------------------- load


def test_load_missing_file_starts_empty_quietly(data_dir: Path) -> None:
    result = SessionStore(data_dir).load()
    assert result.status == "missing"
    assert result.start_empty and result.message is None and result.backup is None


def test_save_then_load_round_trips(data_dir: Path) -> None:
    store = SessionStore(data_dir)
    store.save(one_workspace())
    assert mode_of(store.path) == 0o600
    result = SessionStore(data_dir).load()
    assert result.status == "loaded"
    assert result.snapshot == one_workspace()
    assert leftovers(data_dir) == []


def test_load_removes_a_crash_leftover_temp_file(data_dir: Path) -> None:
    SessionStore(data_dir).save(one_workspace())
    (data_dir / (SESSION_FILE + ".tmp")).write_bytes(b'{"version": 1, "works')
    assert SessionStore(data_dir).load().status == "loaded"
    assert leftovers(data_dir) == []


BAD_FILES = [
    ("corrupt", b'{"version": 1, "workspaces": [', "corrupt"),
    ("empty", b"", "corrupt"),
    ("binary", b"\x00\xff\x13garbage", "corrupt"),
    ("schema", b'{"version": 1, "workspaces": [{"id": "w1"}]}', "corrupt"),
    ("newer", b'{"version": 99, "workspaces": [], "hologram": true}', "newer"),
]


@pytest.mark.parametrize(
    ("data", "status"), [(d, s) for _, d, s in BAD_FILES], ids=[c[0] for c in BAD_FILES]
)
def test_unusable_file_is_backed_up_byte_for_byte_and_left_in_place(
    data_dir: Path, caplog: pytest.LogCaptureFixture, data: bytes, status: str
) -> None:
    (data_dir / SESSION_FILE).write_bytes(data)
    with caplog.at_level(logging.WARNING, logger="herdr.persist"):
        result = SessionStore(data_dir, clock=Clock()).load()
    assert result.status == status
    assert result.start_empty
    assert result.backup is not None
    assert result.backup.parent == data_dir / BACKUP_DIR
    assert result.backup.name.endswith(f"-{status}.json")
    assert result.backup.read_bytes() == data
    assert mode_of(result.backup) == 0o600
    assert (data_dir / SESSION_FILE).read_bytes() == data  # nothing overwritten
    assert result.message is not None and str(result.backup) in result.message
    events = [getattr(r, "event", None) for r in caplog.records]
    assert events == ["persist.backup"]


def test_corrupt_message_names_the_json_path(data_dir: Path) -> None:
    (data_dir / SESSION_FILE).write_bytes(b'{"version": 1, "workspaces": [{"id": 7}]}')
    result = SessionStore(data_dir).load()
    assert result.message is not None and "$.workspaces[0].id" in result.message


def test_newer_file_message_says_so(data_dir: Path) -> None:
    (data_dir / SESSION_FILE).write_bytes(b'{"version": 4, "workspaces": []}')
    result = SessionStore(data_dir).load()
    assert result.message is not None
    assert "newer herdr" in result.message and "version 4" in result.message


def test_only_the_newest_three_backups_are_kept(data_dir: Path) -> None:
    clock = Clock()
    for i in range(5):
        (data_dir / SESSION_FILE).write_bytes(b"broken %d" % i)
        SessionStore(data_dir, clock=clock).load()
        clock.now += 60
    backups = list_backups(data_dir / BACKUP_DIR)
    assert [b.read_bytes() for b in backups] == [b"broken 2", b"broken 3", b"broken 4"]


def test_backup_names_stay_ordered_when_the_clock_repeats_or_steps_back(tmp_path: Path) -> None:
    backup_dir = tmp_path / BACKUP_DIR
    made = [
        backup_bytes(backup_dir, b"%d" % i, "corrupt", now=t)
        for i, t in enumerate([100.0, 100.0, 50.0])
    ]
    assert list_backups(backup_dir) == made
    assert made[0].name == "session-19700101T000140.000000Z-corrupt.json"
    newest = backup_bytes(backup_dir, b"last", "newer", now=10.0)
    assert list_backups(backup_dir)[-1] == newest  # never rotated away on arrival


def test_rotation_leaves_other_files_alone(tmp_path: Path) -> None:
    backup_dir = tmp_path / BACKUP_DIR
    backup_dir.mkdir()
    (backup_dir / "notes.txt").write_text("mine")
    for t in range(5):
        backup_bytes(backup_dir, b"x", "corrupt", now=float(t))
    assert rotate_backups(backup_dir) == []
    assert sorted(os.listdir(backup_dir))[-1] == "session-19700101T000004.000000Z-corrupt.json"
    assert (backup_dir / "notes.txt").read_text() == "mine"
    assert len(os.listdir(backup_dir)) == 4


def test_unbackupable_file_blocks_saving_until_it_is_backed_up(data_dir: Path) -> None:
    (data_dir / SESSION_FILE).write_bytes(b"precious but broken")
    (data_dir / BACKUP_DIR).write_text("a file where the backup dir should be")
    store = SessionStore(data_dir)
    result = store.load()
    assert result.status == "corrupt" and result.backup is None
    assert result.message is not None and "not saving over it" in result.message
    assert store.blocked
    with pytest.raises(PersistWriteError):
        store.save(one_workspace())
    assert (data_dir / SESSION_FILE).read_bytes() == b"precious but broken"

    (data_dir / BACKUP_DIR).unlink()  # the user fixes it; the next save backs up first
    store.save(one_workspace())
    assert not store.blocked
    [backup] = list_backups(data_dir / BACKUP_DIR)
    assert backup.read_bytes() == b"precious but broken"
    assert snapshot.decode((data_dir / SESSION_FILE).read_bytes()) == one_workspace()


def test_unreadable_file_blocks_saving(data_dir: Path) -> None:
    (data_dir / SESSION_FILE).mkdir()  # reading fails with EISDIR, for root too
    store = SessionStore(data_dir)
    result = store.load()
    assert result.status == "unreadable" and result.start_empty
    assert store.blocked
    with pytest.raises(PersistWriteError):
        store.save(one_workspace())
    assert (data_dir / SESSION_FILE).is_dir()


def test_quarantine_backs_up_a_file_restore_could_not_use(data_dir: Path) -> None:
    store = SessionStore(data_dir)
    store.save(one_workspace())
    result = store.quarantine("unrestorable", "$.workspaces[0]: model refused it")
    assert result.backup is not None and result.backup.name.endswith("-unrestorable.json")
    assert result.backup.read_bytes() == store.path.read_bytes()


# --------------------------------------------------------------------------- read-only data dir


def make_read_only(directory: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """chmod 0500; when that does not stop writes (root in CI), make os.open refuse
    writes under `directory` the way a read-only directory would."""
    directory.chmod(0o500)
    probe = directory / ".probe"
    try:
        probe.write_bytes(b"")
    except PermissionError:
        return "chmod"
    probe.unlink()
    real_open = os.open
    prefix = str(directory) + os.sep

    def guarded(path: object, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        text = os.fsdecode(path)  # type: ignore[arg-type]
        if text.startswith(prefix) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), text)
        return real_open(path, flags, mode, dir_fd=dir_fd)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", guarded)
    return "injected"


def test_read_only_data_dir_fails_specifically_keeps_last_good_and_logs_once(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionStore(data_dir)
    store.save(one_workspace("first"))
    good = store.path.read_bytes()
    make_read_only(data_dir, monkeypatch)
    health = PersistHealth(str(store.path))
    logged = []
    for i in range(3):
        with pytest.raises(PersistWriteError) as info:
            store.save(one_workspace(f"change {i}"))
        assert info.value.cause.errno == errno.EACCES
        logged.append(health.failed(SaveError.of(info.value, "?"), now=float(i)))
    assert logged == [True, False, False]
    assert health.last_error is not None and health.last_error.errno == "EACCES"
    assert health.last_error.path == str(store.path)
    assert store.path.read_bytes() == good
    monkeypatch.undo()
    data_dir.chmod(0o700)
    store.save(one_workspace("again"))
    assert health.succeeded(now=9.0) is True
    assert snapshot.decode(store.path.read_bytes()) == one_workspace("again")
    assert leftovers(data_dir) == []


def test_data_dir_below_a_file_fails_with_write_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(PersistWriteError) as info:
        SessionStore(blocker / "data").save(one_workspace())
    assert info.value.cause.errno == errno.ENOTDIR


# --------------------------------------------------------------------------- history file


def test_history_is_written_0600_beside_the_snapshot(data_dir: Path) -> None:
    store = SessionStore(data_dir)
    store.save(one_workspace(), {"w1:p1": PaneHistory("secret\n", 1)})
    assert store.history_path == data_dir / HISTORY_FILE
    assert mode_of(store.history_path) == 0o600
    assert b"secret" not in store.path.read_bytes()
    assert store.load_history() == {"w1:p1": PaneHistory("secret\n", 1)}


def test_saving_without_history_removes_the_history_file(data_dir: Path) -> None:
    store = SessionStore(data_dir)
    store.save(one_workspace(), {"w1:p1": PaneHistory("x", 1)})
    store.save(one_workspace(), None)
    assert not store.history_path.exists()
    assert store.path.exists()
    assert store.remove_history() is False


# --------------------------------------------------------------------------- crash safety

WRITER = """
import sys
from pathlib import Path
sys.path.insert(0, {src!r})
from herdr.persist.store import SessionStore
from herdr.persist.snapshot import PaneSnapshot, SessionSnapshot, TabSnapshot, WorkspaceSnapshot
from herdr.runtime.layout import Leaf, Split

store = SessionStore(Path({data!r}))
n = 0
while True:
    n += 1
    keys = list(range(1, 2 + n % 7))
    layout = Leaf(keys[0])
    for k in keys[1:]:
        layout = Split("right" if k % 2 else "down", 0.5, layout, Leaf(k))
    panes = {{k: PaneSnapshot("/tmp/" + "x" * (n % 500)) for k in keys}}
    tab = TabSnapshot(layout, panes, focused=keys[-1])
    ws = WorkspaceSnapshot("w1", "/tmp", (tab,), {{k: k for k in keys}}, (1,), len(keys) + 1, 2)
    store.save(SessionSnapshot((ws,), active=0, selected=0, next_workspace_number=n + 1))
    if n == 1:
        print("ready", flush=True)
"""


def test_sigkill_at_random_moments_always_leaves_a_readable_file(tmp_path: Path) -> None:
    rng = random.Random(7)
    data = tmp_path / "crash"
    script = WRITER.format(src=SRC, data=str(data))
    counters = []
    for _ in range(8):
        proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline() == b"ready\n"
            # a sleep is the point here: the kill must land at a random moment of a write
            time.sleep(rng.uniform(0.0, 0.05))
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        result = SessionStore(data).load()
        assert result.status == "loaded", result.message
        assert result.snapshot is not None
        counters.append(result.snapshot.next_workspace_number)
        assert not (data / BACKUP_DIR).exists()
    assert len(set(counters)) > 1  # the writer really was mid-stream
