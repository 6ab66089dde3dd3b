"""Crash safety: SIGKILL the server at random moments during a burst of layout changes.

50 trials, one server each: a client thread changes the layout as fast as it can
while the test kills the server after a random delay. Every time, ``session.json``
must decode, and the next server (which is the following trial's victim) must come
back with exactly the layout that file holds. Save timings are shortened through
``HERDR_TEST_PERSIST_TIMING`` so writes are in flight when the kill lands.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

from herdr.persist import snapshot as snap
from herdr.runtime import ids
from herdr.runtime import layout as lay
from herdr_testing import HerdrEnv, Server, wait_until

TRIALS = 50
TIME_BUDGET_S = 240.0  # safety net for the whole test on a loaded 2-core machine
TIMING = {"HERDR_TEST_PERSIST_TIMING": "debounce=0.005,max_delay=0.05,sample=0.1"}
Layout = dict[str, Any]


def expected_layout(data: bytes) -> Layout:
    """What a restore of `data` must show: workspaces (custom labels) and, per tab,
    its pane ids in layout order."""
    doc = snap.decode(data)
    workspaces = {ws.id: ws.custom_name for ws in doc.workspaces}
    tabs: dict[str, list[str]] = {}
    for ws in doc.workspaces:
        for index, tab in enumerate(ws.tabs):
            tab_id = ids.tab_id(ws.id, ws.public_tab_numbers[index])
            tabs[tab_id] = [
                ids.pane_id(ws.id, ws.public_pane_numbers[key]) for key in lay.leaves(tab.layout)
            ]
    return {"workspaces": workspaces, "tabs": tabs}


def live_layout(server: Server) -> Layout:
    doc = server.request("session.snapshot", {})["result"]["snapshot"]
    labels = {w["workspace_id"]: w["label"] for w in doc["workspaces"]}
    tabs = {t["tab_id"]: [p["pane_id"] for p in t["panes"]] for t in doc["layouts"]}
    return {"workspaces": labels, "tabs": tabs}


def matches(live: Layout, want: Layout) -> bool:
    if live["tabs"] != want["tabs"] or set(live["workspaces"]) != set(want["workspaces"]):
        return False
    return all(
        custom is None or live["workspaces"][ws_id] == custom
        for ws_id, custom in want["workspaces"].items()
    )


def burst(server: Server, rng: random.Random, root: Path, stop: threading.Event) -> None:
    """Random layout changes until the server dies or `stop` is set."""
    while not stop.is_set():
        try:
            doc = server.request("session.snapshot", {})["result"]["snapshot"]
            panes = [p["pane_id"] for p in doc["panes"]]
            workspaces = [w["workspace_id"] for w in doc["workspaces"]]
            op = rng.choice(["split", "split", "close", "workspace", "rename", "zoom", "tab"])
            if op == "workspace" or not panes:
                if len(workspaces) < 4:
                    server.request("workspace.create", {"cwd": str(root)})
            elif op == "split" and len(panes) < 8:
                direction = rng.choice(["right", "down"])
                target = rng.choice(panes)
                server.request("pane.split", {"target_pane_id": target, "direction": direction})
            elif op == "close" and len(panes) > 1:
                server.request("pane.close", {"pane_id": rng.choice(panes)})
            elif op == "rename":
                label = f"l{rng.randrange(1000)}"
                server.request(
                    "workspace.rename", {"workspace_id": rng.choice(workspaces), "label": label}
                )
            elif op == "zoom":
                server.request("pane.zoom", {"pane_id": rng.choice(panes)})
            elif op == "tab" and len(panes) < 8:
                server.request("tab.create", {"workspace_id": rng.choice(workspaces)})
        except (OSError, ValueError, KeyError):
            return  # the server was killed mid-request


def test_sigkill_during_layout_burst_never_loses_a_readable_snapshot(
    herdr_env: HerdrEnv,
) -> None:
    h = herdr_env
    rng = random.Random(int(os.environ.get("HERDR_CRASH_SEED", "1234")))
    path = Path(h.env["XDG_CONFIG_HOME"]) / "herdr" / "session.json"
    server = h.start_server(env=TIMING)
    server.request("workspace.create", {"cwd": str(h.root), "label": "seed"})
    wait_until(path.is_file, message="first save")
    started = time.monotonic()
    seen: list[Layout] = []
    for trial in range(TRIALS):
        assert time.monotonic() - started < TIME_BUDGET_S, f"only {trial} trials in budget"
        stop = threading.Event()
        worker = threading.Thread(target=burst, args=(server, rng, h.root, stop), daemon=True)
        worker.start()
        # a sleep is the point here: the kill must land at a random moment of the burst
        time.sleep(rng.uniform(0.0, 0.25))
        os.kill(server.pid, signal.SIGKILL)
        server.proc.wait(10)
        stop.set()
        worker.join(10)
        data = path.read_bytes()
        want = expected_layout(data)  # raises if the file is torn or invalid
        assert not path.with_name("session.json.tmp").is_dir()
        server = h.start_server(env=TIMING)
        live = live_layout(server)
        assert matches(live, want), f"trial {trial}: restored {live}, saved {want}"
        if want not in seen:
            seen.append(want)
    # the bursts really changed what was on disk between kills (not a vacuous pass)
    assert len(seen) >= TRIALS // 3, f"only {len(seen)} distinct saved layouts"
    with contextlib.suppress(Exception):
        server.stop()
