"""Stream-local forwarding: a machine's server socket, reachable as a local socket.

OpenSSH 9.2 accepts ``ssh -W /remote/path.sock`` but ignores it (``-W`` keeps only a
host, which a path has not, so no channel is ever opened and ssh just waits). What
works is a local forward added to the machine's running ControlMaster: ``ssh -O
forward -L LOCAL:REMOTE``. LOCAL is a socket in our private control dir (0700, ours,
never a symlink; each socket is checked before use, and its peer must be our own ssh);
every connection to it becomes a ``direct-streamlocal`` channel that sshd, running as
the remote user, connects to the remote server's socket (so the server's own
peer-credential check passes). A call is then one ``connect()``: no ssh process and no
remote Python per call.

REMOTE is learned once per master with ``herdr api socket-path`` (the master's first
ssh). When sshd refuses forwarding (``AllowStreamLocalForwarding no``), the probe ping
gets no answer: the forward is cancelled, a marker remembers it for a while, and the
callers use ``ssh ... herdr api proxy`` instead, as they do for every case this module
cannot vouch for (no server there, another protocol, an old remote herdr).
"""

from __future__ import annotations

import _socket
import contextlib
import os
import stat
import time

from herdr import PROTOCOL_VERSION
from herdr.api import peercred
from herdr.cli import jsonlite
from herdr.config import paths

TYPE_CHECKING = False  # the forwarded call's path imports neither subprocess nor typing
if TYPE_CHECKING:
    from collections.abc import Mapping

    from herdr.remote.target import Target

QUERY_TIMEOUT_S = 30.0
PROBE_TIMEOUT_S = 10.0
REFUSED_TTL_S = 300.0  # how long a refusal is believed before forwarding is tried again
MAX_SOCKET_PATH = 107  # bytes in a Unix socket path (a longer control dir: the proxy)
OFF = "HERDR_SSH_FORWARD"  # "0": never forward (always the remote proxy)
_PING = b'{"id":"herdr:forward-probe","method":"ping","params":{}}\n'


class ForwardRefused(Exception):
    """Something in the control dir is not what we made: never used, never removed."""


def route_key(name_or_target: str, session: str | None, env: Mapping[str, str]) -> str:
    """The forward's name for ``name_or_target`` as typed, its session, the ssh config,
    and the saved machines file's identity (an edited file means a new forward), so a
    call finds its forward without reading machines.toml or starting ssh."""
    try:
        info = os.stat(os.path.join(paths.config_dir(env), "machines.toml"))
        saved = f"{info.st_ino}:{info.st_size}:{info.st_mtime_ns}"
    except OSError:
        saved = "-"
    config = env.get("HERDR_SSH_CONFIG") or ""
    text = "\0".join([name_or_target, session or "", config, saved]).encode()
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]  # hashlib costs ms
    except ImportError:  # pragma: no cover - Python 3.12+ names it _sha2
        from hashlib import sha256
    digest: str = sha256(text).hexdigest()
    return digest[:20]


def local_path(control: str, key: str) -> str:
    return os.path.join(control, f"f-{key}.sock")


def check_socket(path: str) -> bool:
    """Whether ``path`` is a socket of ours (``False``: nothing there). Anything else
    there (a symlink, a file, another user's socket) raises :class:`ForwardRefused`."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISSOCK(info.st_mode) or info.st_uid != os.getuid():
        raise ForwardRefused(f"{path} is not a socket of ours")
    return True


def connect_local(path: str, timeout: float = 5.0) -> _socket.socket | None:
    """A connection to our forward at ``path`` (``None``: none listens there)."""
    if not check_socket(path):
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        return None
    except OSError:
        sock.close()
        raise
    creds = peercred.peer_credentials(sock)
    if creds is not None and creds[1] != os.getuid():
        sock.close()
        raise ForwardRefused(f"{path} is served by uid {creds[1]}, not by our ssh")
    return sock


def remote_path_from(stdout: bytes) -> str | None:
    """The remote socket path from ``herdr api socket-path``'s line, when a server of
    our protocol answers there and ssh's ``-L`` can carry the path (no ``:``/blanks)."""
    lines = stdout.strip().splitlines()
    try:
        doc = jsonlite.loads(lines[-1]) if lines else None
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("server_protocol") != PROTOCOL_VERSION:
        return None
    path = doc.get("socket_path")
    if not isinstance(path, str) or not path.startswith("/"):
        return None
    if any(c in path for c in ": \t\n\r\0") or len(path.encode()) > MAX_SOCKET_PATH:
        return None
    return path


