"""Detection latency: a fake agent draws its permission dialog → ``blocked`` event.

Run: ``.venv/bin/python bench/detect_latency.py [--trials 40] [--kinds claude,codex]``.

Starts a private ``herdr server`` (temp HOME/XDG under a short /tmp path, Unix socket
only) whose ``PATH`` holds ``claude``/``codex`` symlinks to the test suite's fake agent
(``tests/fixtures/fake_agent.py``), so the server identifies them through /proc exactly
as it would the real tools. Each kind runs in its own pane, launched from the pane's
shell with ``FAKE_AGENT_TRACE=<file>``: the fake agent appends ``<state> <monotonic>``
to that file right after it has written (flushed) the frame of a new state.

One trial, per pane in turn:

1. an ``events.subscribe`` stream for ``pane.agent_status_changed`` of that pane is
   already open (one per pane, for the whole run);
2. ``pane.send_input`` types a prompt containing ``ask``; the fake agent starts working
   (a spinner frame every 100 ms, OSC title), and after a random delay (uniform on
   ``[0.02, --jitter]`` s, seeded) the bench types Ctrl-B, which makes the fake agent
   end its turn at once in the permission dialog — so the dialog lands at any phase
   of the spinner frames and of the server's detection ticks, not at a fixed one;
3. the stream is read until the event with ``agent_status == "blocked"``; its receive
   time (``time.monotonic()`` — CLOCK_MONOTONIC, the same clock as the agent's stamp)
   minus the dialog's flush stamp is the latency;
4. the dialog is answered (``1``) and the stream is read until idle/done.

The peer is a model, not a measurement: the original polls every pane on a fixed
300 ms tick, so a dialog waits for the next tick — uniform on [0, 300) ms, plus the
evaluation itself. Its quantiles are printed next to the measured ones.

Everything is bounded (trial count, per-wait timeouts); the server and the panes'
processes are stopped by pid at the end, and the temp tree is removed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
FAKE_AGENT = REPO / "tests" / "fixtures" / "fake_agent.py"
KINDS = ("claude", "codex")
WAIT_S = 20.0
TARGET_P50_MS = 50.0
TARGET_P99_MS = 150.0
PEER_TICK_MS = 300.0


# --- server and socket ----------------------------------------------------------------


def make_env(root: Path) -> dict[str, str]:
    """Private HOME/XDG, no inherited HERDR_* variables, fake agents first on PATH."""
    bin_dir = root / "bin"
    bin_dir.mkdir(parents=True)
    for kind in ("claude", "codex", "pi"):
        (bin_dir / kind).symlink_to(FAKE_AGENT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERDR_", "TMUX"))}
    env.update(
        HOME=str(root / "h"),
        XDG_CONFIG_HOME=str(root / "c"),
        XDG_STATE_HOME=str(root / "s"),
        XDG_DATA_HOME=str(root / "d"),
        SHELL="/bin/sh",
        PYTHONDONTWRITEBYTECODE="1",
        PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
    )
    (root / "h").mkdir()
    return env


def request(path: Path, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One request on a fresh connection (the CLI's pattern); raises on an error reply."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(WAIT_S)
    try:
        sock.connect(str(path))
        sock.sendall(json.dumps({"id": "b", "method": method, "params": params}).encode() + b"\n")
        buf = b""
        while b"\n" not in buf:
            chunk = sock.recv(65536)
            if not chunk:
                break
            buf += chunk
    finally:
        sock.close()
    doc: dict[str, Any] = json.loads(buf.split(b"\n", 1)[0])
    if "error" in doc:
        raise RuntimeError(f"{method}: {doc['error']}")
    result: dict[str, Any] = doc["result"]
    return result


class Server:
    """A ``herdr server`` subprocess in its own session, stopped by pid."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.socket = root / "c" / "herdr" / "herdr.sock"
        self.log = root / "server.out"
        with self.log.open("wb") as sink:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "herdr", "server"],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + WAIT_S
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited:\n{self.log.read_text(errors='replace')}")
            with contextlib.suppress(OSError, ValueError, RuntimeError):
                if request(self.socket, "ping", {}).get("type") == "pong":
                    return
            if time.monotonic() > deadline:
                raise RuntimeError("server did not answer ping")
            time.sleep(0.05)

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return request(self.socket, method, params)

    def stop(self) -> None:
        """SIGTERM by pid (the server closes its panes), SIGKILL if it lingers."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)


class Stream:
    """An ``events.subscribe`` connection; `next` stamps each event on receipt."""

    def __init__(self, path: Path, subscriptions: list[dict[str, Any]]) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(WAIT_S)
        self.sock.connect(str(path))
        line = {"id": "s", "method": "events.subscribe", "params": {"subscriptions": subscriptions}}
        self.sock.sendall(json.dumps(line).encode() + b"\n")
        self.buf = b""
        started, _ = self.next()
        if started.get("result", {}).get("type") != "subscription_started":
            raise RuntimeError(f"subscribe failed: {started}")

    def next(self) -> tuple[dict[str, Any], float]:
        """The next line and the monotonic time its last byte was received."""
        at = time.monotonic()
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            at = time.monotonic()
            if not chunk:
                raise RuntimeError("event stream ended")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        doc: dict[str, Any] = json.loads(line)
        return doc, at

    def until_status(self, *wanted: str) -> tuple[str, float]:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            doc, at = self.next()
            status = doc.get("data", {}).get("agent_status")
            if doc.get("event") == "pane.agent_status_changed" and status in wanted:
                return str(status), at
        raise RuntimeError(f"no {wanted} event within {WAIT_S} s")

    def close(self) -> None:
        self.sock.close()


# --- trials -------------------------------------------------------------------------


class Pane:
    """One pane running one fake agent, with its trace file and event stream."""

    def __init__(self, server: Server, root: Path, kind: str) -> None:
        self.server = server
        self.kind = kind
        self.trace = root / f"{kind}.trace"
        ws = server.call("workspace.create", {"focus": False})["workspace"]["workspace_id"]
        self.pane_id = f"{ws}:p1"
        self.stream = Stream(
            server.socket, [{"type": "pane.agent_status_changed", "pane_id": self.pane_id}]
        )
        self.input(f"FAKE_AGENT_TRACE={self.trace} {kind}", "Enter")
        self.stream.until_status("idle", "done")
        self.latencies: list[float] = []

    def input(self, text: str, *keys: str) -> None:
        self.server.call(
            "pane.send_input", {"pane_id": self.pane_id, "text": text, "keys": list(keys)}
        )

    def stamps(self, state: str) -> list[float]:
        if not self.trace.exists():
            return []
        out = []
        for line in self.trace.read_text().splitlines():
            what, _, at = line.partition(" ")
            if what == state:
                out.append(float(at))
        return out

    def trial(self, n: int, delay: float) -> float:
        """One dialog → blocked event; returns the latency in ms."""
        before = len(self.stamps("blocked"))
        self.input(f"please ask {n}", "Enter")
        time.sleep(delay)
        self.server.call("pane.send_input", {"pane_id": self.pane_id, "keys": ["ctrl+b"]})
        _status, received = self.stream.until_status("blocked")
        deadline = time.monotonic() + 2
        drawn = self.stamps("blocked")
        while len(drawn) <= before and time.monotonic() < deadline:
            time.sleep(0.005)
            drawn = self.stamps("blocked")
        if len(drawn) <= before:
            raise RuntimeError(f"{self.kind}: blocked event without a dialog stamp")
        latency = (received - drawn[-1]) * 1000
        self.latencies.append(latency)
        self.input("1")  # approve: a short turn, then idle
        self.stream.until_status("idle", "done")
        return latency


def quantile(values: list[float], q: float) -> float:
    """Nearest-rank quantile."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q * len(ordered) + 0.5)))
    return ordered[rank - 1]


