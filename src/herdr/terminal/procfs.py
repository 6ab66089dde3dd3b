"""Foreground job of a pane from Linux /proc (detection-spec §2.1, §2.2, §2.6).

The I/O half of process identification: it reads /proc and hands plain
``ForegroundJob`` values to the pure decisions in ``herdr.detect.process``.
Reading /proc directly is ~3x cheaper than psutil and costs no import
(python-stack.md §2). Every reader tolerates processes vanishing mid-read.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator

from msgspec import Struct

from herdr.detect.agents import Agent
from herdr.detect.process import (
    ForegroundJob,
    ForegroundProcess,
    ProbeResult,
    ProcessDetectionMode,
    agent_hint_from_environ,
    choose_child_group,
    probe_foreground_process_from_jobs,
)

PROC = "/proc"
_READ_CHUNK = 65536
MAX_WALK = 4096  # bound the job walk on pathological process trees


class ProcStat(Struct, frozen=True):
    """The leading fields of /proc/<pid>/stat."""

    pid: int
    comm: str
    state: str
    ppid: int
    pgrp: int
    session: int
    tty_nr: int
    tpgid: int


def _read_bytes(path: str) -> bytes | None:
    """The whole file, by ``os.open``/``os.read``: ``open()`` adds an ``fstat``, an
    ``isatty`` ioctl and two buffer objects to every read, and the foreground probe
    reads several /proc files per detection tick of every pane (docs/performance.md)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, _READ_CHUNK)
            if not chunk:
                break
            chunks.append(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def parse_stat(raw: bytes) -> ProcStat | None:
    """Parse a stat line; comm sits between the first ``(`` and the last ``)``."""
    text = raw.decode("utf-8", "replace")
    open_paren = text.find("(")
    close_paren = text.rfind(")")
    if open_paren < 0 or close_paren < open_paren:
        return None
    fields = text[close_paren + 2 :].split()
    try:
        return ProcStat(
            pid=int(text[:open_paren]),
            comm=text[open_paren + 1 : close_paren],
            state=fields[0],
            ppid=int(fields[1]),
            pgrp=int(fields[2]),
            session=int(fields[3]),
            tty_nr=int(fields[4]),
            tpgid=int(fields[5]),
        )
    except (IndexError, ValueError):
        return None


def read_stat(pid: int) -> ProcStat | None:
    raw = _read_bytes(f"{PROC}/{pid}/stat") if pid > 0 else None
    return None if raw is None else parse_stat(raw)


def parse_cmdline(raw: bytes) -> tuple[str, ...] | None:
    """NUL-separated argv, empty parts dropped, lossy UTF-8; None when empty."""
    parts = tuple(p.decode("utf-8", "replace") for p in raw.split(b"\0") if p)
    return parts or None


def read_cmdline(pid: int) -> tuple[str, ...] | None:
    raw = _read_bytes(f"{PROC}/{pid}/cmdline") if pid > 0 else None
    return None if raw is None else parse_cmdline(raw)


def read_process(pid: int, stat: ProcStat | None = None) -> ForegroundProcess | None:
    """comm, argv and cmdline of one process, or None if it is gone."""
    stat = stat or read_stat(pid)
    if stat is None:
        return None
    argv = read_cmdline(pid)
    return ForegroundProcess(
        pid=pid,
        name=stat.comm,
        argv0=None,
        argv=argv,
        cmdline=" ".join(argv) if argv else None,
    )


def process_cwd(pid: int) -> str | None:
    try:
        return os.readlink(f"{PROC}/{pid}/cwd") if pid > 0 else None
    except OSError:
        return None


def live_cwds(shell_pid: int, master_fd: int | None = None) -> Iterator[str | None]:
    """The readings ``runtime.cwd.working_dir`` chooses from, in its order and lazily:
    the cwd of the terminal's foreground group leader, then (if that is not the shell)
    the shell's. One ``tcgetpgrp`` and one ``readlink`` when the shell is in front."""
    pgid = foreground_pgid(shell_pid, master_fd)
    if pgid is not None and pgid != shell_pid:
        yield process_cwd(pgid)
    yield process_cwd(shell_pid)


def agent_hint(pid: int) -> Agent | None:
    """The HERDR_AGENT hint in a process's environment (sandbox wrappers)."""
    raw = _read_bytes(f"{PROC}/{pid}/environ") if pid > 0 else None
    return None if raw is None else agent_hint_from_environ(raw)


def resolve_path(path: str) -> str | None:
    """Canonical path of an existing file (symlinks resolved), else None."""
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, ValueError):
        return None


def task_children(pid: int) -> list[int]:
    """Direct children of ``pid`` over all of its threads."""
    children: list[int] = []
    try:
        tids = os.listdir(f"{PROC}/{pid}/task")
    except OSError:
        return children
    for tid in tids:
        raw = _read_bytes(f"{PROC}/{pid}/task/{tid}/children")
        if raw:
            children.extend(int(c) for c in raw.split())
    return children


