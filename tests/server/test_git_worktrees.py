"""The git runner itself: argv only, bounded time, bounded output (real git processes)."""

from __future__ import annotations

import asyncio
import gc
import os
from pathlib import Path

import pytest

from herdr.server import git_worktrees as g
from herdr.server.core import ApiError
from herdr_testing import wait_until
from herdr_testing.procs import alive, live_with_env


def _env(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "gitconfig"
    config.write_text("", encoding="utf-8")
    base = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    return g.git_env({**base, "GIT_CONFIG_GLOBAL": str(config), "GIT_DIR": "/elsewhere"})


def test_env_drops_repository_overrides_and_prompts(tmp_path: Path) -> None:
    env = _env(tmp_path)
    assert "GIT_DIR" not in env
    assert env["LC_ALL"] == "C" and env["GIT_TERMINAL_PROMPT"] == "0"


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_a_git_that_hangs_is_stopped_with_timeout(tmp_path: Path) -> None:
    # an alias runs a shell command: here one that never ends on its own
    argv = ["-c", "alias.hang=!sleep 600", "hang"]
    with pytest.raises(ApiError) as caught:
        asyncio.run(g.run_git(argv, _env(tmp_path), timeout=0.5))
    assert caught.value.code == "timeout"
    gc.collect()  # a pipe transport left open would complain here, its loop being closed


def test_output_beyond_the_cap_stops_git(tmp_path: Path) -> None:
    argv = ["-c", "alias.flood=!yes herdr", "flood"]
    result = asyncio.run(g.run_git(argv, _env(tmp_path), timeout=30))
    assert result.overflowed
    assert len(result.stdout) <= g.MAX_OUTPUT


def test_a_background_job_holding_the_output_does_not_hold_the_call(tmp_path: Path) -> None:
    # a post-checkout hook or an alias that starts `job &` leaves git's stdout open
    # after git exits; the call must answer with what git printed, not time out
    argv = ["-c", "alias.bg=!(sleep 4; echo late) & echo started", "bg"]
    result = asyncio.run(g.run_git(argv, _env(tmp_path), timeout=3))
    assert result.returncode == 0
    assert result.stdout == "started\n"
    assert not result.overflowed


def test_a_git_that_fails_still_reports_its_code_and_output(tmp_path: Path) -> None:
    result = asyncio.run(
        g.run_git(["-c", "alias.no=!echo out; echo err >&2; exit 3", "no"], _env(tmp_path))
    )
    assert (result.returncode, result.stdout, result.stderr) == (3, "out\n", "err\n")


def test_exactly_the_cap_is_not_an_overflow(tmp_path: Path) -> None:
    argv = ["-c", f"alias.cap=!head -c {g.MAX_OUTPUT} /dev/zero", "cap"]
    result = asyncio.run(g.run_git(argv, _env(tmp_path)))
    assert (result.returncode, len(result.stdout), result.overflowed) == (0, g.MAX_OUTPUT, False)


def test_a_cancelled_call_stops_git_and_leaves_nothing_behind(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    argv = ["-c", f"alias.hang=!echo $$ > '{pid_file}'; exec sleep 600", "hang"]

    async def cancel_midway() -> None:
        async with asyncio.timeout(60):  # a hang fails here, not the whole run
            call = asyncio.ensure_future(g.run_git(argv, _env(tmp_path)))
            while not pid_file.exists() or not pid_file.read_text().strip():
                await asyncio.sleep(0.01)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
        assert not [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

    asyncio.run(cancel_midway())
    pid = int(pid_file.read_text())
    wait_until(lambda: not alive(pid), 10, message="git's command outlived the call")


@pytest.mark.parametrize("turns", [0, 1, 2, 3, 5, 8])
def test_a_call_cancelled_while_git_starts_kills_its_group(tmp_path: Path, turns: int) -> None:
    """Cancelled while asyncio still connects git's pipes: asyncio alone would kill only
    git and then wait for ever on pipes the alias's ``sleep`` holds open."""
    argv = ["-c", "alias.hang=!exec sleep 600", "hang"]
    env = _env(tmp_path)

    async def cancel_early() -> None:
        async with asyncio.timeout(60):
            call = asyncio.ensure_future(g.run_git(argv, env))
            for _ in range(turns):
                await asyncio.sleep(0)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call

    asyncio.run(cancel_early())
    wait_until(
        lambda: not live_with_env(f"HOME={env['HOME']}"),
        10,
        message="git's alias outlived the call",
    )


def test_a_path_that_looks_like_an_option_stays_a_path(tmp_path: Path) -> None:
    odd = tmp_path / "--help"
    odd.mkdir()
    result = asyncio.run(g.run_git(["-C", str(odd), "rev-parse"], _env(tmp_path)))
    assert result.returncode != 0
    assert "not a git repository" in result.stderr