def row(label: str, values: list[float]) -> str:
    qs = [quantile(values, q) for q in (0.5, 0.9, 0.99)]
    cells = "".join(f"{v:>9.1f}" for v in [*qs, max(values)])
    return f"{label:<38}{len(values):>6}{cells}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--trials", type=int, default=40, help="trials per agent kind")
    parser.add_argument("--kinds", default="claude,codex", help="comma list of claude,codex")
    parser.add_argument(
        "--jitter", type=float, default=0.6, help="max seconds of work before the dialog"
    )
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    if not kinds or any(k not in KINDS for k in kinds) or not 1 <= args.trials <= 1000:
        parser.error("--kinds must name claude/codex, --trials in 1..1000")
    if not 0.02 <= args.jitter <= 5:
        parser.error("--jitter in 0.02..5")
    rng = random.Random(args.seed)

    root = Path(tempfile.mkdtemp(prefix="hdl", dir="/tmp"))
    env = make_env(root)
    env["FAKE_AGENT_WORK_S"] = "30"  # the turn ends on Ctrl-B, never on its own
    server: Server | None = None
    panes: list[Pane] = []
    try:
        server = Server(root, env)
        panes = [Pane(server, root, kind) for kind in kinds]
        for n in range(args.trials):
            for pane in panes:
                pane.trial(n, rng.uniform(0.02, args.jitter))
                time.sleep(0.05)
    finally:
        for pane in panes:
            pane.stream.close()
        if server is not None:
            server.stop()
        shutil.rmtree(root, ignore_errors=True)

    header = f"{'latency: dialog flush → blocked event':<38}{'n':>6}"
    header += "".join(f"{h:>9}" for h in ("p50 ms", "p90 ms", "p99 ms", "max ms"))
    print(header)
    print("-" * len(header))
    everything: list[float] = []
    for pane in panes:
        print(row(f"herdr  {pane.kind}", pane.latencies))
        everything.extend(pane.latencies)
    print(row("herdr  all", everything))
    model = [PEER_TICK_MS * (i + 0.5) / 1000 for i in range(1000)]
    print(row("original (model: 300 ms fixed tick)", model))
    p50, p99 = quantile(everything, 0.5), quantile(everything, 0.99)
    verdict = "PASS" if p50 <= TARGET_P50_MS and p99 <= TARGET_P99_MS else "FAIL"
    print(
        f"\ntarget p50 ≤ {TARGET_P50_MS:.0f} ms, p99 ≤ {TARGET_P99_MS:.0f} ms: {verdict} "
        f"(p50 {p50:.1f} ms, p99 {p99:.1f} ms; dialog after 0.02–{args.jitter} s of work)"
    )
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
