"""``herdr --machine T pane list`` against ``ssh T true`` on one loopback sshd, one run.

Starts the tests' loopback sshd (``tests/herdr_testing/sshd.py``), starts the remote
server there (``herdr api ensure-server`` over ssh), warms the shared ControlMaster,
then times, each ``--calls`` times: ``ssh true`` on that master (the floor any
ssh-based call pays), a raw ``ssh ... herdr api proxy`` exchange (one ``pane.list``
line; the remote Python start-up is in it), and the whole CLI ``herdr --machine T
pane list``. Prints p50/p99 of each. Usage: ``python bench/machine_latency.py
[--calls 20]``.
"""

from __future__ import annotations

import argparse
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from herdr_testing.sshd import ssh_machine, sshd_missing_reason

REQUEST = b'{"id":"b","method":"pane.list","params":{}}\n'


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def proxy_once(argv: list[str], env: dict[str, str]) -> None:
    """One request line through ``herdr api proxy``; returns once the answer starts."""
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(REQUEST)
    proc.stdin.flush()
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    if not ready or not os.read(proc.stdout.fileno(), 64):
        raise RuntimeError("no answer from the proxy")
    proc.stdin.close()
    proc.wait(30)


def run_quiet(argv: list[str], env: dict[str, str], *, check: bool = False) -> None:
    subprocess.run(
        argv,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=30,
        check=check,
    )


def timed(run: object, calls: int) -> list[float]:
    assert callable(run)
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    reason = sshd_missing_reason()
    if reason is not None:
        print(f"skipped: {reason}")
        return 1
    local = Path(tempfile.mkdtemp(prefix="hrm-", dir="/tmp"))
    env = {
        "HOME": str(local / "h"),
        "XDG_CONFIG_HOME": str(local / "c"),
        "XDG_STATE_HOME": str(local / "s"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
    }
    (local / "h").mkdir()
    results: dict[str, list[float]] = {}
    try:
        with ssh_machine() as machine:
            env.update(machine.client_env())
            done = machine.ssh("~/.local/bin/herdr api ensure-server")
            if done.returncode != 0:
                print(f"the remote server did not start: {done.stderr}")
                return 1
            ctl = machine.root / "ctl"
            ctl.mkdir(mode=0o700, exist_ok=True)
            mux = ["ssh", "-F", str(machine.ssh_config), "-p", str(machine.port)]
            mux += ["-o", "ControlMaster=auto", "-o", f"ControlPath={ctl}/%C"]
            mux += ["-o", "ControlPersist=60", "-T", "127.0.0.1"]
            cli = [sys.executable, "-m", "herdr", "--machine", machine.target, "pane", "list"]
            run_quiet([*mux, "true"], env, check=True)  # the master, before any timing
            runs = {
                "ssh true": lambda: run_quiet([*mux, "true"], env),
                "proxy": lambda: proxy_once([*mux, "~/.local/bin/herdr api proxy"], env),
                "cli": lambda: run_quiet(cli, env),
            }
            for name, run in runs.items():
                results[name] = timed(run, args.calls)
            run_quiet([*mux[:-2], "-O", "exit", "127.0.0.1"], env)
    finally:
        shutil.rmtree(local, ignore_errors=True)
    print(f"--machine latency over loopback sshd (shared ControlMaster), {args.calls} calls")
    for name, samples in results.items():
        p50, p99 = percentiles(samples)
        print(f"{name:<9} p50 {p50:7.1f} ms  p99 {p99:7.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
