"""Remote echo latency: ``herdr --remote`` against plain ``ssh`` to the same sshd.

A loopback OpenSSH server (the tests' fixture, ``tests/herdr_testing/sshd.py``: temp
host key, temp authorized key, an isolated "remote" HOME) is started once; in the same
run, from a PTY this script owns, it measures key -> echo for

* ``ssh``: ``ssh -tt 127.0.0.1 /bin/sh`` (the remote pty echoes the key),
* ``herdr``: ``herdr --remote ssh://127.0.0.1:PORT``, whose remote pane runs sh: the
  key goes local TUI -> (a stream-local forward on) the attach's ssh ControlMaster ->
  sshd -> remote server -> pane, and the echo comes back as rows the local TUI draws;
* ``herdr-proxy``: the same with ``HERDR_SSH_FORWARD=0``, i.e. each connection handed
  to an ``ssh ... herdr api proxy`` (the path before the forward);
* ``ssh+tmux``: ``ssh -tt 127.0.0.1 tmux new-session /bin/sh`` — the peer a user would
  otherwise pick, through the same sshd (a multiplexer in the path at all: the floor
  for any remote attach that keeps sessions);
* ``herdr-local``: plain ``herdr`` (a local server, no ssh) from the same outer PTY:
  what the TUI and server cost without the remote path, so ``herdr - herdr-local``
  is what the remote path adds, to set beside ``ssh``'s own cost;
* ``herdr-aes`` (``--cipher``): ``Ciphers aes128-gcm@openssh.com`` instead of the
  default chacha20-poly1305 (AES-NI makes it cheaper per packet);
* ``herdr-C`` (``--compression``): ssh ``Compression yes`` (does compressing the attach
  stream help? On loopback it can only cost; measured so the default is a choice).
* ``herdr-always`` / ``herdr-never`` (``--predict``): ``remote.predictive_echo`` set to
  ``always`` / ``never``. The plain ``herdr`` run has the default, ``adaptive``, which
  draws a typed character before its echo only while the echo round trip is over 30 ms
  (so on bare loopback it is ``never``'s path, and with ``--rtt-ms 50`` it predicts).
  A predicted key's sample is the time to the client's own drawing of it: what the user
  sees, not the remote pane's echo (the first key after each line clear is not
  predicted: a run's guesses are drawn once the pane has echoed one).

Each sample writes one letter to the outer PTY and waits for the chunk holding it (see
``keystroke_latency.py``). Prints p50/p99 per run and the herdr/ssh p50 ratio (target
<= 1.5x). ``--rtt-ms N`` sends every ssh connection (plain ssh's and herdr's alike)
through ``delay_proxy.py``, which holds each chunk N/2 ms each way: a network round
trip without touching the machine's loopback. Usage: ``python bench/remote_latency.py
[--keys 200] [--rtt-ms 10] [--compression] [--cipher] [--predict]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from keystroke_latency import LETTERS, Outer  # type: ignore[import-not-found]  # bench/
from machine_latency import delayed_config  # type: ignore[import-not-found]  # bench/

from herdr_testing.sshd import ssh_machine, sshd_missing_reason


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return statistics.median(ordered), p99


def latency(outer: Outer, keys: int) -> list[float]:
    """Key -> the first chunk holding it. The line is cleared once per cycle of
    LETTERS (not every 40 keys, as ``Outer.latency`` does), so the key just typed is
    never on the line already: a late repaint of the line cannot pass for its echo."""
    samples: list[float] = []
    for i in range(keys):
        if i and i % len(LETTERS) == 0:
            os.write(outer.master, b"\x15")  # ctrl+u: clear the line
            outer.drain(0.1)
        ch = LETTERS[i % len(LETTERS) : i % len(LETTERS) + 1]
        start = time.perf_counter()
        os.write(outer.master, ch)
        while ch not in (chunk := outer.read(5.0)):
            if not chunk:
                raise TimeoutError("no echo within 5 s")
        samples.append((time.perf_counter() - start) * 1000)
        outer.drain(0.02)
    return samples


def measure(outer: Outer, ready: bytes, keys: int) -> list[float]:
    outer.wait_for(ready, limit=120)
    outer.drain(0.5)
    latency(outer, 10)  # warm-up
    return latency(outer, keys)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--cols", type=int, default=120)
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--rtt-ms", type=float, default=0.0, help="simulated round trip")
    parser.add_argument("--compression", action="store_true", help="also herdr-C")
    parser.add_argument("--cipher", action="store_true", help="also herdr-aes (aes128-gcm)")
    parser.add_argument("--no-local", action="store_true", help="skip herdr-local")
    parser.add_argument("--predict", action="store_true", help="also herdr-always/-never")
    args = parser.parse_args()
    reason = sshd_missing_reason()
    if reason is not None:
        print(f"skipped: {reason}")
        return 1
    local = Path(tempfile.mkdtemp(prefix="hrl-", dir="/tmp"))
    env = {
        "HOME": str(local / "h"),
        "XDG_CONFIG_HOME": str(local / "c"),
        "XDG_STATE_HOME": str(local / "s"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "SHELL": "/bin/sh",
    }
    (local / "h").mkdir()
    results: dict[str, list[float]] = {}
    try:
        with ssh_machine() as machine:
            env.update(machine.client_env())
            config = delayed_config(machine.ssh_config, local, args.rtt_ms)
            env["HERDR_SSH_CONFIG"] = str(config)
            cfg = ["-F", str(config), "-p", str(machine.port)]
            compressed = local / "ssh_config_compressed"
            compressed.write_text(f"Compression yes\nInclude {config}\n")
            aes = local / "ssh_config_aes"
            aes.write_text(f"Ciphers aes128-gcm@openssh.com\nInclude {config}\n")
            herdr = [sys.executable, "-m", "herdr", "--remote", machine.target]
            runs = {
                "ssh": (["ssh", *cfg, "-tt", "127.0.0.1", "/bin/sh"], b"# ", {}),
                "herdr": (herdr, b" p1 ", {}),
                "herdr-proxy": (herdr, b" p1 ", {"HERDR_SSH_FORWARD": "0"}),
            }
            if not args.no_local:
                runs["herdr-local"] = ([sys.executable, "-m", "herdr"], b" p1 ", {})
            if args.cipher:
                runs["herdr-aes"] = (herdr, b" p1 ", {"HERDR_SSH_CONFIG": str(aes)})
            tmux_name = f"hrl{os.getpid()}"
            if shutil.which("tmux"):
                tmux = ["tmux", "-L", tmux_name, "-f", "/dev/null", "new-session", "/bin/sh"]
                runs["ssh+tmux"] = (["ssh", *cfg, "-tt", "127.0.0.1", *tmux], b"# ", {})
            if args.compression:
                runs["herdr-C"] = (herdr, b" p1 ", {"HERDR_SSH_CONFIG": str(compressed)})
            if args.predict:
                for mode in ("always", "never"):
                    toml = local / f"config-{mode}.toml"
                    toml.write_text(f'[remote]\npredictive_echo = "{mode}"\n')
                    runs[f"herdr-{mode}"] = (herdr, b" p1 ", {"HERDR_CONFIG_PATH": str(toml)})
            for name, (argv, ready, extra) in runs.items():
                outer = Outer(argv, {**env, **extra}, args.cols, args.rows)
                try:
                    results[name] = measure(outer, ready, args.keys)
                finally:
                    with contextlib.suppress(OSError):
                        quit_keys = b"\x15exit\r" if name == "ssh" else b"\x02d"
                        os.write(outer.master, quit_keys)
                    outer.drain(0.3, 5)
                    outer.close()
                time.sleep(0.2)
            machine.ssh(f"tmux -L {tmux_name} kill-server")
            if "herdr-local" in runs:
                stop = [sys.executable, "-m", "herdr", "server", "stop"]
                subprocess.run(stop, env=env, capture_output=True, timeout=20, check=False)
    finally:
        shutil.rmtree(local, ignore_errors=True)
    rtt = f", simulated RTT {args.rtt_ms:g} ms" if args.rtt_ms else ""
    print(f"remote echo latency over loopback sshd{rtt}, {args.cols}x{args.rows}, {args.keys} keys")
    for name, samples in results.items():
        p50, p99 = percentiles(samples)
        print(f"{name:<11} n={len(samples):4d}  p50 {p50:6.2f} ms  p99 {p99:6.2f} ms")
    if "herdr" in results and "ssh" in results:
        ratio = statistics.median(results["herdr"]) / statistics.median(results["ssh"])
        print(f"herdr --remote / ssh p50 ratio: {ratio:.2f}x (target <= 1.5x)")
    for mode in ("always", "never"):
        if f"herdr-{mode}" in results and "ssh" in results:
            ratio = statistics.median(results[f"herdr-{mode}"]) / statistics.median(results["ssh"])
            print(f"herdr --remote, predictive_echo={mode} / ssh p50 ratio: {ratio:.2f}x")
    if "herdr-local" in results and "herdr" in results:
        added = statistics.median(results["herdr"]) - statistics.median(results["herdr-local"])
        print(f"remote path adds (herdr - herdr-local p50): {added:.2f} ms")
    if "ssh+tmux" in results and "ssh" in results:
        ratio = statistics.median(results["ssh+tmux"]) / statistics.median(results["ssh"])
        print(f"ssh+tmux / ssh p50 ratio: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
