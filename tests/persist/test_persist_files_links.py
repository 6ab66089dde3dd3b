"""``atomic_write`` never follows a link it should not, nor opens a planted temp file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from herdr.persist import files
from herdr.persist.errors import PersistWriteError

OTHER = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir(mode=0o700)
    return path


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_bytes(b"precious")
    return path


@needs_root
def test_foreign_symlink_is_not_followed(data_dir: Path, victim: Path) -> None:
    link = data_dir / "session.json"
    link.symlink_to(victim)
    os.lchown(link, OTHER, OTHER)
    with pytest.raises(PersistWriteError, match="symlink owned by uid 65534"):
        files.atomic_write(link, b"ours")
    assert victim.read_bytes() == b"precious"
    assert link.is_symlink()


@needs_root
def test_own_symlink_to_a_foreign_file_is_refused(data_dir: Path, victim: Path) -> None:
    os.chown(victim, OTHER, OTHER)
    link = data_dir / "session.json"
    link.symlink_to(victim)
    with pytest.raises(PersistWriteError, match="owned by uid 65534"):
        files.atomic_write(link, b"ours")
    assert victim.read_bytes() == b"precious"


@needs_root
def test_own_symlink_into_a_foreign_dir_is_refused(tmp_path: Path, data_dir: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o777)
    os.chmod(theirs, 0o777)
    os.chown(theirs, OTHER, OTHER)
    link = data_dir / "session.json"
    link.symlink_to(theirs / "session.json")  # dangling, into a directory they control
    with pytest.raises(PersistWriteError, match="is not yours or others can write"):
        files.atomic_write(link, b"ours")
    assert not (theirs / "session.json").exists()


def test_link_in_a_world_writable_dir_is_refused(tmp_path: Path, victim: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    link = shared / "session.json"
    link.symlink_to(victim)
    with pytest.raises(PersistWriteError, match="others can write to it"):
        files.atomic_write(link, b"ours")
    assert victim.read_bytes() == b"precious"


def test_own_link_to_own_file_is_kept_and_written_through(data_dir: Path) -> None:
    real = data_dir / "real.json"
    real.write_bytes(b"0")
    link = data_dir / "session.json"
    link.symlink_to("real.json")
    assert files.atomic_write(link, b"1") == real
    assert link.is_symlink() and real.read_bytes() == b"1"


@pytest.mark.parametrize("kind", ["fifo", "dir"])
def test_non_regular_target_is_refused(data_dir: Path, kind: str) -> None:
    target = data_dir / "session.json"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    with pytest.raises(PersistWriteError, match="not a regular file"):
        files.atomic_write(target, b"ours")


def test_planted_temp_symlink_is_never_opened(data_dir: Path, victim: Path) -> None:
    target = data_dir / "session.json"
    tmp = data_dir / ("session.json" + files.TEMP_SUFFIX)
    tmp.symlink_to(victim)
    files.atomic_write(target, b"ours")
    assert victim.read_bytes() == b"precious"
    assert target.read_bytes() == b"ours" and not target.is_symlink()
    assert not tmp.exists() and not tmp.is_symlink()


def test_link_loop_is_refused(data_dir: Path) -> None:
    a, b = data_dir / "a", data_dir / "b"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(PersistWriteError, match="too many levels"):
        files.atomic_write(a, b"x")
