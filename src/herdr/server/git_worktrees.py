"""Running ``git`` for the worktree methods: off the event loop, bounded, never a shell.

Every command is an argv list with ``--`` before user paths, runs with ``LC_ALL=C``
(refusals are classified by git's English text), no terminal prompt, stdin closed, a
timeout and a cap on what it may print. A repository git refuses for its owner is
retried with ``-c safe.directory=<dir>`` only if the request said ``trust_repository``
or that directory was trusted before (`TrustedRepos`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from msgspec import Struct

from herdr.api import protocol
from herdr.runtime import worktrees as wt
from herdr.server.core import ApiError
from herdr.server.group_spawn import close_transport, kill_group, reap, spawn_group
from herdr.server.trusted_repos import TrustedRepos

GIT_TIMEOUT = 30.0  # seconds; a worktree add of a big checkout takes a while
MAX_OUTPUT = 4 << 20  # bytes of stdout (or stderr) beyond which git is stopped
# After git exits, what it printed is read for this long; a pipe still held open past it
# (by a background job a hook or alias started) is closed, not waited for till the timeout.
OUTPUT_GRACE_S = 0.5
_EXIT_POLL_S = 0.05
_MAX_TRUST_RETRIES = 4  # a checkout, its gitdir and the common dir can each be refused

# Variables that would point git at another repository than the one we name.
_REPO_VARS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)


class GitResult(Struct, frozen=True):
    returncode: int
    stdout: str
    stderr: str
    overflowed: bool = False  # stopped for printing more than MAX_OUTPUT


def git_env(base: Mapping[str, str]) -> dict[str, str]:
    """The server's environment minus repository overrides, plus non-interactive git."""
    env = {k: v for k, v in base.items() if k not in _REPO_VARS}
    env.update(LC_ALL="C", LANG="C", GIT_TERMINAL_PROMPT="0", GCM_INTERACTIVE="never")
    return env


async def _read_capped(
    stream: asyncio.StreamReader, sink: bytearray, on_overflow: Callable[[], None]
) -> bool:
    """Read `stream` into `sink` up to MAX_OUTPUT; past it, `on_overflow` (which stops
    git, so the other stream ends too) and True."""
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            return False
        room = MAX_OUTPUT - len(sink)
        sink += chunk[:room]
        if len(chunk) > room:
            on_overflow()
            return True


async def run_git(
    argv: list[str], env: Mapping[str, str], timeout: float = GIT_TIMEOUT
) -> GitResult:
    """Run ``git *argv``; raises `ApiError` (``timeout``) if it does not finish in time."""
    try:
        proc = await spawn_group(
            "git",
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=dict(env),
        )
    except OSError as exc:
        raise ApiError("worktree_git_failed", f"cannot run git: {exc}") from None
    stdout, stderr = proc.stdout, proc.stderr
    assert stdout is not None and stderr is not None
    out, err = bytearray(), bytearray()

    stopped = False

    def stop() -> None:
        nonlocal stopped
        stopped = True
        kill_group(proc)

    async def collect() -> bool:
        more = await asyncio.gather(
            _read_capped(stdout, out, stop), _read_capped(stderr, err, stop)
        )
        return any(more)

    reading = asyncio.ensure_future(collect())
    exited = asyncio.ensure_future(_exited(proc))
    try:
        async with asyncio.timeout(timeout):
            await asyncio.wait({reading, exited}, return_when=asyncio.FIRST_COMPLETED)
            if reading.done():
                await proc.wait()  # its pipes are closed: this ends with the process
            else:
                # git is gone but something it started (a hook's `job &`) still holds
                # its output open: read what is there, then stop waiting for the rest
                await asyncio.wait({reading}, timeout=OUTPUT_GRACE_S)
        if reading.done():
            reading.result()  # a read that failed raises here, as it did from gather
        close_transport(proc)
    except TimeoutError:
        kill_group(proc)
        await _abandon(proc, reading, exited)
        raise ApiError(
            protocol.TIMEOUT, f"git {argv[-1][:40]!r}... took over {timeout:g}s"
        ) from None
    except BaseException:  # cancelled, or a read failed
        kill_group(proc)
        await asyncio.shield(_abandon(proc, reading, exited))
        raise
    await _stop_tasks(reading, exited)
    code = proc.returncode if proc.returncode is not None else -1
    return GitResult(code, _text(out), _text(err), stopped)


