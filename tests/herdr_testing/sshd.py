"""A real OpenSSH server on loopback that plays "another machine" for remote tests.

Debian's ``openssh-server`` (``/usr/sbin/sshd``) runs on 127.0.0.1 on a free port
with a temp host key, a temp ed25519 authorized key (no passphrase) for the current
user, ``UsePAM no`` and no ``ForceCommand``; it logs to a file and is stopped by pid.
Every session it starts gets the "remote" machine's own HOME/XDG dirs and PATH via
sshd's ``SetEnv`` (which overrides the login defaults), so a remote herdr never
touches the local test server's dirs. The client side is a temp ``ssh -F`` config
with the key, ``StrictHostKeyChecking accept-new`` and a temp known_hosts; the only
address used is ``ssh://127.0.0.1:PORT``.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from herdr_testing.servers import request
from herdr_testing.waits import wait_until

SSHD = "/usr/sbin/sshd"
REPO = Path(__file__).resolve().parents[2]


def sshd_missing_reason() -> str | None:
    """Why the remote tests cannot run here (``None``: they can)."""
    tools = (shutil.which("ssh"), shutil.which("ssh-keygen"))
    if not os.path.exists(SSHD) or None in tools:
        return "openssh-server/openssh-client are not installed (apt-get install openssh-server)"
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _keygen(path: Path) -> None:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
        check=True,
        capture_output=True,
    )


def herdr_wrapper(bin_dir: Path) -> Path:
    """A ``herdr`` on the remote PATH that runs this checkout with the test interpreter."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "herdr"
    script.write_text(f'#!/bin/sh\nexec {sys.executable} -m herdr "$@"\n')
    script.chmod(0o755)
    return script


