"""``herdr --remote TARGET [--session N] [--remote-keybindings local|server]``.

The TUI runs here, against a stream-local forward on the attach's ControlMaster
(:mod:`herdr.remote.forward`; else a local relay socket whose connections are ssh
streams to the remote proxy, :mod:`herdr.remote.relay`), so keystrokes are drawn from
the rows the remote server sends without waiting on any remote rendering. When the connection
drops, the TUI restores the terminal, one line says so, and herdr reconnects with
backoff; the remote server and its agents never notice beyond a detached client.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from functools import partial

from herdr.cli.main import CliError, UsageError
from herdr.cli.transport import RequestFailed, check_protocol
from herdr.config import paths
from herdr.remote import machines_store
from herdr.remote.bootstrap import RemoteError, ask_on_terminal, ensure_remote
from herdr.remote.cycle import Switch, drive
from herdr.remote.link import Link
from herdr.remote.relay import Relay
from herdr.remote.ssh_stream import MachineError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    import subprocess

    from herdr.client.predict import Mode
    from herdr.client.settings import UiSettings

# Waits before each reconnect attempt (the last repeats) and the whole budget.
RECONNECT_DELAYS_S = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0)
RECONNECT_BUDGET_S = 300.0


def _remote_table(env: Mapping[str, str]) -> dict[str, object]:
    """config.toml's ``[remote]`` table (empty when the file or the table is missing or
    unreadable: every key then has its default)."""
    import tomllib

    try:
        with open(paths.config_file(env), "rb") as fh:
            doc = tomllib.load(fh)
    except (OSError, ValueError):
        return {}
    remote = doc.get("remote")
    return remote if isinstance(remote, dict) else {}


def manage_ssh_config(env: Mapping[str, str]) -> bool:
    """``remote.manage_ssh_config`` from config.toml (default true)."""
    value = _remote_table(env).get("manage_ssh_config")
    return value if isinstance(value, bool) else True


def predictive_echo(env: Mapping[str, str]) -> Mode:
    """``remote.predictive_echo`` from config.toml (default ``adaptive``; a value
    ``herdr config check`` would refuse is the default too)."""
    value = _remote_table(env).get("predictive_echo")
    return value if value in ("adaptive", "always", "never") else "adaptive"


def pick_machine(flag: str | None, env: Mapping[str, str]) -> str:
    if flag:
        return flag
    try:
        default = machines_store.load(env).default
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if default is None:
        raise UsageError("--remote needs a TARGET (or a default machine: herdr machine default)")
    return default


def run_remote(args: argparse.Namespace) -> int:
    env = os.environ
    name = pick_machine(args.remote, env)
    session = getattr(args, "session", None)
    if session is not None and not paths.is_valid_session_name(session):
        raise UsageError(f"invalid session name: {session!r}")
    server_keys = getattr(args, "remote_keybindings", "local") == "server"
    result = run_machine(name, session, server_keys=server_keys)
    if isinstance(result, int):
        return result
    return drive(result.machine, _cycle_run)


def _cycle_run(machine: str | None) -> int | Switch:
    """One stop of ``prefix+m``'s cycle: this computer's default session, or a machine's."""
    if machine is not None:
        return run_machine(machine)
    from herdr.cli.launch import run_local

    session = paths.active_session(os.environ, None)
    path = paths.session_socket_path(os.environ, session)
    return run_local(session, path, "back on this computer")


def run_machine(
    name: str, session: str | None = None, *, server_keys: bool = False
) -> int | Switch:
    """The TUI on ``name``'s server (bootstrapped, started if needed), with reconnects;
    a :class:`Switch` when ``prefix+m`` asked for another machine."""
    env = os.environ
    try:
        link = Link.open(name, env, managed=manage_ssh_config(env))
    except MachineError as exc:
        raise CliError(f"{exc.code}: {exc.message}") from None
    relay: Relay | None = None
    _exit_on_hangup()
    try:
        # bootstrap first: a run without a terminal still learns what the remote lacks
        ask = ask_on_terminal if os.isatty(0) else None
        doc = ensure_remote(link, session, with_config=server_keys, ask=ask)
        if not (os.isatty(0) and os.isatty(1)):
            raise CliError("the TUI needs a terminal on stdin and stdout")
        settings = _settings(link, doc if server_keys else None)
        fwd = link.forward(session)
        if fwd is not None:  # the TUI connects through the master straight to the server
            path, prepare = fwd.local, partial(link.reopen, fwd)
        else:
            relay = Relay(link.directory, partial(_spawn, link, session))
            path, prepare = relay.path, None
        return _attach_loop(link, path, settings, session, prepare)
    except RemoteError as exc:
        raise CliError(f"{exc.code}: {exc.message}") from None
    finally:
        if relay is not None:
            relay.close()
        link.close()


