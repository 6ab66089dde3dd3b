"""CLI round-trip latency: a herdr control command vs a bare interpreter vs tmux.

Run: ``.venv/bin/python bench/cli_latency.py [--runs N]``. Starts a private headless
herdr server and a private tmux server (``-L``), then times, interleaved in the same
run, each command's wall time from spawn to exit:

* ``herdr pane list`` (falls back to ``herdr status server --json`` while the server
  does not know ``pane.list``) against the live server,
* the same herdr command as ``python -m herdr ...``,
* ``python -c pass`` with the same interpreter (the floor for any Python CLI),
* ``python -c "import re"``: the floor of a pip console script, whose generated
  wrapper imports ``re`` before it imports herdr,
* ``tmux -L <private> list-panes`` (the peer).

Reports median and p90 in ms and the ratio to the bare interpreter. Both servers are
stopped by pid / kill-server afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent


def herdr_bin() -> list[str]:
    script = Path(sys.executable).with_name("herdr")
    return [str(script)] if script.exists() else [sys.executable, "-m", "herdr"]


def wait_for_socket(path: Path, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(path))
            return
        time.sleep(0.05)
    raise SystemExit(f"herdr server did not come up at {path}")


@contextlib.contextmanager
def herdr_server() -> Iterator[dict[str, str]]:
    root = Path(tempfile.mkdtemp(prefix="hb", dir="/tmp"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERDR_")}
    env.update(
        HOME=str(root / "h"),
        XDG_CONFIG_HOME=str(root / "c"),
        XDG_STATE_HOME=str(root / "s"),
        SHELL="/bin/sh",
    )
    (root / "h").mkdir()
    proc = subprocess.Popen(
        [*herdr_bin(), "server"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for_socket(root / "c" / "herdr" / "herdr.sock")
        yield env
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(5)
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def tmux_server() -> Iterator[list[str] | None]:
    if shutil.which("tmux") is None:
        yield None
        return
    name = f"herdr-bench-{os.getpid()}"
    base = ["tmux", "-L", name, "-f", "/dev/null"]
    subprocess.run([*base, "new-session", "-d", "-x", "120", "-y", "40"], check=True)
    try:
        yield [*base, "list-panes"]
    finally:
        subprocess.run([*base, "kill-server"], check=False)


def time_once(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000


def pick_herdr_command(env: dict[str, str]) -> list[str]:
    probe = subprocess.run(
        [*herdr_bin(), "pane", "list"], env=env, capture_output=True, text=True, check=False
    )
    if probe.returncode == 0 and json.loads(probe.stdout)["result"]["type"] == "pane_list":
        return [*herdr_bin(), "pane", "list"]
    return [*herdr_bin(), "status", "server", "--json"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with herdr_server() as env, tmux_server() as tmux:
        herdr = pick_herdr_command(env)
        commands = {
            "herdr": herdr,
            "python -m herdr": [sys.executable, "-m", "herdr", *herdr[len(herdr_bin()) :]],
            "python -c pass": [sys.executable, "-c", "pass"],
            "python import re": [sys.executable, "-c", "import re"],
        }
        if tmux is not None:
            commands["tmux list-panes"] = tmux
        for argv in commands.values():  # warm caches once
            time_once(argv, env)
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, argv in commands.items():
                samples[name].append(time_once(argv, env))
    base = statistics.median(samples["python -c pass"])
    print(f"runs: {args.runs} (interleaved); herdr command: {' '.join(commands['herdr'][1:])}")
    print(f"{'command':<18} {'median ms':>10} {'p90 ms':>8} {'x python':>9}")
    for name, values in samples.items():
        values.sort()
        median = statistics.median(values)
        p90 = values[int(len(values) * 0.9) - 1]
        print(f"{name:<18} {median:>10.1f} {p90:>8.1f} {median / base:>9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
