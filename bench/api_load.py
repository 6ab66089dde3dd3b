"""Socket API under load: one-shot request rate with a busy server, event fan-out, tmux.

Run: ``.venv/bin/python bench/api_load.py [--duration S] [--subscribers K] ...``.

Starts a private ``herdr server`` (temp HOME/XDG under /tmp, Unix socket only), creates
``--panes`` panes that print a timestamped line (``T<epoch seconds>``) every
``--interval`` seconds (0 = as fast as they can), attaches ``--subscribers`` event
subscribers (each one socket with ``pane.output_matched`` for every streaming pane plus
lifecycle kinds, or lifecycle kinds only with ``--lifecycle-only``; they run in their own
process), and a driver renames a workspace every
``--rename-every`` seconds with its send time in the label. Then, for N concurrent
clients (separate processes, one connection per request like the CLI), it measures
``ping`` and ``pane.list``: requests/s and p50/p99 latency.

Fan-out is reported per subscriber: events/s, how many of the expected events arrived,
and lag p50/p99 = receive time minus the timestamp carried in the event (the pane's
print time for output events, the driver's send time for renames), plus seq checks.

The peer: a private tmux server (``-L``) with the same streaming panes, and the same
one-shot pattern as tmux offers it (``tmux -L <name> list-panes``, a process per
request), next to ``herdr pane list`` as a process per request.

With ``--flood`` it measures instead ``ping`` p50/p99 (one socket client, a connection
per request) on an idle server and then while ``--panes`` panes run ``yes`` (the
output flood that must not starve the API), beside ``tmux display -p`` (a process per
request, tmux's only one-shot path) with the same panes idle and running ``yes``, and
the server's CPU share during the flood.

Everything is bounded in time and count; the server, panes, tmux server and worker
processes are stopped by pid (tmux by ``kill-server``) at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import multiprocessing as mp
import os
import re
import selectors
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import orjson

MAX_REQUESTS_PER_WORKER = 200_000
STREAM_SCRIPT = """\
import sys, time
interval, seconds = float(sys.argv[1]), float(sys.argv[2])
end = time.time() + seconds
out = sys.stdout
while time.time() < end:
    out.write("T%.6f\\n" % time.time())
    out.flush()
    if interval:
        time.sleep(interval)
