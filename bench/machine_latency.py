"""``herdr --machine T pane list`` against ``ssh T true`` on one loopback sshd, one run.

Starts the tests' loopback sshd (``tests/herdr_testing/sshd.py``), starts the remote
server there (``herdr api ensure-server`` over ssh), warms the shared ControlMaster,
then times, each ``--calls`` times: ``ssh true`` on that master (the floor any call
that starts ssh pays), a raw ``ssh ... herdr api proxy`` exchange (one ``pane.list``
line; the remote Python start-up is in it), a raw exchange through the stream-local
forward ``--machine`` sets up on the master (connect, one line, no process), the whole
CLI ``herdr --machine T pane list`` (forwarded, and with ``HERDR_SSH_FORWARD=0``: the
proxy), and the local CLI ``herdr pane list`` against a local server (the floor of
any CLI call: Python start-up). Prints p50/p99 of each, and the CPU per call of the
local processes it ran, of the sshd side (sshd and every session process under it,
finished ones included; not the remote server) and of the ControlMaster. Usage: ``python
bench/machine_latency.py [--calls 20] [--rtt-ms 10]`` (``--rtt-ms``: every ssh
connection goes through a relay that delays each direction by half of it, see
``delay_proxy.py``).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from herdr_testing.sshd import ssh_machine, sshd_missing_reason

REQUEST = b'{"id":"b","method":"pane.list","params":{}}\n'


def delayed_config(base: Path, local: Path, rtt_ms: float) -> Path:
    """The fixture's ssh config, with every connection through ``delay_proxy.py``
    (``rtt_ms / 2`` each way) when ``rtt_ms`` is set."""
    if not rtt_ms:
        return base
    relay = Path(__file__).resolve().parent / "delay_proxy.py"
    path = local / "ssh_config_delayed"
    path.write_text(f"ProxyCommand {sys.executable} {relay} %h %p {rtt_ms / 2}\nInclude {base}\n")
    return path


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


def forwarded_once(path: str) -> None:
    """One request line through the forward's local socket; returns once answered."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(path)
        sock.sendall(REQUEST)
        if not sock.recv(64):
            raise RuntimeError("no answer through the forward")


def run_quiet(argv: list[str], env: dict[str, str], *, check: bool = False) -> None:
    subprocess.run(
        argv,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=30,
        check=check,
    )


TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
        return fh.read().rsplit(")", 1)[1].split()


def tree_cpu_ms(root: int) -> float:
    """CPU of ``root`` and every process under it, the finished ones included (a
    process's reaped children are in its cutime/cstime): sshd and its sessions."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(_stat(int(entry))[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, ppid in parents.items() if ppid in tree} - tree
        grew = bool(more)
        tree |= more
    total = 0
    for pid in tree:
        try:
            fields = _stat(pid)
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    return total * TICK_MS


def own_children_cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def master_cpu_ms(pid: int | None) -> float:
    if pid is None:
        return 0.0
    try:
        return sum(int(f) for f in _stat(pid)[11:13]) * TICK_MS
    except OSError:
        return 0.0


def master_pid(mux: list[str], env: dict[str, str]) -> int | None:
    done = subprocess.run(
        [*mux[:-2], "-O", "check", "127.0.0.1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    found = re.search(r"pid=(\d+)", done.stderr)
    return int(found.group(1)) if found else None


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
    parser.add_argument("--rtt-ms", type=float, default=0.0, help="simulated round trip")
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
    cpu: dict[str, tuple[float, ...]] = {}  # per call: local processes, sshd side, master
    try:
        with ssh_machine() as machine:
            env.update(machine.client_env())
            config = delayed_config(machine.ssh_config, local, args.rtt_ms)
            env["HERDR_SSH_CONFIG"] = str(config)
            done = machine.ssh("~/.local/bin/herdr api ensure-server")
            if done.returncode != 0:
                print(f"the remote server did not start: {done.stderr}")
                return 1
            ctl = machine.root / "ctl"
            ctl.mkdir(mode=0o700, exist_ok=True)
            mux = ["ssh", "-F", str(config), "-p", str(machine.port)]
            mux += ["-o", "ControlMaster=auto", "-o", f"ControlPath={ctl}/%C"]
            mux += ["-o", "ControlPersist=60", "-T", "127.0.0.1"]
            herdr = [sys.executable, "-m", "herdr"]
            cli = [*herdr, "--machine", machine.target, "pane", "list"]
            run_quiet([*mux, "true"], env, check=True)  # the master, before any timing
            run_quiet(cli, env, check=True)  # sets the forward up on that master
            forwards = sorted(ctl.glob("f-*.sock"))
            run_quiet([*herdr, "api", "ensure-server"], env, check=True)  # a local server
            proxied = {**env, "HERDR_SSH_FORWARD": "0"}
            runs = {
                "ssh true": lambda: run_quiet([*mux, "true"], env),
                "proxy": lambda: proxy_once([*mux, "~/.local/bin/herdr api proxy"], env),
                "cli": lambda: run_quiet(cli, env),
                "cli proxy": lambda: run_quiet(cli, proxied),
                "cli local": lambda: run_quiet([*herdr, "pane", "list"], env),
            }
            if forwards:
                runs["forward"] = lambda: forwarded_once(str(forwards[0]))
            else:
                print("(no forward was set up: this checkout predates it)")
            master = master_pid(mux, env)
            for name, run in runs.items():
                before = (
                    own_children_cpu_ms(),
                    tree_cpu_ms(machine.proc.pid),
                    master_cpu_ms(master),
                )
                results[name] = timed(run, args.calls)
                after = (
                    own_children_cpu_ms(),
                    tree_cpu_ms(machine.proc.pid),
                    master_cpu_ms(master),
                )
                cpu[name] = tuple((b - a) / args.calls for a, b in zip(before, after, strict=True))
            run_quiet([*herdr, "server", "stop"], env)
            run_quiet([*mux[:-2], "-O", "exit", "127.0.0.1"], env)
    finally:
        shutil.rmtree(local, ignore_errors=True)
    rtt = f", simulated RTT {args.rtt_ms:g} ms" if args.rtt_ms else ""
    print(f"--machine latency over loopback sshd (shared ControlMaster{rtt}), {args.calls} calls")
    for name, samples in results.items():
        p50, p99 = percentiles(samples)
        here, there, mux_cpu = cpu.get(name, (0.0, 0.0, 0.0))
        print(
            f"{name:<9} p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  CPU/call: local {here:5.1f} ms,"
            f" sshd side {there:5.1f} ms, master {mux_cpu:4.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
