"""Idle cost: server CPU with many panes whose agents sit idle at their prompt.

Run: ``.venv/bin/python bench/idle_cost.py [--panes 50] [--seconds 60] [--no-tmux]``.

Three configurations, one after the other in the same run, each with ``--panes`` panes:

* ``herdr agents``: a private ``herdr server`` (temp HOME/XDG under a short /tmp path,
  Unix socket only) whose panes run the test suite's fake Claude Code
  (``tests/fixtures/fake_agent.py`` under the name ``claude``, found on ``PATH``) idle at
  its prompt; the run waits until every pane reports ``agent == claude`` and an
  idle/done status before measuring;
* ``herdr shells``: a second private server whose panes run idle ``/bin/sh``;
* ``tmux agents`` (the peer): a private tmux server (``-L <name> -f /dev/null``) whose
  windows run the same fake Claude Code.

After ``--settle`` seconds (past the start-up grace and the acquisition windows), the
server's CPU time — utime + stime of its process, all threads, from /proc/<pid>/stat —
is sampled at the start and end of a ``--seconds`` window and reported as % of one
core (``% core``, 10 ms clock-tick resolution), next to the same from the threads'
``schedstat`` run time (``% sched``, ns resolution), the schedstat CPU per pane
(``ms/s/pane``) and the voluntary + involuntary context switches per second (a proxy
for timer wake-ups). Target for herdr with idle agents: ≤ 1 % of one core.

``--spinner`` makes the agents work instead (the "working agents" case): every fake
agent gets a prompt and works on it for the whole run (``FAKE_AGENT_WORK_S``), redrawing
its screen with a spinner 10 times a second (the title's braille spinner every frame,
the elapsed-seconds status line once a second); herdr waits until every pane reports
``working``, tmux's panes get the same prompt. No client is attached. Target: 10 panes
≤ 3 % of one core (``--panes 10 --spinner``), 50 panes ≤ 12 %.

``--profile FILE`` runs the herdr agents server under cProfile (``python -m cProfile
-o FILE``; the stats are written when the server exits on SIGTERM) for a look at what
an idle server spends its time on; the CPU figure then includes the profiler's cost.

Everything is bounded (pane count, window, per-wait timeouts); servers and panes are
stopped by pid (tmux by ``-L <name> kill-server``) and the temp tree is removed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
FAKE_AGENT = REPO / "tests" / "fixtures" / "fake_agent.py"
WAIT_S = 20.0
CLK_TCK = os.sysconf("SC_CLK_TCK")
TARGET_PCT = 1.0


def spinner_target(panes: int) -> float:
    """Issue 15: 10 working panes ≤ 3 %, 50 ≤ 12 % (linear between, 0.3 %/pane below)."""
    return 0.3 * panes if panes <= 10 else 3.0 + 9.0 * (panes - 10) / 40


MAX_PANES = 200


# --- environment and herdr ------------------------------------------------------------


def make_env(root: Path, *, working: bool = False) -> dict[str, str]:
    """Private HOME/XDG, no inherited HERDR_*/TMUX variables, fake agents first on PATH."""
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
    if working:
        env["FAKE_AGENT_WORK_S"] = "3600"  # a prompt keeps the spinner going all run
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
            chunk = sock.recv(1 << 20)
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


def wait_for(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.2)


class HerdrServer:
    """A ``herdr server`` subprocess in its own session, stopped by pid."""

    def __init__(self, root: Path, env: dict[str, str], profile: Path | None = None) -> None:
        self.socket = root / "c" / "herdr" / "herdr.sock"
        self.log = root / "server.out"
        argv = [sys.executable]
        if profile is not None:
            argv += ["-m", "cProfile", "-o", str(profile)]
        argv += ["-m", "herdr", "server"]
        with self.log.open("wb") as sink:
            self.proc = subprocess.Popen(
                argv,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

        def ready() -> bool:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited:\n{self.log.read_text(errors='replace')}")
            with contextlib.suppress(OSError, ValueError, RuntimeError):
                return request(self.socket, "ping", {}).get("type") == "pong"
            return False

        wait_for(ready, "the herdr server", WAIT_S)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return request(self.socket, method, params)

    def stop(self) -> None:
        """SIGTERM by pid (the server closes its panes), SIGKILL if it lingers."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)


