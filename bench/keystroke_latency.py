"""Keystroke latency: a key written to the outer terminal → its echo on that terminal.

The "outer terminal" is a PTY this script owns (like a terminal emulator would). In it
runs, in turn and in the same run:

* ``direct``: ``/bin/sh`` itself (the baseline: PTY + shell echo),
* ``tmux``: a tmux client (``tmux -L <private> -f /dev/null new-session``) running sh,
* ``herdr``: the ``herdr`` TUI client (it starts its own server in a private HOME),
  whose pane runs sh,
* ``floor``: ``relay_floor.py``, a Python client and server of herdr's shape that only
  relay bytes (no emulator, no drawing): what the process shape alone costs in Python.

For each key: write one byte to the outer PTY's master, then read the master until a
chunk contains that character (the multiplexer's redraw of the echo), and take the
time. Nothing else writes while idle, so the first chunk with the character is the
echo. Keys cycle over letters no escape sequence of these programs ends with; the line
is cleared with ctrl+u every 40 keys (outside the timing).

With ``--neighbour`` a second, visible pane beside the typing one prints ~400 lines/s
(digits only, so its output never contains a key's letter) while the keys are typed, in
herdr and in tmux (status line off, so no clock redraw carries letters); the line is
cleared every ``len(LETTERS)`` keys so a repaint of the typing row never holds the
letter being timed. p50 and p99 are reported.

Beside the latency it prints the CPU time client and server spent per timed key
(``/proc/<pid>/stat``, clock ticks, so use a few hundred keys): on this loaded 2-core
machine the echo's latency is mostly that CPU, run cold, and it is far less noisy.

With ``--stream N`` it measures instead the CPU of client and server while N visible
panes (a tiled grid) stream ``seq`` output, and the frames per second that reach the
outer terminal (synchronized-output frames for herdr; tmux does not bracket its
updates, so for tmux only CPU is reported).

With ``--startup N`` it measures instead how long a first start takes until the shell
prompt is on the outer terminal (server not running; herdr then starts it), and a
reattach to the running server, N times each, beside ``tmux new-session`` (cold) and
``tmux attach``. The cffi cache (``XDG_CACHE_HOME``) is filled by one untimed-in-the-median
first start and kept across the runs, as on a user's machine after the first start.

Usage: ``python bench/keystroke_latency.py [--keys 200] [--cols 160 --rows 45] [--neighbour]``,
``python bench/keystroke_latency.py --stream 16 [--seconds 10]`` or
``python bench/keystroke_latency.py --startup 5``.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import pty
import select
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

LETTERS = b"abdefgijknopsvwxyz"
HERDR_BIN = str(Path(sys.executable).with_name("herdr"))


class Outer:
    """A PTY pair with a program on the slave side."""

    def __init__(self, argv: list[str], env: dict[str, str], cols: int, rows: int) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
            close_fds=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),  # noqa: PLW1509 - no threads
        )
        os.close(slave)

    def read(self, timeout: float) -> bytes:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return b""
        try:
            return os.read(self.master, 65536)
        except OSError:
            return b""

    def drain(self, quiet: float = 0.15, limit: float = 10.0) -> bytes:
        """Read until nothing arrives for ``quiet`` seconds."""
        out = bytearray()
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            chunk = self.read(quiet)
            if not chunk:
                break
            out += chunk
        return bytes(out)

    def wait_for(self, needle: bytes, limit: float = 20.0) -> None:
        seen = bytearray()
        deadline = time.monotonic() + limit
        while needle not in seen:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{needle!r} never appeared")
            seen += self.read(0.1)

    def discard(self, seconds: float) -> None:
        """Read and drop whatever arrives for ``seconds`` (a neighbour never goes quiet)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.read(left)

    def latency(self, keys: int, *, busy: bool = False) -> list[float]:
        samples: list[float] = []
        clear_every = len(LETTERS) if busy else 40
        for i in range(keys):
            if i and i % clear_every == 0:
                os.write(self.master, b"\x15")  # ctrl+u: clear the line
                if busy:
                    self.discard(0.1)
                else:
                    self.drain(0.1)
            ch = LETTERS[i % len(LETTERS) : i % len(LETTERS) + 1]
            start = time.perf_counter()
            os.write(self.master, ch)
            while True:
                chunk = self.read(5.0)
                if not chunk:
                    raise TimeoutError("no echo within 5 s")
                if ch in chunk:
                    samples.append((time.perf_counter() - start) * 1000)
                    break
            if busy:
                self.discard(0.02)
            else:
                self.drain(0.02)
        return samples

    def close(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        os.close(self.master)


# ~1000 changing lines per second per pane (the screen really changes every frame)
STREAM_CMD = (
    'i=0; while :; do i=$((i+1)); echo "line $i"; [ $((i % 20)) -eq 0 ] && sleep 0.02; done'
)


# ~400 lines per second, digits only (no letter a key could be mistaken for)
NEIGHBOUR_CMD = 'i=0; while :; do i=$((i+1)); echo "$i"; [ $((i % 8)) -eq 0 ] && sleep 0.02; done'


def start_neighbour(name: str, root: Path, tmux_name: str) -> None:
    """A visible pane right of the typing one runs NEIGHBOUR_CMD; focus stays left."""
    if name == "tmux":
        tmux = ["tmux", "-L", tmux_name]
        subprocess.run([*tmux, "set", "-g", "status", "off"], check=False)
        subprocess.run([*tmux, "split-window", "-h", "-d", NEIGHBOUR_CMD], check=False)
    elif name == "herdr":
        path = str(root / "c" / "herdr" / "herdr.sock")
        reply = api(path, "pane.split", {"target_pane_id": "w1:p1", "direction": "right"})
        pane = str(reply["result"]["pane"]["pane_id"])  # type: ignore[index]
        api(path, "pane.send_text", {"pane_id": pane, "text": NEIGHBOUR_CMD + "\r"})
        api(path, "pane.focus", {"pane_id": "w1:p1"})


def cpu_seconds(pid: int) -> float:
    """utime + stime of ``pid`` (and its reaped children), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(f) for f in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def api(path: str, method: str, params: dict[str, object]) -> dict[str, object]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(path)
    sock.sendall(json.dumps({"id": "b", "method": method, "params": params}).encode() + b"\n")
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    sock.close()
    result: dict[str, object] = json.loads(data)
    return result


def grid_herdr(path: str, count: int) -> list[str]:
    """Split w1:t1 into ``count`` panes (columns first, then rows) and return their ids."""
    columns = max(1, int(count**0.5))
    panes = ["w1:p1"]
    for _ in range(columns - 1):
        reply = api(path, "pane.split", {"target_pane_id": panes[-1], "direction": "right"})
        panes.append(str(reply["result"]["pane"]["pane_id"]))  # type: ignore[index]
    rows_per = [count // columns + (1 if i < count % columns else 0) for i in range(columns)]
    out: list[str] = []
    for top, n in zip(list(panes), rows_per, strict=True):
        column = [top]
        for _ in range(n - 1):
            reply = api(path, "pane.split", {"target_pane_id": column[-1], "direction": "down"})
            column.append(str(reply["result"]["pane"]["pane_id"]))  # type: ignore[index]
        out += column
    return out


def pid_of_server(root: Path) -> int:
    first = (root / "s" / "herdr" / "server.log").read_text().splitlines()[0]
    return int(json.loads(first)["pid"])


def tmux_server_pid(name: str) -> int:
    out = subprocess.run(
        ["tmux", "-L", name, "display", "-p", "#{pid}"], capture_output=True, text=True, check=True
    )
    return int(out.stdout.strip())


def _time_to_prompt(argv: list[str], env: dict[str, str], args: argparse.Namespace) -> float:
    start = time.perf_counter()
    outer = Outer(argv, env, args.cols, args.rows)
    try:
        outer.wait_for(b"$")
        return (time.perf_counter() - start) * 1000
    finally:
        with contextlib.suppress(OSError):
            os.write(outer.master, b"\x02q" if argv[0] == HERDR_BIN else b"\x02d")  # detach
        outer.drain(0.3, 3)
        outer.close()


def startup_run(args: argparse.Namespace, env: dict[str, str], root: Path, name: str) -> None:
    """Cold start and reattach to the prompt, herdr beside tmux (median of N)."""
    times: dict[str, list[float]] = {}
    tmux = ["tmux", "-L", name, "-f", "/dev/null"]
    # The very first start on a machine fills the FFI cache (XDG_CACHE_HOME, kept for every
    # run below, as a user's is); it is reported apart, not mixed into the medians.
    first_env = {**env, "XDG_CONFIG_HOME": str(root / "c-first")}
    first = _time_to_prompt([HERDR_BIN], first_env, args)
    subprocess.run(
        [HERDR_BIN, "server", "stop"], env=first_env, capture_output=True, timeout=20, check=False
    )
    for run in range(args.startup):
        run_env = {**env, "XDG_CONFIG_HOME": str(root / f"c{run}")}  # a fresh session
        times.setdefault("herdr start", []).append(_time_to_prompt([HERDR_BIN], run_env, args))
        times.setdefault("herdr attach", []).append(_time_to_prompt([HERDR_BIN], run_env, args))
        subprocess.run(
            [HERDR_BIN, "server", "stop"], env=run_env, capture_output=True, timeout=20, check=False
        )
        if shutil.which("tmux"):
            cold = [*tmux, "new-session", "/bin/sh"]
            times.setdefault("tmux new-session", []).append(_time_to_prompt(cold, env, args))
            attach = [*tmux, "attach"]
            times.setdefault("tmux attach", []).append(_time_to_prompt(attach, env, args))
            subprocess.run([*tmux, "kill-server"], capture_output=True, check=False)
    print(f"time to the shell prompt, {args.startup} runs each (median, min, max)")
    for label, samples in times.items():
        print(
            f"{label:18s} {statistics.median(samples):7.0f} ms"
            f"  {min(samples):7.0f} ms  {max(samples):7.0f} ms"
        )
    print(f"{'herdr first ever':18s} {first:7.0f} ms  (fills the FFI cache; once per machine)")


def stream_run(args: argparse.Namespace, env: dict[str, str], root: Path, name: str) -> None:
    results: list[str] = []
    # herdr
    outer = Outer([HERDR_BIN], env, args.cols, args.rows)
    try:
        outer.wait_for(b"$")
        outer.drain(0.5)
        path = str(root / "c" / "herdr" / "herdr.sock")
        panes = grid_herdr(path, args.stream)
        outer.drain(0.5)
        for pane in panes:
            api(path, "pane.send_text", {"pane_id": pane, "text": STREAM_CMD + "\r"})
        server = pid_of_server(root)
        outer.drain(0.05, 1.0)
        c0, s0 = cpu_seconds(outer.proc.pid), cpu_seconds(server)
        frames = 0
        received = 0
        start = time.monotonic()
        while time.monotonic() - start < args.seconds:
            chunk = outer.read(0.1)
            frames += chunk.count(b"\x1b[?2026h")
            received += len(chunk)
        elapsed = time.monotonic() - start
        c1, s1 = cpu_seconds(outer.proc.pid), cpu_seconds(server)
        results.append(
            f"herdr  {args.stream} panes: client {100 * (c1 - c0) / elapsed:5.1f}% CPU, "
            f"server {100 * (s1 - s0) / elapsed:5.1f}% CPU, {frames / elapsed:5.1f} frames/s, "
            f"{received / elapsed / 1e3:7.1f} kB/s to the terminal"
        )
        for pane in panes:
            api(path, "pane.send_input", {"pane_id": pane, "keys": ["ctrl+c"]})
        os.write(outer.master, b"\x02q")
        outer.drain(0.3, 3)
    finally:
        outer.close()
    # tmux
    if shutil.which("tmux") is not None:
        argv = ["tmux", "-L", name, "-f", "/dev/null", "new-session", "/bin/sh"]
        outer = Outer(argv, env, args.cols, args.rows)
        try:
            outer.wait_for(b"$")
            outer.drain(0.5)
            for _ in range(args.stream - 1):
                subprocess.run(["tmux", "-L", name, "split-window"], check=False)
                subprocess.run(["tmux", "-L", name, "select-layout", "tiled"], check=False)
            for index in range(args.stream):
                subprocess.run(
                    ["tmux", "-L", name, "send-keys", "-t", f".{index}", STREAM_CMD, "Enter"],
                    check=False,
                )
            server = tmux_server_pid(name)
            outer.drain(0.05, 1.0)
            c0, s0 = cpu_seconds(outer.proc.pid), cpu_seconds(server)
            received = 0
            start = time.monotonic()
            while time.monotonic() - start < args.seconds:
                received += len(outer.read(0.1))
            elapsed = time.monotonic() - start
            c1, s1 = cpu_seconds(outer.proc.pid), cpu_seconds(server)
            results.append(
                f"tmux   {args.stream} panes: client {100 * (c1 - c0) / elapsed:5.1f}% CPU, "
                f"server {100 * (s1 - s0) / elapsed:5.1f}% CPU, "
                f"{received / elapsed / 1e3:7.1f} kB/s to the terminal"
            )
        finally:
            outer.close()
    print(f"{args.stream} visible panes streaming `{STREAM_CMD}`, {args.seconds:.0f} s each")
    for line in results:
        print(line)


def multiplexer_pids(name: str, client: int, root: Path, tmux_name: str) -> dict[str, int]:
    """The client and server processes of run ``name`` (``direct`` has only a shell)."""
    if name == "direct":
        return {}
    if name == "tmux":
        return {"client": client, "server": tmux_server_pid(tmux_name)}
    if name == "herdr":
        return {"client": client, "server": pid_of_server(root)}
    children = Path(f"/proc/{client}/task/{client}/children").read_text().split()
    return {"client": client, "server": int(children[0])} if children else {"client": client}


def cpu_per_key(pids: dict[str, int], before: dict[str, float], keys: int) -> str:
    """CPU each process spent per timed key, in µs (less noisy than the latency)."""
    parts = [
        f"{role} {(cpu_seconds(pid) - before[role]) / keys * 1e6:5.0f} µs"
        for role, pid in pids.items()
    ]
    return ", ".join(parts)


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, int(len(ordered) * q) - 1))]


def summary(name: str, samples: list[float]) -> str:
    return (
        f"{name:<7} n={len(samples):4d}  p50 {statistics.median(samples):6.2f} ms  "
        f"mean {statistics.fmean(samples):6.2f} ms  p95 {pct(samples, 0.95):6.2f} ms  "
        f"p99 {pct(samples, 0.99):6.2f} ms  max {max(samples):6.2f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--cols", type=int, default=160)
    parser.add_argument("--rows", type=int, default=45)
    parser.add_argument("--stream", type=int, default=0, metavar="N")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--startup", type=int, default=0, metavar="N")
    parser.add_argument("--neighbour", action="store_true", help="a visible pane streams")
    parser.add_argument("--only", default="", help="comma-separated runs (direct,tmux,...)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hk", dir="/tmp"))
    (root / "h").mkdir()
    env = {
        "HOME": str(root / "h"),
        "XDG_CONFIG_HOME": str(root / "c"),
        "XDG_STATE_HOME": str(root / "s"),
        "XDG_DATA_HOME": str(root / "d"),
        "SHELL": "/bin/sh",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PS1": "$ ",
        "ENV": "",
    }
    if "PYTHONPATH" in os.environ:  # an A/B run of another checkout's src
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    tmux_name = f"hk{os.getpid()}"
    floor_sock = str(root / "floor.sock")
    runs = {
        "direct": ["/bin/sh"],
        "tmux": ["tmux", "-L", tmux_name, "-f", "/dev/null", "new-session", "/bin/sh"],
        "herdr": [HERDR_BIN],
        "floor": [sys.executable, str(Path(__file__).with_name("relay_floor.py")), floor_sock],
    }
    if shutil.which("tmux") is None:
        del runs["tmux"]
    if args.neighbour:  # the neighbour needs a multiplexer
        runs = {k: v for k, v in runs.items() if k in {"tmux", "herdr"}}
    if args.only:
        runs = {k: v for k, v in runs.items() if k in args.only.split(",")}
    results: dict[str, list[float]] = {}
    cpu: dict[str, str] = {}
    if args.stream or args.startup:
        try:
            if args.startup:
                env["XDG_CACHE_HOME"] = str(root / "cache")
                startup_run(args, env, root, tmux_name)
            else:
                stream_run(args, env, root, tmux_name)
        finally:
            subprocess.run(
                ["tmux", "-L", tmux_name, "kill-server"], capture_output=True, check=False
            )
            subprocess.run(
                [HERDR_BIN, "server", "stop"], env=env, capture_output=True, timeout=20, check=False
            )
            shutil.rmtree(root, ignore_errors=True)
        return 0
    try:
        for name, argv in runs.items():
            outer = Outer(argv, env, args.cols, args.rows)
            try:
                if name == "floor":  # its shell prompted before the client connected
                    time.sleep(0.5)
                    os.write(outer.master, b"\r")
                outer.wait_for(b"$")
                outer.drain(0.5)
                if args.neighbour:
                    start_neighbour(name, root, tmux_name)
                    outer.discard(1.0)
                outer.latency(10, busy=args.neighbour)  # warm-up
                pids = multiplexer_pids(name, outer.proc.pid, root, tmux_name)
                before = {role: cpu_seconds(pid) for role, pid in pids.items()}
                results[name] = outer.latency(args.keys, busy=args.neighbour)
                if pids:
                    cpu[name] = cpu_per_key(pids, before, args.keys)
            finally:
                if name in {"herdr", "floor"}:
                    with contextlib.suppress(OSError):
                        os.write(outer.master, b"\x02q")  # detach / stop the relay
                    outer.drain(0.3, 3)
                outer.close()
    finally:
        subprocess.run(["tmux", "-L", tmux_name, "kill-server"], capture_output=True, check=False)
        subprocess.run(
            [HERDR_BIN, "server", "stop"], env=env, capture_output=True, timeout=20, check=False
        )
        shutil.rmtree(root, ignore_errors=True)
    load = ", a visible neighbour printing ~400 lines/s" if args.neighbour else ""
    print(f"keystroke → echo latency, {args.cols}x{args.rows}, {args.keys} keys each{load}")
    for name, samples in results.items():
        print(summary(name, samples))
    for name, figures in cpu.items():
        print(f"{name:<7} CPU per key: {figures}")
    if "tmux" in results and "herdr" in results:
        ratio = statistics.median(results["herdr"]) / statistics.median(results["tmux"])
        p99 = pct(results["herdr"], 0.99) / pct(results["tmux"], 0.99)
        print(f"herdr / tmux ratio: p50 {ratio:.2f}x, p99 {p99:.2f}x")
    if "tmux" in results and "floor" in results:
        floor = statistics.median(results["floor"])
        print(f"floor / tmux median ratio: {floor / statistics.median(results['tmux']):.2f}x")
        if "herdr" in results:
            print(f"herdr / floor median ratio: {statistics.median(results['herdr']) / floor:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
