"""Start-up work, not only wall time: CPU of the ``herdr`` process per reattach and cold
start, and the client's import cost, beside tmux in the same run.

Wall time to the prompt swings ±50 % on a shared machine; the CPU a reattaching
``herdr`` process spends until it is detached again (``wait4`` rusage of that process:
CLI, imports, connect, first frame, detach) and the server's CPU for it (from
``/proc/<pid>/stat``) are what a change to the start-up path cuts. ``tmux attach`` is
measured the same way. ``--imports`` adds the first-frame import profile: module count
and CPU of ``import herdr.cli.launch, herdr.client.app`` (median of N fresh
interpreters), and the time the garbage collector spends in it (``gc.callbacks``).

Usage: ``python bench/startup_cpu.py [--runs 7] [--imports]``. Byte code is cached as
for a user (``PYTHONDONTWRITEBYTECODE`` is not passed on).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import math
import os
import pty
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

HERDR_BIN = str(Path(sys.executable).with_name("herdr"))
DETACH = {"herdr": b"\x02q", "tmux": b"\x02d"}

IMPORT_PROBE = r"""
import gc, sys, time
spent = [0.0]
start = [0.0]
def timed(phase, info):
    if phase == "start":
        start[0] = time.process_time()
    else:
        spent[0] += time.process_time() - start[0]
gc.callbacks.append(timed)
t = time.process_time()
import herdr.cli.launch
launch = herdr.cli.launch
launch.preload_client()
gc.collect(0)  # what the next allocation would cost after a merely paused collector
print(time.process_time() - t, spent[0], len(sys.modules))
"""


def _environment(root: Path) -> dict[str, str]:
    env = {
        "HOME": str(root / "h"),
        "XDG_CONFIG_HOME": str(root / "c"),
        "XDG_STATE_HOME": str(root / "s"),
        "XDG_DATA_HOME": str(root / "d"),
        "XDG_CACHE_HOME": str(root / "cache"),
        "SHELL": "/bin/sh",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PS1": "$ ",
        "ENV": "",
    }
    if "PYTHONPATH" in os.environ:  # an A/B run of another checkout's src
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    (root / "h").mkdir(parents=True, exist_ok=True)
    return env


def _to_prompt(argv: list[str], env: dict[str, str], detach: bytes) -> tuple[float, float, float]:
    """Wall ms until ``$`` shows, the CPU ms of the process until it exits, and its CPU
    ms until ``$`` showed (``/proc/PID/schedstat``: ns, not 10 ms ticks)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 160, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),  # noqa: PLW1509 - no threads
    )
    os.close(slave)
    seen = bytearray()
    deadline = time.monotonic() + 20
    wall = at_prompt = float("nan")
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                with contextlib.suppress(OSError):
                    seen += os.read(master, 65536)
            if b"$" in seen:
                wall = (time.perf_counter() - start) * 1000
                at_prompt = _run_ms(proc.pid)
                break
        os.write(master, detach)
        end = time.monotonic() + 5
        pid = 0
        while pid == 0 and time.monotonic() < end:  # reaped here: its rusage is the answer
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                with contextlib.suppress(OSError):
                    os.read(master, 65536)
            pid, _, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == 0:
            proc.kill()
            _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0
    finally:
        os.close(master)
    return wall, (usage.ru_utime + usage.ru_stime) * 1000, at_prompt


def _run_ms(pid: int) -> float:
    """CPU ms of ``pid``'s main thread so far (the client is one thread until then)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e6
    except (OSError, ValueError, IndexError):
        return float("nan")


def _cpu_ms(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _server_pid(state: Path) -> int:
    first = (state / "herdr" / "server.log").read_text().splitlines()[0]
    return int(json.loads(first)["pid"])


def _summary(label: str, samples: list[float]) -> str:
    samples = [x for x in samples if not math.isnan(x)] or [math.nan]  # NaN: a run timed out
    return f"{label} median {statistics.median(samples):6.0f}  min {min(samples):6.0f}"


def herdr_runs(runs: int) -> list[str]:
    root = Path(tempfile.mkdtemp(prefix="hs", dir="/tmp"))
    env = _environment(root)
    lines = []
    try:
        _to_prompt([HERDR_BIN], env, DETACH["herdr"])  # fills the FFI cache; not counted
        subprocess.run([HERDR_BIN, "server", "stop"], env=env, capture_output=True, check=False)
        cold_wall, cold_cpu, walls, cpus, server = [], [], [], [], []
        cold_first, firsts = [], []
        for run in range(runs):
            state = root / f"s{run}"  # a fresh session, its own server.log
            run_env = {
                **env,
                "XDG_CONFIG_HOME": str(root / f"c{run}"),
                "XDG_STATE_HOME": str(state),
            }
            wall, cpu, first = _to_prompt([HERDR_BIN], run_env, DETACH["herdr"])
            cold_wall.append(wall)
            cold_cpu.append(cpu)
            cold_first.append(first)
            time.sleep(1.0)  # a reattach comes later: the server's own start-up work is done
            before = _cpu_ms(_server_pid(state))
            wall, cpu, first = _to_prompt([HERDR_BIN], run_env, DETACH["herdr"])
            server.append(_cpu_ms(_server_pid(state)) - before)
            walls.append(wall)
            cpus.append(cpu)
            firsts.append(first)
            subprocess.run(
                [HERDR_BIN, "server", "stop"], env=run_env, capture_output=True, check=False
            )
        lines.append(
            f"herdr cold start  {_summary('wall ms', cold_wall)}   "
            f"{_summary('herdr process CPU ms', cold_cpu)}   "
            f"{_summary('of it to the prompt', cold_first)}"
        )
        lines.append(
            f"herdr reattach    {_summary('wall ms', walls)}   "
            f"{_summary('herdr process CPU ms', cpus)}   "
            f"{_summary('of it to the prompt', firsts)}   {_summary('server CPU ms', server)}"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return lines


def tmux_runs(runs: int) -> list[str]:
    if shutil.which("tmux") is None:
        return ["tmux: not installed"]
    root = Path(tempfile.mkdtemp(prefix="ts", dir="/tmp"))
    env = _environment(root)
    tmux = ["tmux", "-L", f"sc{os.getpid()}", "-f", "/dev/null"]
    walls, cpus = [], []
    try:
        for _ in range(runs):
            _to_prompt([*tmux, "new-session", "/bin/sh"], env, DETACH["tmux"])
            wall, cpu, _ = _to_prompt([*tmux, "attach"], env, DETACH["tmux"])
            walls.append(wall)
            cpus.append(cpu)
            subprocess.run([*tmux, "kill-server"], capture_output=True, check=False)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, check=False)
        shutil.rmtree(root, ignore_errors=True)
    return [f"tmux attach       {_summary('wall ms', walls)}   {_summary('client CPU ms', cpus)}"]


def import_runs(runs: int) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cpu: list[float] = []
    gc_ms: list[float] = []
    modules = ""
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", IMPORT_PROBE],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        total, spent, modules = out.stdout.split()
        cpu.append(float(total) * 1000)
        gc_ms.append(float(spent) * 1000)
    return [
        f"client imports    {_summary('CPU ms', cpu)}   {_summary('of it in gc, ms', gc_ms)}"
        f"   modules {modules}"
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--imports", action="store_true")
    args = parser.parse_args()
    lines = herdr_runs(args.runs) + tmux_runs(args.runs)
    if args.imports:
        lines += import_runs(args.runs)
    print(f"start-up, {args.runs} runs each (160x45, /bin/sh)")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