def herdr_panes(server: HerdrServer, count: int, command: str | None) -> list[str]:
    """``count`` workspaces of one pane each; type ``command`` into every shell."""
    panes = []
    for _ in range(count):
        ws = server.call("workspace.create", {"focus": False})["workspace"]["workspace_id"]
        panes.append(f"{ws}:p1")
    if command:
        for pane in panes:
            server.call("pane.send_input", {"pane_id": pane, "text": command, "keys": ["Enter"]})
    return panes


def all_claude(server: HerdrServer, panes: list[str], statuses: tuple[str, ...]) -> bool:
    wanted = set(panes)
    ready = {
        p["pane_id"]
        for p in server.call("pane.list", {})["panes"]
        if p.get("agent") == "claude" and p.get("agent_status") in statuses
    }
    return wanted <= ready


def all_idle_claude(server: HerdrServer, panes: list[str]) -> bool:
    return all_claude(server, panes, ("idle", "done"))


PROMPT = "spin"  # what every fake agent is asked to work on in --spinner runs


# --- tmux -----------------------------------------------------------------------------


class Tmux:
    """A private tmux server (``-L name``) whose windows run ``command``."""

    def __init__(self, env: dict[str, str], count: int, command: str) -> None:
        self.name = f"herdr-idle-{os.getpid()}"
        self.env = env
        self.pid = 0
        self.socket: Path | None = None
        self.run("new-session", "-d", "-x", "80", "-y", "24", command)
        info = self.run("display-message", "-p", "#{pid} #{socket_path}").strip()
        pid, _, socket_path = info.partition(" ")
        self.pid, self.socket = int(pid), Path(socket_path)
        for _ in range(count - 1):
            self.run("new-window", "-d", command)

    def run(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.name, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=WAIT_S,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"tmux {args[0]}: {done.stderr.strip()}")
        return done.stdout

    def commands(self) -> list[str]:
        return self.run("list-panes", "-a", "-F", "#{pane_current_command}").split()

    def stop(self) -> None:
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self.run("kill-server")
        deadline = time.monotonic() + 3
        while self.pid and Path(f"/proc/{self.pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        if self.pid and Path(f"/proc/{self.pid}").exists():  # kill-server did not end it
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        if self.socket is not None:  # kill-server leaves the socket file behind
            self.socket.unlink(missing_ok=True)


# --- measuring ------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), in seconds."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rfind(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def sched_seconds(pid: int) -> float:
    """CPU time of all live threads from /proc/<pid>/task/*/schedstat (ns resolution)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


def context_switches(pid: int) -> int:
    """Voluntary + involuntary context switches over all threads of a process."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            for line in (task / "status").read_text().splitlines():
                if "ctxt_switches:" in line:
                    total += int(line.split(":", 1)[1])
    return total


@dataclass
class Result:
    label: str
    panes: int
    seconds: float
    cpu: float
    sched: float
    switches: int

    @property
    def pct(self) -> float:
        return 100 * self.cpu / self.seconds

    def row(self) -> str:
        per_pane_ms = 1000 * self.sched / self.seconds / self.panes
        return (
            f"{self.label:<26}{self.panes:>6}{self.seconds:>8.1f}{self.cpu:>9.2f}"
            f"{self.pct:>9.2f}{100 * self.sched / self.seconds:>10.3f}{per_pane_ms:>12.3f}"
            f"{self.switches / self.seconds:>10.1f}"
        )


def measure(label: str, pid: int, panes: int, settle: float, seconds: float) -> Result:
    print(f"  {label}: settling {settle:.0f} s, measuring {seconds:.0f} s", flush=True)
    time.sleep(settle)
    cpu0, sched0, sw0 = cpu_seconds(pid), sched_seconds(pid), context_switches(pid)
    t0 = time.monotonic()
    time.sleep(seconds)
    cpu1, sched1, sw1 = cpu_seconds(pid), sched_seconds(pid), context_switches(pid)
    t1 = time.monotonic()
    return Result(label, panes, t1 - t0, cpu1 - cpu0, sched1 - sched0, sw1 - sw0)


def run_herdr(
    root: Path, args: argparse.Namespace, command: str | None, label: str, profile: Path | None
) -> Result:
    root.mkdir()
    env = make_env(root, working=args.spinner)
    server = HerdrServer(root, env, profile)
    try:
        panes = herdr_panes(server, args.panes, command)
        if command:
            wait_for(lambda: all_idle_claude(server, panes), "idle agents in every pane", 90)
        if command and args.spinner:
            for pane in panes:
                server.call("pane.send_input", {"pane_id": pane, "text": PROMPT, "keys": ["Enter"]})
            wait_for(lambda: all_claude(server, panes, ("working",)), "working agents", 90)
        return measure(label, server.pid, args.panes, args.settle, args.seconds)
    finally:
        server.stop()


def run_tmux(root: Path, args: argparse.Namespace) -> Result:
    root.mkdir()
    env = make_env(root, working=args.spinner)
    tmux = Tmux(env, args.panes, "exec claude")
    try:
        # The fake agent runs as "python3 …/claude": wait until no pane shows a shell.
        def started() -> bool:
            commands = tmux.commands()
            return len(commands) == args.panes and not {"sh", "bash", "dash"} & set(commands)

        wait_for(started, "the fake agents in tmux", 90)
        if args.spinner:
            time.sleep(1.0)  # past the fake agents' first draw
            for index in range(args.panes):
                tmux.run("send-keys", "-t", f":{index}", PROMPT, "Enter")
        return measure("tmux   agents (peer)", tmux.pid, args.panes, args.settle, args.seconds)
    finally:
        tmux.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--panes", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0, help="measurement window")
    parser.add_argument("--settle", type=float, default=10.0, help="wait before measuring")
    parser.add_argument("--no-tmux", action="store_true", help="skip the tmux peer")
    parser.add_argument("--no-shells", action="store_true", help="skip the plain-shell run")
    parser.add_argument("--profile", type=Path, help="cProfile output for the agents server")
    parser.add_argument("--spinner", action="store_true", help="the agents work (spinners)")
    args = parser.parse_args()
    if args.spinner:
        args.no_shells = True  # shells have no spinner
    if not 1 <= args.panes <= MAX_PANES or not 1 <= args.seconds <= 600:
        parser.error(f"--panes in 1..{MAX_PANES}, --seconds in 1..600")
    if not 0 <= args.settle <= 120:
        parser.error("--settle in 0..120")
    if not args.no_tmux and shutil.which("tmux") is None:
        print("tmux not found: skipping the peer", file=sys.stderr)
        args.no_tmux = True

    base = Path(tempfile.mkdtemp(prefix="hic", dir="/tmp"))
    results: list[Result] = []
    try:
        print("running:", flush=True)
        results.append(run_herdr(base / "a", args, "claude", "herdr  agents", args.profile))
        if not args.no_shells:
            results.append(run_herdr(base / "s", args, None, "herdr  shells", None))
        if not args.no_tmux:
            results.append(run_tmux(base / "t", args))
    finally:
        shutil.rmtree(base, ignore_errors=True)

    title = "server (working panes)" if args.spinner else "server (idle panes)"
    header = (
        f"{title:<26}{'panes':>6}{'window':>8}{'cpu s':>9}"
        f"{'% core':>9}{'% sched':>10}{'ms/s/pane':>12}{'csw/s':>10}"
    )
    print()
    print(header)
    print("-" * len(header))
    for result in results:
        print(result.row())
    agents = results[0]
    target = spinner_target(args.panes) if args.spinner else TARGET_PCT
    verdict = "PASS" if agents.pct <= target else "FAIL"
    if not args.no_tmux:
        print(f"\nherdr / tmux: {agents.pct / max(results[-1].pct, 1e-9):.1f}x")
    print(
        f"\ntarget herdr agents ≤ {target:.1f} % of one core: {verdict} "
        f"({agents.pct:.2f} %; CPU from /proc/<pid>/stat utime+stime, "
        f"{CLK_TCK} ticks/s)"
    )
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