async def _stop_tasks(*tasks: asyncio.Future[Any]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _abandon(proc: asyncio.subprocess.Process, *tasks: asyncio.Future[Any]) -> None:
    """After a kill: stop our readers first (`reap` reads the pipes: nobody else may)."""
    await _stop_tasks(*tasks)
    await reap(proc)


async def _exited(proc: asyncio.subprocess.Process) -> None:
    """Until git itself has exited (``proc.wait()`` also waits for its pipes to close,
    which a process it left behind may hold open for ever)."""
    while proc.returncode is None:
        await asyncio.sleep(_EXIT_POLL_S)


def _text(data: bytearray) -> str:
    return bytes(data).decode("utf-8", "surrogateescape")


@dataclass
class GitRequest:
    """The git commands of one request, with the trust that request carries."""

    env: Mapping[str, str]
    store: TrustedRepos
    trust: bool  # the request's trust_repository
    safe: set[str] = field(default_factory=set)  # directories passed as safe.directory

    async def run(self, directory: str, *args: str) -> GitResult:
        """``git -C directory args``; a refusal for ownership is retried with trust
        when it is allowed, else answered ``repository_not_trusted``."""
        for _ in range(_MAX_TRUST_RETRIES + 1):
            argv = [arg for d in sorted(self.safe) for arg in ("-c", f"safe.directory={d}")]
            result = await run_git([*argv, "-C", directory, *args], self.env)
            refused = wt.dubious_path(result.stderr) if result.returncode != 0 else None
            if refused is None or refused in self.safe:
                return result
            if not (self.trust or refused in self.store):
                raise ApiError(
                    wt.REPOSITORY_NOT_TRUSTED,
                    f"git refuses {refused}: it is owned by another user; pass "
                    "trust_repository=true (--trust-repository) if you trust it",
                )
            self.safe.add(refused)
        return result

    def remember_trust(self) -> None:
        """After success: directories trusted for this request stay trusted."""
        if self.trust and self.safe:
            self.store.add(self.safe)

    async def checked(self, directory: str, *args: str, code: str) -> str:
        """stdout of a command that must succeed; its failure is answered with `code`
        (or what git's message says it is)."""
        result = await self.run(directory, *args)
        if result.overflowed:
            raise ApiError(code, f"git {args[0]} printed more than {MAX_OUTPUT} bytes")
        if result.returncode != 0:
            raise ApiError(wt.failure_code(result.stderr, code), wt.first_line(result.stderr))
        return result.stdout

    # -- the commands ------------------------------------------------------------------

    async def discover(self, path: str) -> wt.GitSpace:
        """The repository and checkout `path` is in (``not_git_worktree`` if none)."""
        result = await self.run(
            path, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"
        )
        lines = result.stdout.splitlines()
        if result.returncode != 0 or len(lines) != 2:
            code = wt.failure_code(result.stderr, wt.NOT_GIT_WORKTREE)
            if code != wt.REPOSITORY_NOT_TRUSTED:
                code = wt.NOT_GIT_WORKTREE
            raise ApiError(
                code, f"{path} is not inside a git work tree ({wt.first_line(result.stderr)})"
            )
        toplevel, common = (os.path.realpath(line) for line in lines)
        return wt.space_from_rev_parse(toplevel, common)

    async def list(self, space: wt.GitSpace) -> list[wt.Worktree]:
        out = await self.checked(
            space.repo_root, "worktree", "list", "--porcelain", "-z", code="worktree_list_failed"
        )
        return wt.parse_worktree_list(out)

    async def branch_exists(self, space: wt.GitSpace, branch: str) -> bool:
        result = await self.run(
            space.repo_root, "show-ref", "--verify", "--quiet", f"refs/heads/{branch}"
        )
        if result.returncode in (0, 1):
            return result.returncode == 0
        raise ApiError("worktree_create_failed", wt.first_line(result.stderr))

    async def valid_branch_name(self, space: wt.GitSpace, branch: str) -> bool:
        result = await self.run(space.repo_root, "check-ref-format", "--branch", branch)
        return result.returncode == 0

    async def is_commit(self, space: wt.GitSpace, rev: str) -> bool:
        result = await self.run(
            space.repo_root,
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            f"{rev}^{{commit}}",
        )
        return result.returncode == 0

    async def add(
        self, space: wt.GitSpace, path: str, branch: str, base: str, *, existing: bool
    ) -> None:
        """``git worktree add``: check out an existing local branch, else create it."""
        if existing:
            args: tuple[str, ...] = ("worktree", "add", "--", path, branch)
        else:
            args = ("worktree", "add", "-b", branch, "--", path, base)
        await self.checked(space.repo_root, *args, code="worktree_create_failed")

    async def is_dirty(self, checkout: str) -> bool:
        result = await self.run(checkout, "status", "--porcelain", "--untracked-files=all")
        if result.overflowed:
            return True  # megabytes of changes are changes
        if result.returncode != 0:
            raise ApiError(
                wt.failure_code(result.stderr, "worktree_remove_failed"),
                wt.first_line(result.stderr),
            )
        return bool(result.stdout.strip())

    async def remove(self, space: wt.GitSpace, checkout: str, *, force: bool) -> None:
        args = ("worktree", "remove", *(("--force",) if force else ()), "--", checkout)
        await self.checked(space.repo_root, *args, code="worktree_remove_failed")
