"""A byte stream to another machine's herdr socket: ``ssh ... herdr api proxy``.

The local end is one side of a ``socketpair`` whose other side is ssh's stdin and
stdout, so the CLI, the SDK and the TUI's relay use it exactly like the local Unix
socket (``sendall``/``recv``/``settimeout``/peer uid: ours). Calls to one machine
share a ControlMaster in a private directory, so only the first pays for the SSH
handshake. Only imported when a command names another machine.
"""

from __future__ import annotations

import _socket
import contextlib
import os
import subprocess
from collections.abc import Mapping

from herdr.remote import machines_store, ssh_command
from herdr.remote.target import Target, parse_target

MACHINE_PREFIX = "herdr-machine:"
REAP_TIMEOUT_S = 5.0


class MachineError(Exception):
    """The machine cannot be named or reached; ``code`` is the error code to report."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def machine_path(machine: str, session: str | None) -> str:
    """The transport's stand-in for a socket path (a NUL never occurs in a real one)."""
    return f"{MACHINE_PREFIX}{session or ''}\0{machine}"


def split_machine_path(path: str) -> tuple[str, str | None] | None:
    """``(machine, session)`` of a :func:`machine_path`, else ``None``."""
    if not path.startswith(MACHINE_PREFIX) or "\0" not in path:
        return None
    session, _, machine = path[len(MACHINE_PREFIX) :].partition("\0")
    return machine, session or None


def control_dir(env: Mapping[str, str]) -> str:
    """A private directory (ours, mode 0700, not a symlink) for ControlMaster sockets.

    Under ``/tmp`` by default because ControlPath must fit a Unix socket path.
    """
    path = env.get("HERDR_SSH_CONTROL_DIR") or f"/tmp/herdr-ssh-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    info = os.lstat(path)
    if not os.path.isdir(path) or os.path.islink(path) or info.st_uid != os.getuid():
        raise MachineError("machine_unreachable", f"{path} is not a private directory of ours")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def resolve(name_or_target: str, env: Mapping[str, str]) -> tuple[str, Target]:
    """``(label, target)`` for a saved machine's name or an ssh target typed as is."""
    try:
        name, text = machines_store.load(env).resolve(name_or_target)
        return name or name_or_target, parse_target(text)
    except ValueError as exc:
        raise MachineError("invalid_target", str(exc)) from None


def reap(proc: subprocess.Popen[bytes], timeout: float = REAP_TIMEOUT_S) -> int:
    """Wait for ssh (it exits once the remote proxy has); kill it if it does not."""
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


class Reaping:
    """Mixed into a socket class: closing the socket also reaps its ssh process."""

    proc: subprocess.Popen[bytes] | None = None
    label = ""

    def close(self) -> None:
        super().close()  # type: ignore[misc]
        if self.proc is not None:
            reap(self.proc)

    def eof_reason(self) -> str:
        """Why the stream ended before an answer: ssh's exit status, said plainly."""
        code = reap(self.proc) if self.proc is not None else None
        if code == 255:
            return f"ssh to {self.label} failed (exit 255; see ssh's message above)"
        return f"the connection to {self.label} closed (ssh exit {code})"


class MachineSocket(Reaping, _socket.socket):
    """The CLI's stream to a machine (a ``_socket.socket``: the CLI avoids ``socket``)."""


def spawn(
    name_or_target: str,
    remote_words: list[str],
    env: Mapping[str, str],
    *,
    stderr: int | None = None,
    config: str | None = None,
    control: str | None = None,
) -> tuple[int, subprocess.Popen[bytes], str]:
    """Start ``ssh TARGET herdr REMOTE_WORDS``; returns our end's fd, ssh, and a label."""
    label, target = resolve(name_or_target, env)
    argv = ssh_command.ssh_argv(
        target,
        ssh_command.remote_herdr(remote_words, env),
        config=config or env.get("HERDR_SSH_CONFIG") or None,
        control_dir=control if control is not None else control_dir(env),
    )
    ours, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        proc = subprocess.Popen(
            argv, stdin=theirs.fileno(), stdout=theirs.fileno(), stderr=stderr, close_fds=True
        )
    except OSError as exc:
        ours.close()
        raise MachineError("machine_unreachable", f"cannot run ssh: {exc}") from None
    finally:
        theirs.close()
    return ours.detach(), proc, label


def open_machine(name_or_target: str, session: str | None, env: Mapping[str, str]) -> MachineSocket:
    """A stream to the API socket of ``session`` on the machine (the CLI's connect)."""
    fd, proc, label = spawn(name_or_target, ssh_command.proxy_words(session), env)
    sock = MachineSocket(fileno=fd)
    sock.proc, sock.label = proc, label
    return sock
