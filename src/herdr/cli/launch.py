"""``herdr`` / ``herdr session attach NAME``: start-or-attach the session, run the TUI.

The server is started in the background when none answers on the session's socket:
its own session (setsid), stdio on /dev/null (early start-up errors go to
``launch.log`` in the state dir; the server logs to ``server.log`` there), cwd ``/``.
A session without workspaces gets one from the current directory (herdr-spec §1.1).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable

from herdr.cli.main import CliError, UsageError
from herdr.cli.transport import RequestFailed, check_protocol, is_live, request
from herdr.config import paths, safe_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

START_TIMEOUT_S = 15.0

TYPE_CHECKING = False
if TYPE_CHECKING:
    from herdr.remote.cycle import Switch


def _session_flag(args: argparse.Namespace) -> str | None:
    name = getattr(args, "name", None)
    if name is not None:
        return str(name)
    flag = getattr(args, "session", None)
    return None if flag is None else str(flag)


def _spawn_detached(argv: list[str], env: dict[str, str], log_fd: int) -> None:
    """Double fork: the server gets its own session, cwd ``/``, stdio on /dev/null and
    stderr on ``log_fd``, and is re-parented to init (never our zombie). Plain forks of
    this small process, not an intermediate interpreter (~30 ms less on a cold start)."""
    devnull = os.open(os.devnull, os.O_RDWR)
    middle = os.fork()
    if middle == 0:  # pragma: no cover - runs in the forked children
        try:
            if os.fork() == 0:
                os.setsid()
                os.chdir("/")
                os.dup2(devnull, 0)
                os.dup2(devnull, 1)
                os.dup2(log_fd, 2)
                os.closerange(3, os.sysconf("SC_OPEN_MAX"))
                os.execve(argv[0], argv, env)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.write(2, f"herdr: cannot start the server: {exc}\n".encode())
            os._exit(127)
        os._exit(0)
    os.close(devnull)
    os.waitpid(middle, 0)


def start_server(session: str | None, env: dict[str, str]) -> str:
    """Start a detached ``herdr server`` for ``session``; returns its launch log path."""
    state_dir = paths.session_state_dir(env, session)
    try:
        safe_paths.ensure_private_tree(paths.session_state_dir(env, None), state_dir)
        log_fd = safe_paths.open_private_append(os.path.join(state_dir, "launch.log"))
    except (safe_paths.UnsafePathError, OSError) as exc:
        raise CliError(f"cannot start the server: {exc}") from None
    argv = [sys.executable, "-m", "herdr", "server"]
    if session is not None:
        argv += ["--session", session]
    try:
        _spawn_detached(argv, env, log_fd)
    finally:
        os.close(log_fd)
    return os.path.join(state_dir, "launch.log")


def _log_tail(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 400))
            lines = fh.read().decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1] if lines else ""


def ensure_server(
    path: str, session: str | None, meanwhile: Callable[[], object] | None = None
) -> bool:
    """Make sure a server answers at ``path``; True when we started it.

    ``meanwhile`` runs once while a server we just spawned boots (the TUI imports its
    client there: the two start-ups overlap on separate cores instead of adding up)."""
    if is_live(path):
        return False
    env = {k: v for k, v in os.environ.items() if k not in ("HERDR_PANE_ID", "HERDR_ENV")}
    if session is None:
        env.pop("HERDR_SESSION", None)
    log_path = start_server(session, env)
    if meanwhile is not None:
        meanwhile()
    size = os.path.getsize(log_path) if os.path.exists(log_path) else 0
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if is_live(path, timeout=0.2):
            return True
        if os.path.getsize(log_path) > size:
            # it wrote to stderr: a warning, or why it failed; give it 2 s to come up
            deadline = min(deadline, time.monotonic() + 2.0)
            size = os.path.getsize(log_path)
        time.sleep(0.02)
    tail = _log_tail(log_path)
    why = f": {tail} (see {log_path})" if tail else ""
    raise CliError(f"the server did not start within {START_TIMEOUT_S:.0f}s at {path}{why}")


def ensure_workspace(path: str) -> None:
    """A session with no workspaces gets one rooted at the current directory."""
    envelope = request(path, "workspace.list", {})
    result = envelope.get("result")
    if isinstance(result, dict) and result.get("workspaces"):
        return
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = os.environ.get("HOME") or "/"
    envelope = request(path, "workspace.create", {"cwd": cwd, "focus": True})
    error = envelope.get("error")
    if isinstance(error, dict):
        raise CliError(f"cannot create a workspace: {error.get('message')}")


def _allow_nested() -> bool:
    import tomllib

    try:
        with open(paths.config_file(os.environ), "rb") as fh:
            doc = tomllib.load(fh)
    except (OSError, ValueError):
        return False
    experimental = doc.get("experimental")
    return isinstance(experimental, dict) and experimental.get("allow_nested") is True


def preload_client() -> None:
    """Import the TUI client's first-frame core (the bulk of a reattach)."""
    from herdr.cli.quick_msgspec import import_msgspec
    from herdr.cli.quiet_gc import no_gc

    with no_gc():
        import_msgspec()
        import herdr.client.app
        import herdr.client.settings  # noqa: F401


