"""The attach's ControlMaster marks its connection like an interactive ssh.

The master is started by a tty-less call, which OpenSSH would mark with its bulk
class for the connection's whole life (every key and echo of the attach rides it);
the managed config gives it ``IPQoS af21`` unless the user's config says otherwise.
Checked on the real connection: ``ss --tos`` on the master's TCP socket.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from herdr.remote.link import Link
from herdr_testing.sshd import SshMachine, ssh_machine, sshd_missing_reason

AF21 = 0x48


@pytest.fixture(scope="module")
def sshd() -> Iterator[SshMachine]:
    reason = sshd_missing_reason() or (None if shutil.which("ss") else "ss is not installed")
    if reason is not None:
        pytest.skip(reason)
    with ssh_machine() as machine:
        yield machine


def master_tos(machine: SshMachine, link: Link) -> set[int]:
    """The TOS of every TCP connection to the machine from this link's master."""
    title = f"ssh: {link.directory}/"
    masters = {
        int(pid) for pid in os.listdir("/proc") if pid.isdigit() and _cmdline(pid).startswith(title)
    }
    assert masters, "no ControlMaster runs for the link"
    out = subprocess.run(
        ["ss", "-tnpH", "--tos", "state", "established", f"( dport = :{machine.port} )"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = set()
    for line in out.splitlines():
        pids = {int(p) for p in re.findall(r"pid=(\d+)", line)}
        tos = re.search(r"\btos:(0x[0-9a-f]+)", line)
        if pids & masters and tos:
            found.add(int(tos.group(1), 16))
    return found


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return ""


def test_the_master_connection_is_marked_interactive(sshd: SshMachine) -> None:
    link = Link.open(sshd.target, {**os.environ, **sshd.client_env()}, managed=True)
    try:
        assert link.run("true").returncode == 0  # starts the master, tty-less
        assert master_tos(sshd, link) == {AF21}
    finally:
        link.close()


def test_the_users_ipqos_wins(sshd: SshMachine, tmp_path: Path) -> None:
    user = tmp_path / "ssh_config"
    user.write_text(f"IPQoS cs1\nInclude {sshd.ssh_config}\n")
    env = {**os.environ, **sshd.client_env(), "HERDR_SSH_CONFIG": str(user)}
    link = Link.open(sshd.target, env, managed=True)
    try:
        assert link.run("true").returncode == 0
        assert master_tos(sshd, link) == {0x20}
    finally:
        link.close()
