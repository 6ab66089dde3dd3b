"""`procfs._read_bytes`: whole files by os.read, whatever their size; None when absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from herdr.terminal import procfs


@pytest.mark.parametrize(
    "size",
    [0, 1, procfs._READ_CHUNK - 1, procfs._READ_CHUNK, procfs._READ_CHUNK + 1, 200_000],
    ids=["empty", "one-byte", "chunk-minus-one", "one-chunk", "chunk-plus-one", "several"],
)
def test_reads_the_whole_file(tmp_path: Path, size: int) -> None:
    data = os.urandom(size)
    path = tmp_path / "f"
    path.write_bytes(data)
    assert procfs._read_bytes(str(path)) == data


@pytest.mark.parametrize("name", ["stat", "cmdline", "environ", "task/{pid}/children"], ids=str)
def test_proc_files_read_as_open_reads_them(name: str) -> None:
    # the pid is filled in here, so the test ids are the same in every collecting process
    path = f"/proc/self/{name.format(pid=os.getpid())}"
    if name == "stat":  # its times move between the two reads: compare the stable part
        ours, theirs = procfs._read_bytes(path), Path(path).read_bytes()
        assert ours is not None and ours.split(b")")[0] == theirs.split(b")")[0]
        return
    assert procfs._read_bytes(path) == Path(path).read_bytes()


@pytest.mark.parametrize(
    "path", ["/proc/0/stat", "/nonexistent/file", "/proc/self"], ids=["pid0", "missing", "dir"]
)
def test_unreadable_is_none(path: str) -> None:
    assert procfs._read_bytes(path) is None


def test_fds_are_not_leaked(tmp_path: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(50):
        procfs._read_bytes("/proc/self/stat")
        procfs._read_bytes(str(tmp_path / "missing"))
    assert len(os.listdir("/proc/self/fd")) == before