def preload_while_server_starts() -> None:
    """The client and its keys, while a server we just spawned boots: these imports run
    beside the server's on the other core, so the keys need not wait for a first frame."""
    preload_client()
    from herdr.cli.quiet_gc import no_gc

    with no_gc():
        import herdr.client.modes  # noqa: F401


def run_tui(args: argparse.Namespace) -> int:
    try:
        session = paths.active_session(os.environ, _session_flag(args))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if _session_flag(args) is None and os.environ.get("HERDR_SOCKET_PATH"):
        path = os.environ["HERDR_SOCKET_PATH"]
    else:
        path = os.path.join(paths.session_data_dir(os.environ, session), paths.SOCKET_NAME)
    if not (os.isatty(0) and os.isatty(1)):
        raise CliError("the TUI needs a terminal on stdin and stdout")
    if os.environ.get("HERDR_ENV") == "1" and not _allow_nested():
        raise CliError(
            "already inside a herdr pane; detach first, or set [experimental] allow_nested = true"
        )
    result = run_local(session, path)
    if isinstance(result, int):
        return result
    from herdr.remote.attach import run_machine
    from herdr.remote.cycle import drive

    return drive(
        result.machine,
        lambda machine: (
            run_local(session, path, "back on this computer")
            if machine is None
            else run_machine(machine)
        ),
    )


def run_local(session: str | None, path: str, notice: str = "") -> int | Switch:
    """The TUI on this computer's server at ``path`` (started if none answers); a
    :class:`Switch` when ``prefix+m`` asked for another machine."""
    from herdr.cli.quick_msgspec import import_msgspec

    import_msgspec()  # before anything of ours imports it (cycle's Switch is a Struct)
    from herdr.remote.cycle import Switch

    try:
        ensure_server(path, session, meanwhile=preload_while_server_starts)
        check_protocol(path)
        ensure_workspace(path)
    except RequestFailed as exc:
        raise CliError(exc.message) from None

    preload_client()
    from herdr.client.app import App
    from herdr.client.settings import load_ui_settings

    settings = load_ui_settings(paths.config_file(os.environ))
    label = session or paths.DEFAULT_SESSION
    while True:
        app = App(
            path,
            settings=settings,
            session_label=label,
            keys_after_first_frame=True,
            protocol_checked=True,  # check_protocol(path) above
            early_frame=True,  # drawn before asyncio is imported
        )
        if notice and not app.message:
            app.message, notice = notice, ""
        try:
            reason = app.run()
        except Exception as exc:  # the terminal is already restored (App.run's finally)
            return _crashed(exc, session)
        if reason == "machine":
            return Switch(app.next_machine)
        if reason != "switch" or app.switch_to is None:
            break
        # the navigator chose another session: attach there (starting it if stopped)
        label, kind, target = app.switch_to
        session = None if label == paths.DEFAULT_SESSION else label
        path = paths.session_socket_path(os.environ, session)
        try:
            ensure_server(path, session)
            check_protocol(path)
            ensure_workspace(path)
        except RequestFailed as exc:
            raise CliError(f"cannot switch to session {label}: {exc.message}") from None
        _focus(path, kind, target)
    detail = f": {app.exit_detail}" if app.exit_detail else ""
    if reason == "detached":
        print(f"[detached from session {label}]")
        return 0
    if reason == "empty":
        print(f"[session {label} has no workspaces left]")
        return 0
    if reason == "server_stopped":
        print(f"herdr: the server of session {label} stopped")
        return 0
    if reason == "server_lost":
        print(f"herdr: lost the connection to the server of session {label}{detail}")
        return 1
    print(f"herdr: the client failed{detail}", file=sys.stderr)
    return 1


FOCUS_METHODS = {"workspace": "workspace.focus", "tab": "tab.focus", "pane": "pane.focus"}


def _focus(path: str, kind: str, target: str) -> None:
    """Focus the navigator's choice on its server before attaching, so the TUI's first
    state already shows it (a choice that vanished meanwhile leaves the server's focus)."""
    method = FOCUS_METHODS.get(kind)
    if method is None:
        return
    with contextlib.suppress(RequestFailed):
        request(path, method, {f"{kind}_id": target}, timeout=5.0)


def _crashed(exc: Exception, session: str | None) -> int:
    import traceback

    state_dir = paths.session_state_dir(os.environ, session)
    crash_log = os.path.join(state_dir, "client-crash.log")
    with (
        contextlib.suppress(OSError, safe_paths.UnsafePathError),
        os.fdopen(safe_paths.open_private_append(crash_log), "a", encoding="utf-8") as fh,
    ):
        traceback.print_exception(exc, file=fh)
    print(f"herdr: the client crashed ({type(exc).__name__}: {exc}); see {crash_log}")
    return 1
