"""One probe reads each /proc file of a process once (`procfs.ProbeReads`).

Real PTYs and real processes; the reads are counted by wrapping the one function every
/proc file read goes through, and the answers are checked against an uncounted probe.
"""

from __future__ import annotations

import collections
from collections.abc import Callable

import pytest

from herdr.detect.process import ProbeResult
from herdr.terminal import procfs
from herdr.terminal.pty import PtyProcess
from herdr_testing import wait_until

SpawnPty = Callable[..., PtyProcess]


def _counting(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[tuple[int, str]]:
    """(pid, file) -> how many times it was read."""
    reads: collections.Counter[tuple[int, str]] = collections.Counter()
    read = procfs._read_bytes

    def counted(path: str) -> bytes | None:
        parts = path.split("/")  # /proc/<pid>/<file> or /proc/<pid>/task/<tid>/children
        if len(parts) == 4 and parts[2].isdigit():
            reads[int(parts[2]), parts[3]] += 1
        return read(path)

    monkeypatch.setattr(procfs, "_read_bytes", counted)
    return reads


@pytest.mark.parametrize(
    ("command", "in_front"),
    [
        pytest.param(None, "shell", id="shell-at-its-prompt"),
        pytest.param(b"sleep 30\n", "job", id="a-one-process-job"),
        pytest.param(b"sleep 30 | sleep 31\n", "job", id="a-pipeline"),
    ],
)
def test_each_file_of_a_process_is_read_once_per_probe(
    spawn_pty: SpawnPty, monkeypatch: pytest.MonkeyPatch, command: bytes | None, in_front: str
) -> None:
    shell = spawn_pty(["/bin/sh"])
    wait_until(lambda: procfs.foreground_pgid(shell.pid, shell.fd) == shell.pid)
    if command is not None:
        shell.write_all(command)
        wait_until(lambda: procfs.foreground_pgid(shell.pid, shell.fd) not in (None, shell.pid))
        if b"|" in command:  # both members in the group before probing
            group = procfs.foreground_pgid(shell.pid, shell.fd)
            assert group is not None

            def both() -> bool:
                job = procfs.full_job(shell.pid, group)
                return job is not None and len(job.processes) == 2

            wait_until(both)
    pgid = procfs.foreground_pgid(shell.pid, shell.fd)
    assert pgid is not None
    expected = procfs.probe_foreground(shell.pid, master_fd=shell.fd)

    reads = _counting(monkeypatch)
    result = procfs.probe_group(shell.pid, pgid)

    assert result == expected
    assert result.foreground_is_pane_shell == (in_front == "shell")
    assert reads, "the probe read /proc"
    repeated = {key: n for key, n in reads.items() if n > 1}
    assert not repeated, f"read more than once in one probe: {repeated}"
    assert (pgid, "environ") in reads and (pgid, "cmdline") in reads


def test_probe_group_answers_as_probe_foreground(spawn_pty: SpawnPty) -> None:
    """The tick hands over the group it observed; the answer is the same."""
    shell = spawn_pty(["/bin/sh"])
    wait_until(lambda: procfs.foreground_pgid(shell.pid, shell.fd) == shell.pid)
    assert procfs.probe_group(shell.pid, shell.pid) == procfs.probe_foreground(
        shell.pid, master_fd=shell.fd
    )
    assert procfs.probe_group(shell.pid, None) == ProbeResult(None, None, None, False)
