"""Foreground job → agent through real PTYs and /proc (detection-spec §2)."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from herdr.detect.agents import Agent
from herdr.detect.process import ProcessDetectionMode
from herdr.terminal import procfs, views
from herdr.terminal.emulator import Emulator
from herdr.terminal.pty import PtyProcess
from herdr_testing import wait_until

SpawnPty = Callable[..., PtyProcess]
FAKE_CLAUDE = Path(__file__).resolve().parents[1] / "fixtures" / "fake_claude.py"
PYTHON = os.path.realpath(sys.executable)


@pytest.mark.parametrize(
    ("raw", "comm", "pgrp", "tpgid"),
    [
        (b"42 (sleep) S 1 42 42 34816 42 4194304 0", "sleep", 42, 42),
        (b"7 (a) b (c)) R 1 7 7 0 -1 0", "a) b (c)", 7, -1),
        (b"9 (tab\there) S 1 3 3 0 5 0", "tab\there", 3, 5),
    ],
)
def test_parse_stat(raw: bytes, comm: str, pgrp: int, tpgid: int) -> None:
    parsed = procfs.parse_stat(raw)
    assert parsed is not None
    assert (parsed.comm, parsed.pgrp, parsed.tpgid) == (comm, pgrp, tpgid)


@pytest.mark.parametrize("raw", [b"", b"12 no-parens S 1", b"12 (x) S"])
def test_parse_stat_rejects_garbage(raw: bytes) -> None:
    assert procfs.parse_stat(raw) is None


@pytest.mark.parametrize(
    ("raw", "argv"),
    [
        (b"", None),
        (b"sleep\x0030\x00", ("sleep", "30")),
        (b"a\x00\x00b", ("a", "b")),
        (b"\xff\x00", ("\ufffd",)),
    ],
)
def test_parse_cmdline(raw: bytes, argv: tuple[str, ...] | None) -> None:
    assert procfs.parse_cmdline(raw) == argv


def test_missing_processes_read_as_none() -> None:
    assert procfs.read_stat(0) is None
    assert procfs.read_process(2**22 + 12345) is None
    assert procfs.agent_hint(0) is None
    assert procfs.task_children(2**22 + 12345) == []
    assert procfs.resolve_path("/definitely/not/here") is None


def test_sleep_under_sh_is_the_foreground_job(spawn_pty: SpawnPty) -> None:
    shell = spawn_pty(["/bin/sh"])
    wait_until(lambda: procfs.foreground_pgid(shell.pid, shell.fd) == shell.pid)
    at_prompt = procfs.probe_foreground(shell.pid, master_fd=shell.fd)
    assert at_prompt.agent is None
    assert at_prompt.foreground_is_pane_shell

    shell.write_all(b"sleep 30\n")
    wait_until(lambda: (procfs.foreground_pgid(shell.pid, shell.fd) or shell.pid) != shell.pid)
    pgid = procfs.foreground_pgid(shell.pid, shell.fd)
    assert pgid is not None
    assert procfs.foreground_pgid(shell.pid) == pgid  # /proc tpgid agrees with tcgetpgrp

    leader = procfs.leader_job(pgid)
    assert leader is not None
    assert [(p.name, p.argv) for p in leader.processes] == [("sleep", ("sleep", "30"))]
    job = procfs.full_job(shell.pid, pgid)
    assert job is not None
    assert [p.pid for p in job.processes] == [pgid]
    assert job.processes[0].cmdline == "sleep 30"

    probe = procfs.probe_foreground(shell.pid, master_fd=shell.fd)
    assert probe.agent is None
    assert probe.process_group_id == pgid
    assert not probe.foreground_is_pane_shell


def test_child_groups_mode_finds_the_job_without_a_terminal(spawn_pty: SpawnPty) -> None:
    shell = spawn_pty(["/bin/sh"])
    shell.write_all(b"sleep 30\n")
    wait_until(lambda: (procfs.foreground_pgid(shell.pid, shell.fd) or shell.pid) != shell.pid)
    pgid = procfs.child_groups_pgid(shell.pid)
    assert pgid == procfs.foreground_pgid(shell.pid, shell.fd)


@pytest.fixture
def agent_bin(tmp_path: Path) -> Path:
    """A temp bin dir: ``claude`` (a copy of the fake agent), ``python3`` and ``node``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    claude = bin_dir / "claude"
    shutil.copy(FAKE_CLAUDE, claude)
    claude.chmod(claude.stat().st_mode | stat.S_IXUSR)
    (bin_dir / "python3").symlink_to(PYTHON)
    (bin_dir / "node").symlink_to(PYTHON)  # a "node" runtime that runs our script
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "cli.js").symlink_to(claude)  # only its resolved name says "claude"
    return bin_dir