def group_has_live_members(pgid: int) -> bool:
    """Whether any non-zombie process is in group ``pgid`` (teardown only: scans /proc).

    ``killpg(pgid, 0)`` also counts zombies, and orphans that died wait for init
    to reap them — so a finished group would look alive until then.
    """
    try:
        entries = os.listdir(PROC)
    except OSError:
        return False
    for entry in entries:
        if entry.isdigit():
            stat = read_stat(int(entry))
            if stat is not None and stat.pgrp == pgid and stat.state not in ("Z", "X"):
                return True
    return False


# -- foreground job (§2.2) -------------------------------------------------------


def foreground_pgid(shell_pid: int, master_fd: int | None = None) -> int | None:
    """The terminal's foreground group: ``tcgetpgrp`` on the master, else ``tpgid``."""
    if master_fd is not None and master_fd >= 0:
        try:
            pgid = os.tcgetpgrp(master_fd)
        except OSError:
            pgid = 0
        if pgid > 0:
            return pgid
    stat = read_stat(shell_pid)
    return stat.tpgid if stat is not None and stat.tpgid > 0 else None


class ProbeReads:
    """The /proc reads of one probe, each process read once: the leader job, the full
    walk and the hint checks all ask for the group leader (stat, cmdline, environ), so
    without this a probe read them two or three times (docs/performance.md)."""

    __slots__ = ("_hints", "_processes", "_stats")

    def __init__(self) -> None:
        self._stats: dict[int, ProcStat | None] = {}
        self._processes: dict[int, ForegroundProcess | None] = {}
        self._hints: dict[int, Agent | None] = {}

    def stat(self, pid: int) -> ProcStat | None:
        if pid not in self._stats:
            self._stats[pid] = read_stat(pid)
        return self._stats[pid]

    def process(self, pid: int, stat: ProcStat) -> ForegroundProcess | None:
        if pid not in self._processes:
            self._processes[pid] = read_process(pid, stat)
        return self._processes[pid]

    def hint(self, pid: int) -> Agent | None:
        if pid not in self._hints:
            self._hints[pid] = agent_hint(pid)
        return self._hints[pid]


def leader_job(pgid: int, reads: ProbeReads | None = None) -> ForegroundJob | None:
    """The cheap path: the group leader alone, if it is alive and still leads ``pgid``."""
    reads = reads or ProbeReads()
    stat = reads.stat(pgid)
    if stat is None or stat.pgrp != pgid:
        return None
    process = reads.process(pgid, stat)
    return None if process is None else ForegroundJob(pgid, (process,))


def full_job(shell_pid: int, pgid: int, reads: ProbeReads | None = None) -> ForegroundJob | None:
    """Every process of group ``pgid`` under the pane: BFS from [shell, pgid]."""
    reads = reads or ProbeReads()
    seen: set[int] = set()
    queue: deque[int] = deque(p for p in (shell_pid, pgid) if p > 0)
    members: list[ForegroundProcess] = []
    while queue and len(seen) < MAX_WALK:
        pid = queue.popleft()
        if pid in seen:
            continue
        seen.add(pid)
        stat = reads.stat(pid)
        if stat is None:
            continue
        if stat.pgrp == pgid:
            process = reads.process(pid, stat)
            if process is not None:
                members.append(process)
        queue.extend(c for c in task_children(pid) if c not in seen)
    if not members:
        return None
    members.sort(key=lambda p: p.pid)
    return ForegroundJob(pgid, tuple(members))


def child_groups_pgid(shell_pid: int) -> int | None:
    """child-groups mode: the newest job group among the shell's children (§2.2)."""
    stat = read_stat(shell_pid)
    if stat is None:
        return None
    children = task_children(shell_pid)
    if len(children) > 64:
        return None
    groups = _pgrps(children)
    return choose_child_group(stat.pgrp, groups)


def _pgrps(pids: Iterable[int]) -> list[int]:
    groups: list[int] = []
    for pid in pids:
        stat = read_stat(pid)
        if stat is not None:
            groups.append(stat.pgrp)
    return groups


def probe_foreground(
    shell_pid: int,
    *,
    master_fd: int | None = None,
    mode: ProcessDetectionMode = ProcessDetectionMode.NATIVE,
) -> ProbeResult:
    """Which agent is in the pane's foreground right now (§2.3)."""
    return probe_group(shell_pid, foreground_pgid(shell_pid, master_fd), mode=mode)


def probe_group(
    shell_pid: int,
    observed: int | None,
    *,
    mode: ProcessDetectionMode = ProcessDetectionMode.NATIVE,
) -> ProbeResult:
    """`probe_foreground` for a foreground group the caller has just observed (the
    detection tick reads it first to decide whether to probe at all)."""
    group = observed
    if group is None and mode is ProcessDetectionMode.CHILD_GROUPS:
        group = child_groups_pgid(shell_pid)
    if group is None:
        return ProbeResult(None, None, None, False)
    target = group
    reads = ProbeReads()
    return probe_foreground_process_from_jobs(
        shell_pid,
        observed,
        leader_job(observed, reads) if observed is not None else None,  # inferred: full walk
        lambda: full_job(shell_pid, target, reads),
        reads.hint,
        resolve=resolve_path,
    )