@dataclass
class SshMachine:
    """A running loopback sshd and the client config that reaches it."""

    root: Path
    port: int
    proc: subprocess.Popen[bytes]
    ssh_config: Path
    remote_env: dict[str, str]

    @property
    def target(self) -> str:
        return f"ssh://{os.environ.get('USER') or _user()}@127.0.0.1:{self.port}"

    @property
    def remote_home(self) -> Path:
        return Path(self.remote_env["HOME"])

    def client_env(self) -> dict[str, str]:
        """What a local herdr needs to reach this machine: its ssh config, and a
        ControlMaster dir of this machine's own (so teardown finds the masters)."""
        return {
            "HERDR_SSH_CONFIG": str(self.ssh_config),
            "HERDR_SSH_CONTROL_DIR": str(self.root / "ctl"),
        }

    def ssh_clients(self) -> list[int]:
        """Local ssh processes talking to this machine (their argv names its config, or
        its port after ``-p``: herdr's managed config only includes ours)."""
        marker = str(self.ssh_config).encode()
        port = [b"-p", str(self.port).encode()]
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    argv = fh.read().split(b"\0")
            except OSError:
                continue
            if argv and self._is_master(argv[0]):
                found.append(int(entry))
                continue
            if not argv or not argv[0].endswith(b"ssh"):
                continue
            pairs = [list(p) for p in itertools.pairwise(argv)]
            if any(marker in a for a in argv) or port in pairs:
                found.append(int(entry))
        return found

    def _is_master(self, title: bytes) -> bool:
        """A ControlMaster (ssh retitles it ``ssh: CONTROL_PATH [mux]``) of this machine:
        its ControlPath is under our root, or in an attach dir whose config includes ours."""
        if not (title.startswith(b"ssh: ") and title.endswith(b" [mux]")):
            return False
        control = Path(os.fsdecode(title[len(b"ssh: ") : -len(b" [mux]")]))
        if control.is_relative_to(self.root):
            return True
        with contextlib.suppress(OSError):
            return (
                (control.parent / "ssh_config")
                .read_text()
                .startswith(f"Include {self.ssh_config}\n")
            )
        return False

    def remote_socket(self, session: str | None = None) -> Path:
        base = Path(self.remote_env["XDG_CONFIG_HOME"]) / "herdr"
        return base / "sessions" / session / "herdr.sock" if session else base / "herdr.sock"

    def ssh(self, command: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        """Run ``command`` on the "remote" machine over plain ssh."""
        return subprocess.run(
            ["ssh", "-F", str(self.ssh_config), "-p", str(self.port), "127.0.0.1", command],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def log_text(self) -> str:
        log = self.root / "sshd.log"
        return log.read_text(errors="replace") if log.exists() else ""

    def stop_remote_servers(self) -> None:
        """Stop what this machine's sessions left running: each remote herdr server
        (``server.stop`` on its socket), then any process still living in the remote
        HOME (by pid, from ``/proc/<pid>/environ``)."""
        for sock in Path(self.remote_env["XDG_CONFIG_HOME"]).rglob("herdr.sock"):
            with contextlib.suppress(OSError, ValueError):
                request(sock, "server.stop", {})
        marker = f"HOME={self.remote_env['HOME']}".encode()
        for pid in remote_pids(marker):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def remove_attach_dirs(self) -> None:
        """``herdr --remote``'s temp dirs for this machine that a killed client left."""
        include = f"Include {self.ssh_config}\n"
        for path in Path("/tmp").glob("herdr-r-*"):
            with contextlib.suppress(OSError):
                if (path / "ssh_config").read_text().startswith(include):
                    shutil.rmtree(path, ignore_errors=True)

    def stop(self) -> None:
        """Stop local ssh clients and masters, sshd's per-connection children, then sshd."""
        for pid in [*self.ssh_clients(), *_children(self.proc.pid)]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        self.remove_attach_dirs()
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)


def remote_pids(marker: bytes) -> list[int]:
    """Processes whose environment holds ``marker`` (the remote machine's HOME)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                environ = fh.read().split(b"\0")
        except OSError:
            continue
        if marker in environ:
            found.append(int(entry))
    return found


def _children(ppid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == ppid:
            found.append(int(entry))
    return found


def _user() -> str:
    import pwd

    return pwd.getpwuid(os.getuid()).pw_name


@contextlib.contextmanager
def ssh_machine(
    *, with_herdr: bool = True, extra_path: str = "", sshd_extra: str = ""
) -> Iterator[SshMachine]:
    """Start a loopback sshd whose sessions live in a private "remote" tree.

    ``with_herdr`` puts a ``herdr`` (this checkout) in the remote ``~/.local/bin``;
    without it the remote has no herdr at all (the bootstrap case). ``extra_path`` is
    prepended to the remote PATH (e.g. a python3 with pip for the install);
    ``sshd_extra`` is appended to sshd_config (e.g. ``AllowStreamLocalForwarding no``).
    """
    root = Path(tempfile.mkdtemp(prefix="hs-", dir="/tmp"))
    try:
        os.chmod(root, 0o755)
        remote = root / "r"
        remote_env = {
            "HOME": str(remote / "h"),
            "XDG_CONFIG_HOME": str(remote / "c"),
            "XDG_STATE_HOME": str(remote / "s"),
            "XDG_DATA_HOME": str(remote / "d"),
            "XDG_CACHE_HOME": str(remote / "k"),
            "SHELL": "/bin/sh",
            "PATH": ":".join(p for p in (extra_path, "/usr/local/bin:/usr/bin:/bin") if p),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        (remote / "h").mkdir(parents=True)
        if with_herdr:
            herdr_wrapper(remote / "h" / ".local" / "bin")
        _keygen(root / "host_key")
        _keygen(root / "user_key")
        authorized = root / "authorized_keys"
        shutil.copy(root / "user_key.pub", authorized)
        authorized.chmod(0o600)
        port = free_port()
        set_env = " ".join(f"{k}={v}" for k, v in remote_env.items())
        (root / "sshd_config").write_text(
            f"Port {port}\nListenAddress 127.0.0.1\nHostKey {root / 'host_key'}\n"
            f"AuthorizedKeysFile {authorized}\nPidFile {root / 'sshd.pid'}\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            "PubkeyAuthentication yes\nUsePAM no\nStrictModes no\n"
            "PermitRootLogin prohibit-password\nLogLevel VERBOSE\nMaxSessions 50\n"
            "MaxStartups 50\n"
            f"SetEnv {set_env}\n{sshd_extra}"
        )
        ssh_config = root / "ssh_config"
        ssh_config.write_text(
            "Host *\n"
            f"  IdentityFile {root / 'user_key'}\n  IdentitiesOnly yes\n"
            f"  UserKnownHostsFile {root / 'known_hosts'}\n"
            "  StrictHostKeyChecking accept-new\n  BatchMode yes\n  LogLevel ERROR\n"
        )
        if not os.path.isdir("/run/sshd"):
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privsep dir
        proc = subprocess.Popen(
            [SSHD, "-D", "-f", str(root / "sshd_config"), "-E", str(root / "sshd.log")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        machine = SshMachine(root, port, proc, ssh_config, remote_env)
        try:
            wait_until(
                lambda: proc.poll() is not None or machine.ssh("true", 10).returncode == 0,
                timeout=20,
                message="sshd did not accept a login",
            )
            if proc.poll() is not None:
                raise RuntimeError(f"sshd exited: {machine.log_text()}")
            yield machine
        finally:
            machine.stop_remote_servers()
            machine.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


__all__ = ["REPO", "SshMachine", "free_port", "herdr_wrapper", "ssh_machine", "sshd_missing_reason"]