@pytest.fixture
def agent_env(shell_env: dict[str, str], agent_bin: Path) -> dict[str, str]:
    return {**shell_env, "PATH": f"{agent_bin}:{shell_env['PATH']}"}


def wait_for_prompt(process: PtyProcess, emulator: Emulator) -> str:
    emulator.set_on_reply(process.write_all)

    def prompt_drawn() -> str:
        while data := process.read(timeout=0.02):
            emulator.feed(data)
        text = views.detection_text(emulator)
        return text if "? for shortcuts" in text else ""

    return wait_until(prompt_drawn, message="fake claude never drew its prompt")


def probe_agent(process: PtyProcess, shell_pid: int | None = None) -> Agent | None:
    result = procfs.probe_foreground(shell_pid or process.pid, master_fd=process.fd)
    return result.agent


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["claude"], id="shebang-on-path"),
        pytest.param(["node", "{bin}/claude"], id="node-wrapper-argv"),
        pytest.param(["node", "-W", "ignore", "{lib}/cli.js"], id="node-wrapper-symlink"),
        pytest.param(["python3", "-u", "{bin}/claude", "--resume"], id="python-wrapper"),
    ],
)
def test_fake_claude_is_identified(
    spawn_pty: SpawnPty, agent_env: dict[str, str], agent_bin: Path, argv: list[str]
) -> None:
    lib = agent_bin.parent / "lib"
    argv = [a.format(bin=agent_bin, lib=lib) for a in argv]
    process = spawn_pty(argv, env=agent_env, cols=70, rows=20)
    emulator = Emulator(70, 20)
    text = wait_for_prompt(process, emulator)
    assert "Welcome to Claude Code" in text
    assert emulator.osc.title == "✳ Claude Code"
    assert emulator.alternate_screen

    probe = procfs.probe_foreground(process.pid, master_fd=process.fd)
    assert probe.agent is Agent.CLAUDE
    assert probe.process_group_id == process.pid
    assert probe.foreground_is_pane_shell  # the agent *is* the pane's first process

    process.write_all(b"/exit\r")
    assert process.wait(timeout=10).returncode == 0


def test_fake_claude_started_from_a_shell(spawn_pty: SpawnPty, agent_env: dict[str, str]) -> None:
    shell = spawn_pty(["/bin/sh"], env=agent_env, cols=70, rows=20)
    wait_until(lambda: procfs.foreground_pgid(shell.pid, shell.fd) == shell.pid)
    assert probe_agent(shell) is None
    shell.write_all(b"claude\n")
    emulator = Emulator(70, 20)
    wait_for_prompt(shell, emulator)
    probe = procfs.probe_foreground(shell.pid, master_fd=shell.fd)
    assert probe.agent is Agent.CLAUDE
    assert probe.process_name == "claude"
    assert not probe.foreground_is_pane_shell

    shell.write_all(b"/exit\r")
    wait_until(
        lambda: procfs.probe_foreground(shell.pid, master_fd=shell.fd).foreground_is_pane_shell
    )
    assert probe_agent(shell) is None


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for exec -a")
def test_fake_claude_under_exec_a(spawn_pty: SpawnPty, agent_env: dict[str, str]) -> None:
    process = spawn_pty(["bash", "-c", f"exec -a claude python3 {FAKE_CLAUDE}"], env=agent_env)
    wait_for_prompt(process, Emulator(80, 24))
    assert procfs.read_cmdline(process.pid) == ("claude", str(FAKE_CLAUDE))
    assert probe_agent(process) is Agent.CLAUDE


def test_herdr_agent_hint_names_an_unknown_binary(
    spawn_pty: SpawnPty, shell_env: dict[str, str]
) -> None:
    process = spawn_pty(["sleep", "30"], env={**shell_env, "HERDR_AGENT": "codex"})
    wait_until(lambda: procfs.read_cmdline(process.pid) == ("sleep", "30"))
    assert procfs.agent_hint(process.pid) is Agent.CODEX
    probe = procfs.probe_foreground(process.pid, master_fd=process.fd)
    assert (probe.agent, probe.process_name) == (Agent.CODEX, "codex")


def test_probe_reads_tpgid_without_the_master(
    spawn_pty: SpawnPty, shell_env: dict[str, str]
) -> None:
    process = spawn_pty(["sleep", "30"], env=shell_env)
    wait_until(lambda: procfs.read_cmdline(process.pid) == ("sleep", "30"))
    probe = procfs.probe_foreground(process.pid, mode=ProcessDetectionMode.NATIVE)
    assert probe.process_group_id == process.pid
    assert probe.foreground_is_pane_shell
    assert probe.agent is None
