"""What an installed integration hook costs the agent per event, inside and outside herdr.

Run: ``.venv/bin/python bench/hook_cost.py [--target claude] [--runs 30] [--path P]``.

Installs the target's hook into a temporary HOME, then runs it as the agent would
(``bash '<script>' session`` with a SessionStart payload on stdin) ``--runs`` times
outside herdr (no ``HERDR_ENV``: the hook must return at once) and inside (a local
capture socket that answers ``ok``). Prints median and p90 wall time. ``--path`` is the
``PATH`` the hook sees: the hook runs ``python3`` from it, so a slow shim (pyenv) shows.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from herdr.integrations import install

SCRIPTS = {"claude": ".claude/hooks/herdr-agent-state.sh", "codex": ".codex/herdr-agent-state.sh"}


def _serve(server: socket.socket) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        with conn:
            conn.recv(65536)
            conn.sendall(b'{"id":"x","result":{"type":"ok"}}\n')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--target", choices=sorted(SCRIPTS), default="claude")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--path", default=os.environ.get("PATH", "/usr/bin:/bin"))
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hookcost", dir="/tmp"))
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        script = root / SCRIPTS[args.target]
        script.parent.mkdir(parents=True, exist_ok=True)
        install.install(args.target, {"HOME": str(root)})
        sock_path = root / "s.sock"
        server.bind(str(sock_path))
        server.listen(64)
        threading.Thread(target=_serve, args=(server,), daemon=True).start()
        payload = json.dumps({"session_id": "abc", "transcript_path": "/tmp/t.jsonl"})
        outside = {"PATH": args.path}
        inside = {**outside, "HERDR_ENV": "1", "HERDR_SOCKET_PATH": str(sock_path)}
        inside["HERDR_PANE_ID"] = "w1:p1"
        for name, env in (("outside herdr", outside), ("inside herdr", inside)):
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                subprocess.run(
                    ["bash", str(script), "session"], input=payload, text=True, env=env, check=True
                )
                times.append(time.perf_counter() - start)
            times.sort()
            median = times[len(times) // 2] * 1000
            p90 = times[int(len(times) * 0.9)] * 1000
            print(f"{args.target} hook {name}: median {median:.1f} ms, p90 {p90:.1f} ms")
    finally:
        server.close()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
