"""One attach's way to another machine: its ssh options, ControlMaster and log.

With ``remote.manage_ssh_config`` (the default) herdr writes a temp ssh config that
``Include``s the user's (``$HERDR_SSH_CONFIG`` or ``~/.ssh/config``) and adds fallback
``ServerAlive*`` and ``IPQoS`` options, and every ssh of the attach shares one per-attach
ControlMaster in a private temp dir, stopped (``ssh -O exit``) when the attach ends;
the TUI reaches the remote server through a stream-local forward on that master.
With it off, every connection is a plain ``ssh`` with the user's config.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field

from herdr.cli.transport import RequestFailed
from herdr.remote import ssh_command
from herdr.remote.forward import Forward, ForwardRefused
from herdr.remote.forward import enabled as forwarding_enabled
from herdr.remote.ssh_stream import resolve
from herdr.remote.target import Target

# The master is started by a tty-less call, so OpenSSH marks the whole connection with
# its *bulk* class (upstream 8.x-9.x: cs1, which Wi-Fi queues as background; Debian:
# throughput) although it carries the attach's keys and echo: one class for both,
# upstream's interactive default (af21), unless the user's config sets IPQoS.
SERVER_ALIVE = "Host *\n  ServerAliveInterval 15\n  ServerAliveCountMax 3\n  IPQoS af21\n"


def managed_config(user_config: str | None) -> str:
    """The temp config's text: the user's config first (its values win), then ours."""
    include = user_config or "~/.ssh/config"
    return f"Include {include}\n\n{SERVER_ALIVE}"


@dataclass
class Link:
    """ssh to one machine for the length of an attach (a private temp dir holds it all)."""

    label: str
    target: Target
    env: Mapping[str, str]
    managed: bool
    directory: str = field(default_factory=lambda: tempfile.mkdtemp(prefix="herdr-r-", dir="/tmp"))

    @classmethod
    def open(cls, name_or_target: str, env: Mapping[str, str], *, managed: bool) -> Link:
        label, target = resolve(name_or_target, env)
        link = cls(label, target, env, managed)
        if managed:
            with open(os.path.join(link.directory, "ssh_config"), "w", encoding="utf-8") as fh:
                fh.write(managed_config(env.get("HERDR_SSH_CONFIG")))
        return link

    @property
    def log_path(self) -> str:
        return os.path.join(self.directory, "ssh.log")

    def argv(self, remote_command: str | None, *extra: str, mux: bool = True) -> list[str]:
        """``ssh`` for this attach; ``mux=False`` opens a connection of its own."""
        if self.managed:
            return ssh_command.ssh_argv(
                self.target,
                remote_command,
                config=os.path.join(self.directory, "ssh_config"),
                control_dir=self.directory if mux else None,
                extra=extra,
            )
        return ssh_command.ssh_argv(
            self.target, remote_command, config=self.env.get("HERDR_SSH_CONFIG"), extra=extra
        )

    def herdr(self, words: list[str]) -> str:
        return ssh_command.remote_herdr(words, self.env)

    def run(
        self, remote_command: str, *, timeout: float = 120.0, quiet: bool = True
    ) -> subprocess.CompletedProcess[bytes]:
        """Run a remote command to completion (stdout captured; ssh's stderr to the log,
        or to ours when not ``quiet``)."""
        with open(self.log_path, "ab") as log:
            return subprocess.run(
                self.argv(remote_command),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log if quiet else None,
                timeout=timeout,
                check=False,
            )

    def spawn_on(
        self, fd: int, session: str | None, *, mux: bool = True
    ) -> subprocess.Popen[bytes]:
        """``ssh ... herdr api proxy`` reading and writing ``fd`` (a relayed client's
        socket) itself; ``mux=False`` gives it an ssh connection of its own."""
        with open(self.log_path, "ab") as log:
            return subprocess.Popen(
                self.argv(self.herdr(ssh_command.proxy_words(session)), mux=mux),
                stdin=fd,
                stdout=fd,
                stderr=log,
                close_fds=True,
            )

    def forward(self, session: str | None) -> Forward | None:
        """The attach's stream-local forward (``<dir>/fwd.sock`` on the per-attach
        ControlMaster), so the TUI connects straight to the remote server's socket;
        ``None`` when the config is not managed or sshd refuses it (then the relay)."""
        if not self.managed or not forwarding_enabled(self.env):
            return None
        fwd = Forward(
            self.label,
            self.target,
            config=os.path.join(self.directory, "ssh_config"),
            control=self.directory,
            local=os.path.join(self.directory, "fwd.sock"),
            session=session,
            env=self.env,
        )
        try:
            self.reopen(fwd)
        except RequestFailed:
            return None
        return fwd

    def reopen(self, fwd: Forward) -> None:
        """Make sure the forward answers, setting a new master and forward up after a
        lost connection; ``server_not_running`` when no server answers there."""
        with open(self.log_path, "ab") as log:
            fwd.stderr = log.fileno()
            try:
                sock = fwd.open()
            except (OSError, ForwardRefused) as exc:
                raise RequestFailed("machine_unreachable", str(exc)) from None
            finally:
                fwd.stderr = None
        if sock is not None:
            sock.close()
            return
        if fwd.no_server:
            raise RequestFailed("server_not_running", f"no herdr server is running on {self.label}")
        raise RequestFailed("machine_unreachable", f"no forward to {self.label}: {self.log_tail()}")

    def log_tail(self, lines: int = 3) -> str:
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as fh:
                return " | ".join(fh.read().strip().splitlines()[-lines:])
        except OSError:
            return ""

    def close(self) -> None:
        """Stop the per-attach ControlMaster and remove the temp dir."""
        if self.managed:
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(
                    self.argv(None, "-O", "exit"),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=10,
                    check=False,
                )
        shutil.rmtree(self.directory, ignore_errors=True)