class Forward:
    """One local forward (socket ``local``) on one ControlMaster (in ``control``) to
    one session's socket on the machine."""

    def __init__(
        self,
        label: str,
        target: Target,
        *,
        config: str | None,
        control: str,
        local: str,
        session: str | None,
        env: Mapping[str, str],
        stderr: int | None = None,
    ) -> None:
        self.label, self.target, self.config = label, target, config
        self.control, self.local, self.session = control, local, session
        self.env, self.stderr = env, stderr
        self.ssh_status: int | None = None  # the last query's ssh exit status
        self.no_server = False  # the last query found no server answering there

    @property
    def _refused_marker(self) -> str:
        return self.local + ".refused"

    def _ssh(self, remote_command: str | None, *extra: str) -> list[str]:
        from herdr.remote import ssh_command

        return ssh_command.ssh_argv(
            self.target, remote_command, config=self.config, control_dir=self.control, extra=extra
        )

    def _quiet(self, argv: list[str]) -> int:
        import subprocess

        with contextlib.suppress(OSError, subprocess.SubprocessError):
            return subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=QUERY_TIMEOUT_S,
                check=False,
            ).returncode
        return -1

    def refused_recently(self) -> bool:
        try:
            return time.time() - os.lstat(self._refused_marker).st_mtime < REFUSED_TTL_S
        except OSError:
            return False

    def open(self) -> _socket.socket | None:
        """A stream to the remote server through the forward, set up if needed
        (``None``: use the remote proxy). Raises :class:`ForwardRefused` for a
        control dir entry that is not ours."""
        sock = connect_local(self.local)
        if sock is not None or self.refused_recently():
            return sock
        import fcntl

        fd = os.open(self.local + ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # one setup at a time; the others then connect
            sock = connect_local(self.local)
            if sock is None and not self.refused_recently() and self.setup():
                sock = connect_local(self.local)
            return sock
        finally:
            os.close(fd)

    def query(self) -> str | None:
        """The remote socket path (``herdr api socket-path`` over the master, which the
        first ssh starts); ``None`` when it cannot be forwarded to."""
        import subprocess

        from herdr.remote import ssh_command

        words = ["api", "socket-path", *(["--session", self.session] if self.session else [])]
        try:
            done = subprocess.run(
                self._ssh(ssh_command.remote_herdr(words, self.env)),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                timeout=QUERY_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        self.ssh_status = done.returncode
        if done.returncode != 0:
            return None
        self.no_server = b'"server_protocol":null' in done.stdout
        return remote_path_from(done.stdout)

    def setup(self) -> bool:
        """Learn the remote path, add the forward to the master, and prove it with a
        ping; a forward that gets no answer is cancelled and remembered as refused."""
        remote = self.query()
        if remote is None:
            return False
        if check_socket(self.local):
            os.unlink(self.local)  # a stale one of ours (its master has gone)
        spec = f"{self.local}:{remote}"
        if self._quiet(self._ssh(None, "-O", "forward", "-L", spec)) != 0:
            return False
        if self._probe():
            return True
        self._quiet(self._ssh(None, "-O", "cancel", "-L", spec))
        with contextlib.suppress(OSError):
            if check_socket(self.local):
                os.unlink(self.local)
        with contextlib.suppress(OSError):
            fd = os.open(self._refused_marker, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            os.utime(fd)
            os.close(fd)
        return False

    def _probe(self) -> bool:
        try:
            sock = connect_local(self.local, PROBE_TIMEOUT_S)
        except (OSError, ForwardRefused):
            return False
        if sock is None:
            return False
        try:
            sock.sendall(_PING)
            data = b""
            while b"\n" not in data:
                more = sock.recv(65536)
                if not more:
                    return False
                data += more
            doc = jsonlite.loads(data.split(b"\n", 1)[0])
        except (OSError, ValueError):
            return False
        finally:
            sock.close()
        result = doc.get("result") if isinstance(doc, dict) else None
        return isinstance(result, dict) and result.get("protocol") == PROTOCOL_VERSION


def enabled(env: Mapping[str, str]) -> bool:
    return env.get(OFF, "1") != "0"
