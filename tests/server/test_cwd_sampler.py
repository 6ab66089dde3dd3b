"""A pane's cwd: records read only the model, one sampler keeps the model current.

The rule (`runtime.cwd.working_dir` over `procfs.live_cwds`): the foreground job's cwd,
else the shell's, else the recorded one. `PaneHost.pane_record` (and the tab and
workspace records) must neither read /proc nor change the model; `CwdSampler.sample`
is the one place that records a change and publishes ``pane_updated``.

The first tests drive a `PaneHost` with real PTYs and no socket; the last goes
through a real server, its event stream and ``pane.get``.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from herdr.config.server_settings import ServerSettings
from herdr.runtime.events import EventBus, Subscriber, compile_subscription
from herdr.server.core import encode
from herdr.server.cwd_sampler import CwdSampler
from herdr.server.info import ServerInfo
from herdr.server.panes import PaneHost
from herdr.server.views import ViewedPanes
from herdr.terminal import procfs
from herdr_testing import ServerHandle, wait_until

WAIT_S = 30.0  # a safety net for a loaded machine, never a speed claim


async def until(predicate: Callable[[], bool], what: str) -> None:
    """Poll ``predicate`` on the loop (the PTY callbacks need it to run)."""
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.02)


def host_for(tmp: Path) -> PaneHost:
    info = ServerInfo(tmp / "herdr.sock", None, tmp, tmp)
    env = {"HOME": str(tmp), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SHELL": "/bin/sh"}
    return PaneHost(info, EventBus(encode), ServerSettings(), env, ViewedPanes())


def pane_updates(host: PaneHost, sub: Subscriber) -> list[dict[str, Any]]:
    docs = [json.loads(line) for line in host.bus.drain(sub)]
    return [d["data"]["pane"] for d in docs if d["event"] == "pane_updated"]


def test_records_are_pure_reads_and_the_sampler_records_a_cd(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()

    async def main() -> None:
        host = host_for(tmp_path)
        sampler = CwdSampler(host)
        sub, _ = host.bus.subscribe([compile_subscription({"type": "pane.updated"})])
        loc = host.session.create_workspace(str(tmp_path)).loc
        term = host.start(loc)
        pid = term.shell_pid
        assert pid is not None
        try:
            # the first look records where the shell is in front (foreground_cwd)...
            assert sampler.sample() == [loc.pane_id]
            assert [p["foreground_cwd"] for p in pane_updates(host, sub)] == [str(tmp_path)]
            assert sampler.sample() == []  # ...and then nothing moved: no event
            term.write(f"cd {work}\r".encode())
            await until(lambda: procfs.process_cwd(pid) == str(work), "the shell's cd")

            model = copy.deepcopy(host.session.workspaces)
            ws, tab = loc.workspace, loc.tab
            record = host.pane_record(loc)
            host.tab_record(ws, tab)
            host.workspace_record(ws)
            assert record["cwd"] == str(tmp_path)  # the record did not look in /proc
            assert host.session.workspaces == model  # and changed nothing
            assert pane_updates(host, sub) == []

            assert sampler.sample() == [loc.pane_id]
            assert loc.pane.cwd == str(work)
            assert [p["cwd"] for p in pane_updates(host, sub)] == [str(work)]
            assert host.pane_record(loc)["cwd"] == str(work)
            assert sampler.sample() == []  # told once
            assert pane_updates(host, sub) == []
        finally:
            await host.shutdown()

    asyncio.run(main())


def test_a_foreground_job_elsewhere_is_where_the_pane_works(tmp_path: Path) -> None:
    """The job's cwd while it runs in the foreground, the shell's once it is gone."""
    job = tmp_path / "job"
    job.mkdir()

    async def main() -> None:
        host = host_for(tmp_path)
        sampler = CwdSampler(host)
        loc = host.session.create_workspace(str(tmp_path)).loc
        term = host.start(loc)
        try:
            term.write(f"(cd {job} && exec sleep 30)\r".encode())
            await until(lambda: host.working_dir(loc) == str(job), "the foreground job")
            assert sampler.sample() == [loc.pane_id]
            assert host.pane_record(loc)["cwd"] == str(job)
            term.write(b"\x03")  # ^C ends the job: the shell is in front again
            await until(lambda: host.working_dir(loc) == str(tmp_path), "the shell again")
            assert sampler.sample() == [loc.pane_id]
            assert host.pane_record(loc)["cwd"] == str(tmp_path)
        finally:
            await host.shutdown()

    asyncio.run(main())


def test_an_exited_pane_keeps_its_last_cwd(tmp_path: Path) -> None:
    async def main() -> None:
        host = host_for(tmp_path)
        loc = host.session.create_workspace(str(tmp_path)).loc
        host.start(loc).write(b"exit\r")
        await until(lambda: not host.session.workspaces, "the pane to close")
        assert CwdSampler(host).sample() == []
        await host.shutdown()

    asyncio.run(main())


def _subscribe(path: Path, kinds: list[str]) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(WAIT_S)
    sock.connect(str(path))
    params = {"subscriptions": [{"type": kind} for kind in kinds]}
    sock.sendall(json.dumps({"id": "s", "method": "events.subscribe", "params": params}).encode())
    sock.sendall(b"\n")
    return sock


def _events(sock: socket.socket) -> Any:
    buf = b""
    while True:
        while b"\n" not in buf:
            chunk = sock.recv(65536)
            if not chunk:
                return
            buf += chunk
        line, buf = buf.split(b"\n", 1)
        yield json.loads(line)


def test_a_cd_reaches_subscribers_and_pane_get(herdr_server: ServerHandle) -> None:
    root = herdr_server.root
    sub = root / "sub"
    sub.mkdir()
    created = herdr_server.request("workspace.create", {"cwd": str(root)})["result"]
    pane = created["root_pane"]["pane_id"]
    sock = _subscribe(herdr_server.socket_path, ["pane.updated"])
    try:
        events = _events(sock)
        assert next(events)["result"]["type"] == "subscription_started"
        herdr_server.request("pane.send_text", {"pane_id": pane, "text": f"cd {sub}\r"})
        for doc in events:
            record = doc["data"]["pane"]
            if record["pane_id"] == pane and record.get("cwd") == str(sub):
                break
        else:
            raise AssertionError("the stream ended without a pane_updated for the cd")
        got = herdr_server.request("pane.get", {"pane_id": pane})["result"]["pane"]
        assert got["cwd"] == str(sub)
    finally:
        sock.close()


def test_the_foreground_processs_cwd_is_sampled_into_the_model(tmp_path: Path) -> None:
    """``foreground_cwd`` is the front process's own cwd: the job's while it runs, the
    shell's otherwise; records show what the sampler last recorded, nothing fresher."""
    job = tmp_path / "job"
    job.mkdir()

    async def main() -> None:
        host = host_for(tmp_path)
        sampler = CwdSampler(host)
        loc = host.session.create_workspace(str(tmp_path)).loc
        term = host.start(loc)
        try:
            assert "foreground_cwd" not in host.pane_record(loc)  # never sampled yet
            assert sampler.sample() == [loc.pane_id]  # the shell's own cwd: news
            assert host.pane_record(loc)["foreground_cwd"] == str(tmp_path)
            assert sampler.sample() == []  # told once
            term.write(f"(cd {job} && exec sleep 30)\r".encode())
            await until(lambda: host.sample_dirs(loc)[1] == str(job), "the foreground job")
            assert host.pane_record(loc)["foreground_cwd"] == str(tmp_path)  # pure read
            assert sampler.sample() == [loc.pane_id]
            assert host.pane_record(loc)["foreground_cwd"] == str(job)
            term.write(b"\x03")
            await until(lambda: host.sample_dirs(loc)[1] == str(tmp_path), "the shell again")
            assert sampler.sample() == [loc.pane_id]
            assert host.pane_record(loc)["foreground_cwd"] == str(tmp_path)
        finally:
            await host.shutdown()

    asyncio.run(main())


def test_foreground_cwd_follows_a_cd_on_a_real_server(herdr_server: ServerHandle) -> None:
    root = herdr_server.root
    sub = root / "fg"
    sub.mkdir()
    created = herdr_server.request("workspace.create", {"cwd": str(root)})["result"]
    pane = created["root_pane"]["pane_id"]
    herdr_server.request("pane.send_text", {"pane_id": pane, "text": f"cd {sub}\r"})

    def record() -> dict[str, Any]:
        got: dict[str, Any] = herdr_server.request("pane.get", {"pane_id": pane})["result"]
        return dict(got["pane"])

    wait_until(lambda: record().get("foreground_cwd") == str(sub), message="foreground_cwd")