"""
OUTPUT_LINE = r"^T\d+\.\d{6}$"
LIFECYCLE = ("pane.created", "pane.closed", "tab.created", "workspace.renamed")


def herdr_bin() -> list[str]:
    script = Path(sys.executable).with_name("herdr")
    return [str(script)] if script.exists() else [sys.executable, "-m", "herdr"]


# --- one-shot requests ------------------------------------------------------------------


def one_shot(path: str, line: bytes) -> bytes:
    """Connect, send one request, read the answer line, close (the CLI's pattern)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(10)
        sock.connect(path)
        sock.sendall(line)
        buf = b""
        while b"\n" not in buf:
            chunk = sock.recv(65536)
            if not chunk:
                break
            buf += chunk
        return buf
    finally:
        sock.close()


def request(path: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    line = json.dumps({"id": "bench", "method": method, "params": params}).encode() + b"\n"
    doc: dict[str, Any] = json.loads(one_shot(path, line))
    if "error" in doc:
        raise RuntimeError(f"{method}: {doc['error']}")
    result: dict[str, Any] = doc["result"]
    return result


def socket_worker(path: str, method: str, start: float, seconds: float, out: Connection) -> None:
    line = json.dumps({"id": "b", "method": method, "params": {}}).encode() + b"\n"
    while time.time() < start:
        time.sleep(0.001)
    end = time.perf_counter() + seconds
    samples: list[float] = []
    errors = 0
    while len(samples) < MAX_REQUESTS_PER_WORKER:
        t0 = time.perf_counter()
        if t0 >= end:
            break
        try:
            reply = one_shot(path, line)
            if not reply.startswith(b'{"id":"b","result"'):
                errors += 1
        except OSError:
            errors += 1
        samples.append(time.perf_counter() - t0)
    out.send((samples, errors))
    out.close()


def process_worker(
    argv: list[str], env: dict[str, str], start: float, seconds: float, out: Connection
) -> None:
    while time.time() < start:
        time.sleep(0.001)
    end = time.perf_counter() + seconds
    samples: list[float] = []
    errors = 0
    while len(samples) < MAX_REQUESTS_PER_WORKER:
        t0 = time.perf_counter()
        if t0 >= end:
            break
        done = subprocess.run(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
        )
        errors += done.returncode != 0
        samples.append(time.perf_counter() - t0)
    out.send((samples, errors))
    out.close()


@dataclass
class Cell:
    name: str
    clients: int
    samples: list[float]
    errors: int
    seconds: float

    def row(self, peer: Cell | None = None) -> str:
        ordered = sorted(self.samples)
        n = len(ordered)
        p50 = statistics.median(ordered) * 1000 if n else float("nan")
        p99 = ordered[min(n - 1, int(n * 0.99))] * 1000 if n else float("nan")
        rate = n / self.seconds
        ratio = f"{rate / (len(peer.samples) / peer.seconds):8.2f}" if peer else f"{'':>8}"
        return (
            f"{self.name:<26} {self.clients:>3} {n:>8} {rate:>9.0f} {p50:>8.2f} {p99:>8.2f}"
            f" {self.errors:>4} {ratio}"
        )


HEADER = (
    f"{'one-shot request':<26} {'N':>3} {'requests':>8} {'req/s':>9} {'p50 ms':>8} "
    f"{'p99 ms':>8} {'err':>4} {'vs tmux':>8}"
)


def run_cell(
    name: str, clients: int, seconds: float, target: Callable[..., None], *args: Any
) -> Cell:
    ctx = mp.get_context("fork")
    start = time.time() + 0.3  # every worker forked and waiting before the clock starts
    pipes: list[Connection] = []
    procs = []
    for _ in range(clients):
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=target, args=(*args, start, seconds, send))
        proc.start()
        send.close()
        pipes.append(recv)
        procs.append(proc)
    samples: list[float] = []
    errors = 0
    try:
        for recv in pipes:
            if recv.poll(seconds + 30):
                got, err = recv.recv()
                samples.extend(got)
                errors += err
    finally:
        for proc in procs:
            proc.join(5)
            if proc.is_alive() and proc.pid is not None:
                os.kill(proc.pid, signal.SIGKILL)
                proc.join(5)
    return Cell(name, clients, samples, errors, seconds)


# --- event subscribers --------------------------------------------------------------------


@dataclass
class SubStats:
    events: int = 0
    output_events: int = 0
    renames: int = 0
    lifecycle_other: int = 0
    lagged: int = 0
    seq_backwards: int = 0
    first: float = 0.0
    last: float = 0.0
    output_lag: list[float] = field(default_factory=list)
    rename_lag: list[float] = field(default_factory=list)


def subscriber_process(path: str, subs: list[dict[str, Any]], count: int, out: Connection) -> None:
    """``count`` subscriptions on one selector loop; stops when ``out`` receives anything."""
    request_line = (
        json.dumps({"id": "s", "method": "events.subscribe", "params": {"subscriptions": subs}})
        + "\n"
    ).encode()
    sel = selectors.DefaultSelector()
    stats = [SubStats() for _ in range(count)]
    buffers: list[bytes] = [b""] * count
    last_seq = [-1] * count
    socks = []
    for index in range(count):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        sock.sendall(request_line)
        sock.setblocking(False)
        sel.register(sock, selectors.EVENT_READ, index)
        socks.append(sock)
    sel.register(out, selectors.EVENT_READ, -1)
    running = True
    while running:
        for key, _ in sel.select(1.0):
            index = key.data
            if index == -1:
                out.recv()
                running = False
                break
            try:
                chunk = socks[index].recv(262144)
            except BlockingIOError:
                continue
            now = time.time()
            if not chunk:
                sel.unregister(socks[index])
                continue
            data = buffers[index] + chunk
            *lines, buffers[index] = data.split(b"\n")
            st = stats[index]
            for raw in lines:
                doc = orjson.loads(raw)  # json.loads made this process the bottleneck
                kind = doc.get("event")
                if kind is None:
                    continue  # the subscription_started answer
                st.events += 1
                st.first = st.first or now
                st.last = now
                seq = doc.get("seq")
                if isinstance(seq, int):
                    if seq < last_seq[index]:
                        st.seq_backwards += 1
                    last_seq[index] = seq
                payload = doc.get("data", {})
                if kind in ("pane.output_matched", "output_matched"):
                    st.output_events += 1
                    st.output_lag.append(now - float(payload["matched_line"][1:]))
                elif kind == "workspace_renamed":
                    st.renames += 1
                    label = str(payload.get("label", ""))
                    if label.startswith("L"):
                        st.rename_lag.append(now - float(label[1:]))
                elif kind == "subscription_lagged":
                    st.lagged += 1
                else:
                    st.lifecycle_other += 1
    for sock in socks:
        sock.close()
    out.send(stats)
    out.close()


def rename_driver(path: str, workspace_id: str, every: float, stop: threading.Event) -> int:
    sent = 0
    while not stop.wait(every):
        request(
            path, "workspace.rename", {"workspace_id": workspace_id, "label": f"L{time.time():.6f}"}
        )
        sent += 1
    return sent


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def fanout_report(stats: list[SubStats], seconds: float, renames_sent: int) -> list[str]:
    rates = [s.events / seconds for s in stats]
    out_rates = [s.output_events / seconds for s in stats]
    out_lag = [x for s in stats for x in s.output_lag]
    ren_lag = [x for s in stats for x in s.rename_lag]
    lines = [
        f"subscribers: {len(stats)}; window {seconds:.1f} s (during the one-shot runs)",
        "events/s per subscriber (all kinds): "
        f"min {min(rates):.0f}  median {statistics.median(rates):.0f}  max {max(rates):.0f}",
        "  of which pane.output_matched:      "
        f"min {min(out_rates):.0f}  median {statistics.median(out_rates):.0f}"
        f"  max {max(out_rates):.0f}",
        f"total events delivered: {sum(s.events for s in stats)} "
        f"({sum(rates):.0f}/s across subscribers)",
        f"output event lag (pane print -> subscriber): p50 {percentile(out_lag, 0.5) * 1000:.1f} "
        f"ms  p99 {percentile(out_lag, 0.99) * 1000:.1f} ms  (n={len(out_lag)})",
        f"rename event lag (request sent -> subscriber): p50 "
        f"{percentile(ren_lag, 0.5) * 1000:.1f} ms  p99 {percentile(ren_lag, 0.99) * 1000:.1f} ms"
        f"  (n={len(ren_lag)})",
        f"workspace renames sent {renames_sent}; received per subscriber: "
        f"min {min(s.renames for s in stats)}  max {max(s.renames for s in stats)}",
        f"seq went backwards: {sum(s.seq_backwards for s in stats)}; "
        f"subscription_lagged markers: {sum(s.lagged for s in stats)}",
    ]
    return lines


# --- servers ----------------------------------------------------------------------------


def wait_for(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            if check():
                return
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


@contextlib.contextmanager
def herdr_server(root: Path) -> Iterator[tuple[str, dict[str, str]]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERDR_")}
    env.update(
        HOME=str(root / "h"),
        XDG_CONFIG_HOME=str(root / "c"),
        XDG_STATE_HOME=str(root / "s"),
        XDG_DATA_HOME=str(root / "d"),
        SHELL="/bin/sh",
    )
    (root / "h").mkdir()
    path = str(root / "c" / "herdr" / "herdr.sock")
    log = (root / "server.log").open("wb")
    proc = subprocess.Popen(
        [*herdr_bin(), "server"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for(lambda: request(path, "ping", {})["type"] == "pong", 20, "herdr server")
        yield path, env
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(5)
        log.close()


@contextlib.contextmanager
def tmux_server(stream_cmd: str, panes: int) -> Iterator[list[str] | None]:
    if shutil.which("tmux") is None:
        yield None
        return
    base = ["tmux", "-L", f"herdr-load-{os.getpid()}", "-f", "/dev/null"]
    subprocess.run(
        [*base, "new-session", "-d", "-x", "120", "-y", "40", stream_cmd],
        check=True,
        env={**os.environ, "SHELL": "/bin/sh"},
    )
    try:
        for _ in range(panes - 1):
            subprocess.run([*base, "split-window", "-d", stream_cmd], check=True)
            subprocess.run([*base, "select-layout", "tiled"], check=True)
        yield base
    finally:
        subprocess.run([*base, "kill-server"], check=False, stderr=subprocess.DEVNULL)


def streaming(path: str, pane: str) -> bool:
    read = request(path, "pane.read", {"pane_id": pane, "source": "recent", "lines": 1})
    return re.search(OUTPUT_LINE, str(read["read"]["text"]), re.MULTILINE) is not None


def setup_panes(path: str, root: Path, count: int, stream_cmd: str) -> tuple[str, list[str]]:
    ws = request(path, "workspace.create", {"label": "load", "cwd": str(root)})
    panes = [str(ws["root_pane"]["pane_id"])]
    while len(panes) < count:
        split = request(
            path,
            "pane.split",
            {"target_pane_id": panes[-1], "direction": "right" if len(panes) % 2 else "down"},
        )
        panes.append(str(split["pane"]["pane_id"]))
    for pane in panes:
        request(path, "pane.send_input", {"pane_id": pane, "text": stream_cmd, "keys": ["Enter"]})
    for pane in panes:  # every pane is streaming before anything is measured
        wait_for(functools.partial(streaming, path, pane), 20, f"output in {pane}")
    return str(ws["workspace"]["workspace_id"]), panes


# --- flood: ping while panes run `yes` ----------------------------------------------------


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:13]) / os.sysconf("SC_CLK_TCK")


def server_pid(path: str) -> int:
    """The pid on the other end of the socket (SO_PEERCRED)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
        cred = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return int(struct.unpack("3i", cred)[0])
    finally:
        sock.close()


def flood_run(args: argparse.Namespace, root: Path) -> list[str]:
    """``ping`` on an idle server, then with every pane running ``yes``; tmux beside it."""
    rows: list[str] = []
    with herdr_server(root) as (path, _env):
        ws = request(path, "workspace.create", {"label": "flood", "cwd": str(root)})
        panes = [str(ws["root_pane"]["pane_id"])]
        while len(panes) < args.panes:
            split = request(
                path,
                "pane.split",
                {"target_pane_id": panes[-1], "direction": "right" if len(panes) % 2 else "down"},
            )
            panes.append(str(split["pane"]["pane_id"]))
        server = server_pid(path)
        rows.append(
            run_cell("herdr ping idle", 1, args.duration, socket_worker, path, "ping").row()
        )
        for pane in panes:
            request(path, "pane.send_input", {"pane_id": pane, "text": "yes", "keys": ["Enter"]})
        time.sleep(1.0)
        c0, t0 = (cpu_seconds(server) if server else 0.0), time.monotonic()
        cell = run_cell(
            f"herdr ping, {args.panes}x yes", 1, args.duration, socket_worker, path, "ping"
        )
        c1, t1 = (cpu_seconds(server) if server else 0.0), time.monotonic()
        rows.append(cell.row())
        if server:
            rows.append(f"herdr server CPU during the flood: {100 * (c1 - c0) / (t1 - t0):.0f}%")
        for pane in panes:
            request(path, "pane.send_input", {"pane_id": pane, "keys": ["ctrl+c"]})
    with tmux_server("/bin/sh", args.panes) as tmux:
        if tmux is not None:
            probe = [*tmux, "display", "-p", "x"]
            env = dict(os.environ)
            rows.append(
                run_cell("tmux display idle", 1, args.duration, process_worker, probe, env).row()
            )
            for index in range(args.panes):
                subprocess.run([*tmux, "send-keys", "-t", f".{index}", "yes", "Enter"], check=False)
            time.sleep(1.0)
            rows.append(
                run_cell(
                    f"tmux display, {args.panes}x yes", 1, args.duration, process_worker, probe, env
                ).row()
            )
    return rows


# --- main -------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=2.0, help="seconds per cell")
    parser.add_argument("--clients", default="1,4,16", help="concurrency levels")
    parser.add_argument("--panes", type=int, default=4)
    parser.add_argument("--subscribers", type=int, default=20)
    parser.add_argument("--interval", type=float, default=0.005, help="s between pane lines")
    parser.add_argument("--rename-every", type=float, default=0.05)
    parser.add_argument(
        "--lifecycle-only",
        action="store_true",
        help="subscribers take lifecycle kinds only (no pane.output_matched)",
    )
    parser.add_argument("--flood", action="store_true", help="ping while panes run yes")
    args = parser.parse_args()
    if args.flood:
        root = Path(tempfile.mkdtemp(prefix="hl", dir="/tmp"))
        try:
            rows = flood_run(args, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        print(f"api_load --flood: ping, {args.panes} panes, {args.duration:g} s per cell")
        print(HEADER)
        for row in rows:
            print(row)
        return 0
    levels = [int(x) for x in args.clients.split(",")]
    cells_time = args.duration * len(levels) * 5 + 60
    root = Path(tempfile.mkdtemp(prefix="hl", dir="/tmp"))
    script = root / "stream.py"
    script.write_text(STREAM_SCRIPT)
    stream_cmd = f"exec {sys.executable} {script} {args.interval} {cells_time:.0f}"
    herdr_cells: list[Cell] = []
    fanout: list[str] = []
    try:
        with herdr_server(root) as (path, env):
            workspace, panes = setup_panes(path, root, args.panes, stream_cmd)
            subs: list[dict[str, Any]] = [{"type": t} for t in LIFECYCLE]
            subs += (
                []
                if args.lifecycle_only
                else [
                    {
                        "type": "pane.output_matched",
                        "pane_id": pane,
                        "source": "recent",
                        "lines": 1,
                        "match": {"type": "regex", "value": OUTPUT_LINE},
                    }
                    for pane in panes
                ]
            )
            ctx = mp.get_context("fork")
            stats_recv, stats_send = ctx.Pipe()
            sub_proc = ctx.Process(
                target=subscriber_process, args=(path, subs, args.subscribers, stats_send)
            )
            sub_proc.start()
            time.sleep(1.0)  # subscriptions established
            stop = threading.Event()
            renames: list[int] = []
            driver = threading.Thread(
                target=lambda: renames.append(
                    rename_driver(path, workspace, args.rename_every, stop)
                )
            )
            window_start = time.time()
            driver.start()
            try:
                for method in ("ping", "pane.list"):
                    for n in levels:
                        herdr_cells.append(
                            run_cell(
                                f"herdr {method} (socket)",
                                n,
                                args.duration,
                                socket_worker,
                                path,
                                method,
                            )
                        )
                for n in levels:
                    herdr_cells.append(
                        run_cell(
                            "herdr pane list (CLI)",
                            n,
                            args.duration,
                            process_worker,
                            [*herdr_bin(), "pane", "list"],
                            env,
                        )
                    )
            finally:
                stop.set()
                driver.join(10)
                window = time.time() - window_start
                stats_recv.send(b"stop")  # any message on the pipe stops the loop
                stats: list[SubStats] = stats_recv.recv() if stats_recv.poll(30) else []
                sub_proc.join(10)
                if sub_proc.is_alive() and sub_proc.pid is not None:
                    os.kill(sub_proc.pid, signal.SIGKILL)
                    sub_proc.join(5)
            if stats:
                fanout = fanout_report(stats, window, renames[0] if renames else 0)
        tmux_cells: list[Cell] = []
        with tmux_server(stream_cmd, args.panes) as tmux:
            if tmux is not None:
                time.sleep(0.5)
                for n in levels:
                    tmux_cells.append(
                        run_cell(
                            "tmux list-panes (process)",
                            n,
                            args.duration,
                            process_worker,
                            [*tmux, "list-panes"],
                            dict(os.environ),
                        )
                    )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    peer = {c.clients: c for c in tmux_cells}
    print(
        f"api_load: {args.panes} streaming panes (a line every {args.interval * 1000:g} ms each),"
        f" {args.subscribers} subscribers"
        f" ({'lifecycle only' if args.lifecycle_only else 'output_matched x panes + lifecycle'}),"
        f" {args.duration:g} s per cell, "
        f"{os.cpu_count()} CPUs, loopback unix sockets"
    )
    print(HEADER)
    for cell in herdr_cells:
        print(cell.row(peer.get(cell.clients)))
    for cell in tmux_cells:
        print(cell.row())
    print("event fan-out:")
    for line in fanout:
        print("  " + line)
    if tmux_cells:
        print(
            "vs tmux = herdr requests/s / tmux list-panes requests/s at the same N. The CLI"
            " rows are the like-for-like peer (a process per request, as tmux's client);"
            " the socket rows are what a long-lived script gets. The tmux server has the"
            " same streaming panes and no subscribers (tmux has no event stream)."
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
