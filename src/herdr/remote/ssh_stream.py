"""A byte stream to another machine's herdr socket.

Preferably a stream-local forward on the machine's shared ControlMaster
(:mod:`herdr.remote.forward`: one ``connect()``, no process per call), else ``ssh ...
herdr api proxy``, whose stdin and stdout are one side of a ``socketpair``. Either way
the CLI, the SDK and the TUI use it exactly like the local Unix socket
(``sendall``/``recv``/``settimeout``). Calls to one machine share a ControlMaster in a
private directory, so only the first pays for the SSH handshake. Only imported when a
command names another machine.
"""

from __future__ import annotations

import _socket
import contextlib
import os

TYPE_CHECKING = False  # a forwarded call imports neither subprocess nor the toml reader
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping

    from herdr.remote.target import Target

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
    from herdr.remote import machines_store
    from herdr.remote.target import parse_target

    try:
        name, text = machines_store.load(env).resolve(name_or_target)
        return name or name_or_target, parse_target(text)
    except ValueError as exc:
        raise MachineError("invalid_target", str(exc)) from None


def reap(proc: subprocess.Popen[bytes], timeout: float = REAP_TIMEOUT_S) -> int:
    """Wait for ssh (it exits once the remote proxy has); kill it if it does not."""
    import subprocess

    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


class Reaping:
    """Mixed into a socket class: closing the socket also reaps its ssh process.

    A forwarded stream (no ssh process of its own: ``route`` names the machine and
    session) that ends before an answer asks the remote proxy why, once.
    """

    proc: subprocess.Popen[bytes] | None = None
    label = ""
    route: tuple[str, str | None] | None = None
    route_env: Mapping[str, str] | None = None
    stderr: int | None = None  # where the diagnosing ssh's own messages go
    eof_code = "machine_unreachable"

    def close(self) -> None:
        super().close()  # type: ignore[misc]
        if self.proc is not None:
            reap(self.proc)

    def eof_reason(self) -> str:
        """Why the stream ended before an answer: ssh's exit status, said plainly."""
        if self.proc is None and self.route is not None:
            env = os.environ if self.route_env is None else self.route_env
            self.eof_code, message = diagnose(*self.route, env, stderr=self.stderr)
            return message
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
    import subprocess

    from herdr.remote import ssh_command

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
    fd, proc, label = stream(name_or_target, session, env)
    sock = MachineSocket(fileno=fd)
    sock.proc, sock.label = proc, label
    sock.route = (name_or_target, session) if proc is None else None
    return sock


def stream(
    name_or_target: str,
    session: str | None,
    env: Mapping[str, str],
    *,
    stderr: int | None = None,
) -> tuple[int, subprocess.Popen[bytes] | None, str]:
    """A stream to the API socket of ``session`` on the machine: our end's fd, the ssh
    serving it (``None`` for a stream-local forward on the shared ControlMaster, see
    :mod:`herdr.remote.forward`), and a label. Falls back to ``ssh ... herdr api proxy``
    wherever the forward cannot be used."""
    sock = _forwarded(name_or_target, session, env, stderr)
    if sock is not None:
        sock.settimeout(None)
        return sock.detach(), None, name_or_target
    from herdr.remote import ssh_command

    return spawn(name_or_target, ssh_command.proxy_words(session), env, stderr=stderr)


def _forwarded(
    name_or_target: str, session: str | None, env: Mapping[str, str], stderr: int | None
) -> _socket.socket | None:
    """A connection through the machine's forward, set up if needed (``None``: use the
    proxy: forwarding is off, refused there, or the control dir's path is too long)."""
    from herdr.remote import forward

    if not forward.enabled(env):
        return None
    control = control_dir(env)
    local = forward.local_path(control, forward.route_key(name_or_target, session, env))
    if len(os.fsencode(local)) > forward.MAX_SOCKET_PATH:
        return None
    try:
        sock = forward.connect_local(local)  # the common case: no process at all
        if sock is not None:
            return sock
        label, target = resolve(name_or_target, env)
        fwd = forward.Forward(
            label,
            target,
            config=env.get("HERDR_SSH_CONFIG") or None,
            control=control,
            local=local,
            session=session,
            env=env,
            stderr=stderr,
        )
        return fwd.open()
    except forward.ForwardRefused as exc:
        raise MachineError("machine_unreachable", str(exc)) from None
    except OSError as exc:
        raise MachineError("machine_unreachable", f"{local}: {exc}") from None


def diagnose(
    name_or_target: str,
    session: str | None,
    env: Mapping[str, str],
    *,
    stderr: int | None = None,
) -> tuple[str, str]:
    """``(code, message)`` for a forwarded stream that closed unanswered: the remote
    proxy's own refusal (``server_not_running``, ...) when it has one."""
    from herdr.cli import jsonlite
    from herdr.remote import ssh_command

    label = name_or_target
    try:
        words = ssh_command.proxy_words(session)
        fd, proc, label = spawn(name_or_target, words, env, stderr=stderr)
    except MachineError as exc:
        return exc.code, exc.message
    sock = MachineSocket(fileno=fd)
    sock.proc, sock.label = proc, label
    data = b""
    try:
        sock.settimeout(30.0)
        sock.sendall(b'{"id":"herdr:diagnose","method":"ping","params":{}}\n')
        while b"\n" not in data:
            more = sock.recv(65536)
            if not more:
                break
            data += more
        doc = jsonlite.loads(data.split(b"\n", 1)[0]) if data else None
    except (OSError, ValueError):
        doc = None
    finally:
        sock.close()
    error = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(error, dict):
        return str(error.get("code")), str(error.get("message"))
    if doc is None:
        return "machine_unreachable", sock.eof_reason()
    return "machine_unreachable", f"the forwarded connection to {label} closed (retry)"
