"""Real ``herdr server`` processes in a private HOME/XDG tree, and raw socket requests.

Every server is started as a subprocess with its own short /tmp directory (Unix socket
paths must stay under 107 bytes), waited for by pinging its socket, and stopped and
reaped by pid afterwards, whatever the test did to it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from herdr_testing.waits import wait_until

HERDR = (sys.executable, "-m", "herdr")
START_TIMEOUT = 20.0


def make_env(root: Path) -> dict[str, str]:
    """The environment of §10: private HOME and XDG dirs, no inherited HERDR_* vars."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERDR_")}
    env.update(
        HOME=str(root / "h"),
        XDG_CONFIG_HOME=str(root / "c"),
        XDG_STATE_HOME=str(root / "s"),
        XDG_DATA_HOME=str(root / "d"),
        SHELL="/bin/sh",
        PYTHONDONTWRITEBYTECODE="1",
    )
    (root / "h").mkdir(parents=True, exist_ok=True)
    return env


def tools_path(root: Path, *tools: str) -> str:
    """A ``PATH`` of one private directory holding exactly ``tools`` (symlinks to the
    ones found on the current ``PATH``): nothing the machine happens to have installed
    (an agent's ``claude`` in /usr/bin, say) is found through it."""
    bin_dir = root / "tools-bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for tool in tools:
        found = shutil.which(tool)
        if found is None:
            raise LookupError(f"{tool} is not on PATH")
        link = bin_dir / tool
        if not link.exists():
            link.symlink_to(found)
    return str(bin_dir)


def raw_exchange(
    path: Path, data: bytes, *, timeout: float = 10.0, half_close: bool = False
) -> bytes:
    """Send ``data`` on a fresh connection; return everything until the server closes."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
        if data:
            sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        sock.close()


def request(path: Path, method: str, params: Any, rid: str = "t1") -> dict[str, Any]:
    line = json.dumps({"id": rid, "method": method, "params": params}).encode() + b"\n"
    reply = raw_exchange(path, line)
    doc: dict[str, Any] = json.loads(reply.split(b"\n", 1)[0])
    return doc


def pings(path: Path) -> bool:
    try:
        return bool(request(path, "ping", {}).get("result", {}).get("type") == "pong")
    except (OSError, ValueError):
        return False


@dataclass
class Server:
    """A running ``herdr server`` subprocess."""

    proc: subprocess.Popen[bytes]
    socket_path: Path
    env: dict[str, str]
    output: Path
    session: str | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def request(self, method: str, params: Any, rid: str = "t1") -> dict[str, Any]:
        return request(self.socket_path, method, params, rid)

    def raw(self, data: bytes, **kwargs: Any) -> bytes:
        return raw_exchange(self.socket_path, data, **kwargs)

    def alive(self) -> bool:
        return self.proc.poll() is None and pings(self.socket_path)

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM by pid, then SIGKILL if needed; always reaps. Returns the exit code."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        return self.proc.returncode

    def log_text(self) -> str:
        return self.output.read_text(errors="replace") if self.output.exists() else ""


@dataclass
class HerdrEnv:
    """A private HOME/XDG tree; start servers and run the CLI inside it."""

    root: Path
    env: dict[str, str]
    servers: list[Server] = field(default_factory=list)

    def cli(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        timeout: float = 60.0,
        input: str | None = None,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*HERDR, *args],
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            input=input,
            cwd=cwd,
            check=False,
        )

    def socket_path(self, session: str | None = None) -> Path:
        base = Path(self.env["XDG_CONFIG_HOME"]) / "herdr"
        return base / "sessions" / session / "herdr.sock" if session else base / "herdr.sock"

    def spawn(
        self, *args: str, env: dict[str, str] | None = None, socket_path: Path | None = None
    ) -> Server:
        """Start ``herdr server [args]`` without waiting for it."""
        full_env = {**self.env, **(env or {})}
        session = None
        if "--session" in args:
            session = args[args.index("--session") + 1]
        elif full_env.get("HERDR_SESSION"):
            session = full_env["HERDR_SESSION"]
        path = socket_path or self.socket_path(session)
        output = self.root / f"server-{len(self.servers)}.out"
        with output.open("wb") as sink:
            proc = subprocess.Popen(
                [*HERDR, "server", *args],
                env=full_env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        server = Server(proc, path, full_env, output, session)
        self.servers.append(server)
        return server

    def start_server(
        self, *args: str, env: dict[str, str] | None = None, socket_path: Path | None = None
    ) -> Server:
        """Start a server and wait until it answers ``ping``."""
        server = self.spawn(*args, env=env, socket_path=socket_path)

        def ready() -> bool:
            if server.proc.poll() is not None:
                raise AssertionError(f"server exited early:\n{server.log_text()}")
            return pings(server.socket_path)

        wait_until(ready, START_TIMEOUT, message=f"server not ready:\n{server.log_text()}")
        return server

    def close(self) -> None:
        for server in self.servers:
            server.stop()


@dataclass
class ServerHandle:
    """What most tests need: one running server plus its environment and CLI."""

    herdr: HerdrEnv
    server: Server

    @property
    def env(self) -> dict[str, str]:
        return self.herdr.env

    @property
    def socket_path(self) -> Path:
        return self.server.socket_path

    @property
    def root(self) -> Path:
        return self.herdr.root

    def cli(self, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        return self.herdr.cli(*args, **kwargs)

    def request(self, method: str, params: Any, rid: str = "t1") -> dict[str, Any]:
        return self.server.request(method, params, rid)

    def raw(self, data: bytes, **kwargs: Any) -> bytes:
        return self.server.raw(data, **kwargs)


@contextlib.contextmanager
def herdr_tree() -> Iterator[HerdrEnv]:
    """A fresh private tree under /tmp; its servers are stopped and it is removed on exit."""
    root = Path(tempfile.mkdtemp(prefix="h", dir="/tmp"))
    herdr = HerdrEnv(root, make_env(root))
    try:
        yield herdr
    finally:
        herdr.close()
        shutil.rmtree(root, ignore_errors=True)