def _spawn(link: Link, session: str | None, first: bytes, fd: int) -> subprocess.Popen[bytes]:
    return link.spawn_on(fd, session, mux=_mux(first))


def _mux(first_line: bytes) -> bool:
    """The attach stream gets an ssh connection of its own (no ControlMaster hop on
    every keystroke); the TUI's short requests share the attach's ControlMaster."""
    return b'"client.attach"' not in first_line


def _exit_on_hangup() -> None:
    """A closed terminal (SIGHUP) or SIGTERM still stops the ssh master and the relay."""
    import signal

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGHUP, stop)
    signal.signal(signal.SIGTERM, stop)


def _settings(link: Link, remote_doc: dict[str, object] | None) -> UiSettings:
    """Local keybindings and look (default), or the remote config.toml's."""
    from pathlib import Path

    from herdr.client.settings import load_ui_settings

    if remote_doc is None:
        return load_ui_settings(Path(paths.config_file(os.environ)))
    path = Path(link.directory) / "remote-config.toml"
    path.write_text(str(remote_doc.get("config_toml") or ""), encoding="utf-8")
    return load_ui_settings(path)


def _attach_loop(
    link: Link,
    relay_path: str,
    settings: UiSettings,
    session: str | None,
    prepare: Callable[[], None] | None = None,
) -> int | Switch:
    from herdr.client.app import App
    from herdr.remote.upload import upload

    label = f"{link.label}:{session}" if session else link.label
    predict = predictive_echo(os.environ)
    notice = f"on machine {link.label} (prefix+m: next machine)"
    while True:
        app = App(
            relay_path,
            settings=settings,
            session_label=label,
            on_machine=link.label,
            uploader=lambda data: upload(link, data),  # ctrl+v: remote_image_paste
            predict=predict,
        )
        if notice and not app.message:
            app.message, notice = notice, ""
        reason = app.run()  # the terminal is restored when it returns
        if reason == "machine":
            return Switch(app.next_machine)
        if reason != "server_lost":
            break
        sys.stderr.write(f"herdr: connection to {link.label} lost — reconnecting\n")
        sys.stderr.flush()
        failure = reconnect(relay_path, prepare)
        if failure is not None:
            print(f"herdr: could not reconnect to {link.label}: {failure}", file=sys.stderr)
            return 1
    if reason == "detached":
        print(f"[detached from {label}]")
        return 0
    if reason in ("empty", "switch"):
        print(f"[session {label} has no workspaces left]" if reason == "empty" else "")
        return 0
    if reason == "server_stopped":
        print(f"herdr: the server on {label} stopped")
        return 0
    detail = f": {app.exit_detail}" if app.exit_detail else ""
    print(f"herdr: the client failed{detail}", file=sys.stderr)
    return 1


def reconnect(relay_path: str, prepare: Callable[[], None] | None = None) -> str | None:
    """Ping the remote server through the relay with backoff; ``None`` once it answers.
    ``prepare`` (the forward's reopen) runs before each ping and may refuse the same way."""
    deadline = time.monotonic() + RECONNECT_BUDGET_S
    attempt = 0
    last = "no answer"
    while time.monotonic() < deadline:
        time.sleep(RECONNECT_DELAYS_S[min(attempt, len(RECONNECT_DELAYS_S) - 1)])
        attempt += 1
        try:
            if prepare is not None:
                prepare()
            check_protocol(relay_path)
            return None
        except RequestFailed as exc:
            if exc.code in ("server_not_running", "protocol_mismatch", "remote_herdr_missing"):
                return exc.message
            last = exc.message
    return last
