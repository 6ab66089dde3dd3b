"""The sidebar's other machines, read in the background over ``--machine``'s transport.

A daemon thread (never the TUI's event loop: an ssh that hangs must not delay a
keystroke) reads every saved machine's ``session.snapshot`` through ``ssh ... herdr
api proxy`` on the shared ControlMaster, all machines at once, every
:data:`REFRESH_S`, and hands the sections to the loop with ``call_soon_threadsafe``.
ssh's own messages go to /dev/null so they never land on the TUI's screen.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
from collections.abc import Callable, Mapping

from herdr.client.machine_sections import failed_section, others, section_from_snapshot
from herdr.client.view import MachineSection

REFRESH_S = 5.0  # between two rounds
TIMEOUT_S = 10.0  # one machine's answer; a slower one is "not answering"

Sections = tuple[MachineSection, ...]
LOCAL = "local"  # the section of this computer's server (shown when attached elsewhere)


def saved_names(env: Mapping[str, str]) -> list[str]:
    """The saved machines' names (none when the file is missing or broken)."""
    from herdr.remote import machines_store

    try:
        return sorted(machines_store.load(env).targets)
    except (OSError, ValueError):
        return []


def read_section(name: str, env: Mapping[str, str], timeout: float = TIMEOUT_S) -> MachineSection:
    """One machine's section (blocking: runs on a worker thread)."""
    from herdr.cli.transport import RequestFailed, decode, encode_request, read_line
    from herdr.remote import ssh_stream

    try:
        fd, proc, label = ssh_stream.stream(name, None, env, stderr=subprocess.DEVNULL)
    except ssh_stream.MachineError as exc:
        return failed_section(name, exc.code, exc.message)
    sock = ssh_stream.MachineSocket(fileno=fd)
    sock.proc, sock.label = proc, label
    sock.route = (name, None) if proc is None else None
    sock.route_env, sock.stderr = env, subprocess.DEVNULL
    try:
        sock.settimeout(timeout)
        sock.sendall(encode_request("session.snapshot", {}))
        line = read_line(sock, "session.snapshot", bytearray())
        if not line:
            reason = sock.eof_reason()
            return failed_section(name, sock.eof_code, reason)
        envelope = decode(line, "session.snapshot")
    except RequestFailed as exc:
        if exc.code == "timeout":
            return failed_section(name, exc.code, exc.message)
        # a reset: ssh exited before reading what we sent (as the CLI's transport reads it)
        reason = sock.eof_reason()
        return failed_section(name, sock.eof_code, reason)
    except OSError as exc:
        return failed_section(name, "machine_unreachable", str(exc))
    finally:
        sock.close()
    error = envelope.get("error")
    if isinstance(error, dict):
        return failed_section(name, str(error.get("code")), str(error.get("message")))
    result = envelope.get("result")
    return section_from_snapshot(name, result.get("snapshot") if isinstance(result, dict) else None)


def read_local(env: Mapping[str, str], timeout: float = TIMEOUT_S) -> MachineSection:
    """This computer's default session, for a TUI attached to another machine."""
    from herdr.cli.transport import RequestFailed, request
    from herdr.config import paths

    try:
        envelope = request(
            paths.session_socket_path(env, None), "session.snapshot", {}, timeout=timeout
        )
    except RequestFailed as exc:
        return failed_section(LOCAL, exc.code, exc.message)
    except (OSError, ValueError) as exc:
        return failed_section(LOCAL, "error", str(exc))
    error = envelope.get("error")
    if isinstance(error, dict):
        return failed_section(LOCAL, str(error.get("code")), str(error.get("message")))
    result = envelope.get("result")
    return section_from_snapshot(
        LOCAL, result.get("snapshot") if isinstance(result, dict) else None
    )


def read_all(names: list[str], env: Mapping[str, str]) -> Sections:
    """Every machine at once, each on a daemon thread (a hung one never holds up the
    process's exit), in ``names``' order; :data:`LOCAL` is this computer."""
    found: dict[str, MachineSection] = {}

    def one(name: str) -> None:
        found[name] = read_local(env) if name == LOCAL else read_section(name, env)

    threads = [threading.Thread(target=one, args=(n,), daemon=True) for n in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT_S + 5.0)
    return tuple(found.get(n) or failed_section(n, "timeout", "") for n in names)


class MachinesProbe:
    """Reads the other machines until :meth:`stop`; ``deliver`` runs on the loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        current: str | None,
        deliver: Callable[[Sections], None],
        env: Mapping[str, str] | None = None,
        refresh: float = REFRESH_S,
    ) -> None:
        self._loop = loop
        self._current = current
        self._deliver = deliver
        self._env = dict(os.environ if env is None else env)
        self._refresh = refresh
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="herdr-machines", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            names = others(self._current, saved_names(self._env))
            if self._current is not None:  # attached elsewhere: this computer first
                names = [LOCAL, *(n for n in names if n != LOCAL)]
            sections = read_all(names, self._env)
            if self._stop.is_set():
                return
            try:
                self._loop.call_soon_threadsafe(self._deliver, sections)
            except RuntimeError:  # the loop has closed
                return
            self._stop.wait(self._refresh)

    def stop(self) -> None:
        """Ask the thread to end (it does after the round in flight; it is a daemon)."""
        self._stop.set()
