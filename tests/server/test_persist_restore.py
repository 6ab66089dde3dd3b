"""Nothing is lost across a server restart: real servers in a private HOME/XDG tree.

herdr-spec §6 and §10 scenarios 37/38: ``server stop`` then start brings back the same
workspaces, tabs, panes, ids, labels, layout and directories with fresh shells;
pane history only with ``[experimental] pane_history``; unusable files are backed
up and the server starts empty; a failing data dir is logged once.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import time
from pathlib import Path
from typing import Any

from herdr.persist import snapshot as snap
from herdr_testing import HerdrEnv, Server, wait_until

Snapshot = dict[str, Any]


def data_dir(h: HerdrEnv) -> Path:
    return Path(h.env["XDG_CONFIG_HOME"]) / "herdr"


def saved_bytes(h: HerdrEnv) -> bytes:
    path = data_dir(h) / "session.json"
    return path.read_bytes() if path.exists() else b""


def server_log(h: HerdrEnv) -> str:
    path = Path(h.env["XDG_STATE_HOME"]) / "herdr" / "server.log"
    return path.read_text(errors="replace") if path.exists() else ""


def ok(server: Server, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = server.request(method, params)
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


def model_view(server: Server) -> Snapshot:
    """``session.snapshot`` without what a restart legitimately changes."""
    doc = ok(server, "session.snapshot", {})["snapshot"]
    for pane in doc["panes"]:
        pane.pop("terminal_id", None)
        pane.pop("revision", None)
        pane.pop("scroll", None)  # live: the new shell's screen
        pane.pop("foreground_cwd", None)  # live: sampled again after the restart
    doc.pop("agents", None)
    return dict(doc)


def shell_pid(server: Server, pane_id: str) -> int:
    info = ok(server, "pane.process_info", {"pane_id": pane_id})["process_info"]
    return int(info["shell_pid"])


def stop_cli(h: HerdrEnv, server: Server) -> None:
    done = h.cli("server", "stop")
    assert done.returncode == 0, done.stderr
    assert server.proc.wait(20) == 0


def type_line(server: Server, pane_id: str, line: str) -> None:
    ok(server, "pane.send_text", {"pane_id": pane_id, "text": line + "\r"})


def screen(server: Server, pane_id: str, source: str = "recent") -> str:
    read = ok(server, "pane.read", {"pane_id": pane_id, "source": source, "lines": 200})
    return str(read["read"]["text"])


def pane_cwd(server: Server, pane_id: str) -> str:
    return str(ok(server, "pane.get", {"pane_id": pane_id})["pane"]["cwd"])


def test_scenario_37_stop_and_restart_restores_workspace(herdr_env: HerdrEnv) -> None:
    """W labelled keep, cwd $T/p, one split; server stop; restart: session.json
    exists; same W, label, pane ids, cwd; new shell PIDs."""
    h = herdr_env
    work = h.root / "p"
    work.mkdir()
    server = h.start_server()
    ws = ok(server, "workspace.create", {"cwd": str(work), "label": "keep"})
    root = ws["root_pane"]["pane_id"]
    split = ok(server, "pane.split", {"target_pane_id": root, "direction": "right"})
    other = split["pane"]["pane_id"]
    pids = {p: shell_pid(server, p) for p in (root, other)}
    stop_cli(h, server)

    assert (data_dir(h) / "session.json").is_file()
    again = h.start_server()
    listing = ok(again, "workspace.list", {})["workspaces"]
    assert [(w["workspace_id"], w["label"]) for w in listing] == [
        (ws["workspace"]["workspace_id"], "keep")
    ]
    panes = ok(again, "pane.list", {})["panes"]
    assert sorted(p["pane_id"] for p in panes) == sorted([root, other])
    assert {p["cwd"] for p in panes} == {str(work)}
    for pane_id, old_pid in pids.items():
        new_pid = shell_pid(again, pane_id)
        assert new_pid != old_pid
        assert os.readlink(f"/proc/{new_pid}/cwd") == str(work)


def test_scenario_38_history_file_only_with_pane_history(herdr_env: HerdrEnv) -> None:
    """Default config: no session-history.json; pane_history=true: present (0600), and
    the saved screen comes back in the restored pane's scrollback. Turning the option
    off again removes the file."""
    h = herdr_env
    history = data_dir(h) / "session-history.json"
    server = h.start_server()
    pane = ok(server, "workspace.create", {"cwd": str(h.root)})["root_pane"]["pane_id"]
    stop_cli(h, server)
    assert (data_dir(h) / "session.json").is_file()
    assert not history.exists()

    (data_dir(h) / "config.toml").write_text("[experimental]\npane_history = true\n")
    server = h.start_server()
    type_line(server, pane, "echo HIST_$((6*7))_MARK")
    wait_until(lambda: "HIST_42_MARK" in screen(server, pane), message="echo output")
    stop_cli(h, server)
    assert history.is_file()
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
    doc = json.loads(history.read_text())
    assert "HIST_42_MARK" in doc["panes"][pane]["ansi"]

    server = h.start_server()
    assert "HIST_42_MARK" in screen(server, pane)
    stop_cli(h, server)

    (data_dir(h) / "config.toml").write_text("[experimental]\npane_history = false\n")
    server = h.start_server()
    assert not history.exists()
    assert "HIST_42_MARK" not in screen(server, pane)
    stop_cli(h, server)
    assert not history.exists()


def test_full_layout_round_trip_with_live_cwd(herdr_env: HerdrEnv) -> None:
    """Several workspaces, tabs, splits, labels, zoom, focus, ratios: all identical
    after stop + start; the cwd saved is the shell's live one (after a ``cd``), and
    new panes keep numbering after the restored ones."""
    h = herdr_env
    a, b, sub = h.root / "a", h.root / "b", h.root / "a" / "sub"
    sub.mkdir(parents=True)
    b.mkdir()
    server = h.start_server()
    w1 = ok(server, "workspace.create", {"cwd": str(a), "label": "alpha"})
    p1 = w1["root_pane"]["pane_id"]
    p2 = ok(server, "pane.split", {"target_pane_id": p1, "direction": "down", "ratio": 0.3})
    p2_id = p2["pane"]["pane_id"]
    ok(server, "pane.split", {"target_pane_id": p2_id, "direction": "right"})
    ok(server, "pane.rename", {"pane_id": p1, "label": "editor"})
    w2 = ok(server, "workspace.create", {"cwd": str(b), "label": "beta", "focus": True})
    w2_id = w2["workspace"]["workspace_id"]
    t2 = ok(server, "tab.create", {"workspace_id": w2_id, "label": "logs"})
    t2_pane = t2["root_pane"]["pane_id"]
    ok(server, "pane.split", {"target_pane_id": t2_pane, "direction": "right"})
    ok(server, "pane.zoom", {"pane_id": t2_pane, "mode": "on"})
    ok(
        server,
        "workspace.close",
        {"workspace_id": ok(server, "workspace.create", {})["workspace"]["workspace_id"]},
    )
    type_line(server, p2_id, f"cd {sub}")
    wait_until(lambda: pane_cwd(server, p2_id) == str(sub), message="cd in pane")
    before = model_view(server)
    stop_cli(h, server)

    again = h.start_server()
    after = model_view(again)
    assert after == before
    assert pane_cwd(again, p2_id) == str(sub)
    assert pane_cwd(again, p1) == str(a)
    # counters survive: no id is reused
    w3 = ok(again, "workspace.create", {"cwd": str(b)})
    assert w3["workspace"]["workspace_id"] == "w4"
    split = ok(again, "pane.split", {"target_pane_id": p1, "direction": "right"})
    assert split["pane"]["pane_id"] == "w1:p4"


def test_restart_after_every_process_died(herdr_env: HerdrEnv) -> None:
    """As after a reboot: the server is frozen, every pane shell is SIGKILLed, then the
    server is SIGKILLed (it never sees the panes exit); a restart restores the saved
    layout with fresh shells."""
    h = herdr_env
    server = h.start_server(env={"HERDR_TEST_PERSIST_TIMING": "debounce=0.02,sample=0.2"})
    ws = ok(server, "workspace.create", {"cwd": str(h.root), "label": "boot"})
    root = ws["root_pane"]["pane_id"]
    ok(server, "pane.split", {"target_pane_id": root, "direction": "right"})
    ok(server, "tab.create", {"workspace_id": ws["workspace"]["workspace_id"]})
    before = model_view(server)
    wait_until(
        lambda: (
            (data_dir(h) / "session.json").is_file()
            and len(list(_saved_pane_ids(data_dir(h)))) == 3
        ),
        message="debounced save",
    )
    shells = [shell_pid(server, p["pane_id"]) for p in before["panes"]]
    os.kill(server.pid, signal.SIGSTOP)
    for pid in shells:
        os.kill(pid, signal.SIGKILL)
    os.kill(server.pid, signal.SIGKILL)
    server.proc.wait(10)

    again = h.start_server()
    assert model_view(again) == before
    for pane in before["panes"]:
        assert shell_pid(again, pane["pane_id"]) not in shells


def _saved_pane_ids(directory: Path) -> list[str]:
    try:
        doc = snap.decode((directory / "session.json").read_bytes())
    except Exception:
        return []
    out: list[str] = []
    for ws in doc.workspaces:
        for tab in ws.tabs:
            out.extend(f"{ws.id}:p{ws.public_pane_numbers[k]}" for k in tab.panes)
    return out


def test_vanished_cwd_falls_back_to_home_and_is_logged(herdr_env: HerdrEnv) -> None:
    h = herdr_env
    gone = h.root / "gone"
    gone.mkdir()
    server = h.start_server()
    pane = ok(server, "workspace.create", {"cwd": str(gone)})["root_pane"]["pane_id"]
    stop_cli(h, server)
    shutil.rmtree(gone)
    again = h.start_server()
    home = h.env["HOME"]
    assert pane_cwd(again, pane) == home
    assert os.readlink(f"/proc/{shell_pid(again, pane)}/cwd") == home
    log = server_log(h)
    assert "persist.cwd_fallback" in log
    assert str(gone) in log


def _start_with_file(h: HerdrEnv, data: bytes) -> Server:
    path = data_dir(h) / "session.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return h.start_server()


def test_corrupt_file_is_backed_up_and_server_starts_empty(herdr_env: HerdrEnv) -> None:
    h = herdr_env
    garbage = b'{"version": 1, "workspaces": [tru'
    server = _start_with_file(h, garbage)
    assert ok(server, "workspace.list", {})["workspaces"] == []
    backups = list((data_dir(h) / "session-backups").iterdir())
    assert len(backups) == 1
    assert backups[0].read_bytes() == garbage
    assert "corrupt" in backups[0].name
    assert "persist.backup" in server_log(h)
    # the server works, and the next save writes a good file
    ok(server, "workspace.create", {"cwd": str(h.root), "label": "fresh"})
    stop_cli(h, server)
    doc = snap.decode((data_dir(h) / "session.json").read_bytes())
    assert [w.custom_name for w in doc.workspaces] == ["fresh"]


def test_backups_keep_newest_three(herdr_env: HerdrEnv) -> None:
    h = herdr_env
    for i in range(5):
        server = _start_with_file(h, f"not json {i}".encode())
        server.stop()
    backups = sorted((data_dir(h) / "session-backups").iterdir())
    assert [p.read_bytes() for p in backups] == [b"not json 2", b"not json 3", b"not json 4"]


def test_file_from_newer_version_is_backed_up_not_overwritten_silently(
    herdr_env: HerdrEnv,
) -> None:
    h = herdr_env
    newer = json.dumps({"version": snap.SNAPSHOT_VERSION + 7, "workspaces": "future"}).encode()
    server = _start_with_file(h, newer)
    assert ok(server, "workspace.list", {})["workspaces"] == []
    backups = list((data_dir(h) / "session-backups").iterdir())
    assert [p.read_bytes() for p in backups] == [newer]
    assert "newer" in backups[0].name
    assert "newer herdr" in server_log(h)


def test_failing_data_dir_keeps_server_running_logs_once_and_keeps_last_good_file(
    herdr_env: HerdrEnv,
) -> None:
    """Tests run as root, where chmod cannot make a directory read-only; the failure is
    injected by putting a directory where the atomic write's temp file must go
    (``session.json.tmp``), so every save fails with EISDIR, as on a read-only disk."""
    h = herdr_env
    timing = {"HERDR_TEST_PERSIST_TIMING": "debounce=0.02,retry=0.1,sample=0.1"}
    server = h.start_server(env=timing)
    ok(server, "workspace.create", {"cwd": str(h.root), "label": "good"})
    path = data_dir(h) / "session.json"
    wait_until(lambda: path.is_file() and b"good" in path.read_bytes(), message="first save")
    last_good = path.read_bytes()
    blocker = data_dir(h) / "session.json.tmp"
    blocker.mkdir()
    for i in range(5):
        ok(server, "workspace.create", {"cwd": str(h.root), "label": f"lost{i}"})
    wait_until(lambda: server_log(h).count("persist.save_failed") >= 1, message="failure log")
    ok(server, "workspace.create", {"cwd": str(h.root), "label": "more"})
    # a sleep is right here: it proves something does NOT happen (no second failure log
    # line while several retries, retry=0.1, fail meanwhile); nothing to wait for
    time.sleep(0.6)
    assert server.alive()
    assert server_log(h).count("persist.save_failed") == 1
    assert path.read_bytes() == last_good
    # the disk recovers: saving resumes and the recovery is logged once
    blocker.rmdir()
    wait_until(lambda: b"more" in path.read_bytes(), message="save after recovery")
    wait_until(lambda: "persist.save_recovered" in server_log(h), message="recovery log")
    # a sleep is right here: it proves the recovery is NOT logged a second time
    time.sleep(0.3)
    assert server_log(h).count("persist.save_recovered") == 1
    assert server_log(h).count("persist.save_failed") == 1


def test_timing_override_is_parsed_leniently() -> None:
    """The test-only ``HERDR_TEST_PERSIST_TIMING`` hook: known names with sane values
    override the defaults; anything else is ignored."""
    from herdr.server.persistence import TIMING_ENV, Timing, timing_from_env

    assert timing_from_env({}) == Timing()
    parsed = timing_from_env({TIMING_ENV: "debounce=0.02, retry=0.5,sample=x,bogus=1,max_delay=-1"})
    assert parsed == Timing(debounce=0.02, retry=0.5)


def test_cwd_change_is_saved_without_a_stop_and_survives_sigkill(herdr_env: HerdrEnv) -> None:
    """The slow sampler notices a ``cd`` in an idle shell and a debounced save writes
    it, so even a SIGKILLed server restores the new directory."""
    h = herdr_env
    sub = h.root / "moved"
    sub.mkdir()
    server = h.start_server(env={"HERDR_TEST_PERSIST_TIMING": "debounce=0.02,sample=0.1"})
    pane = ok(server, "workspace.create", {"cwd": str(h.root)})["root_pane"]["pane_id"]
    type_line(server, pane, f"cd {sub}")
    wait_until(
        lambda: str(sub).encode() in saved_bytes(h),
        message="sampled cwd saved",
    )
    os.kill(server.pid, signal.SIGKILL)
    server.proc.wait(10)
    again = h.start_server()
    assert pane_cwd(again, pane) == str(sub)


def test_saved_cwd_is_the_foreground_process_cwd(herdr_env: HerdrEnv) -> None:
    """A foreground job running elsewhere than its shell (a subshell that cd'd and
    exec'd a long command): the saved cwd is the job's."""
    h = herdr_env
    job_dir = h.root / "job"
    job_dir.mkdir()
    server = h.start_server()
    pane = ok(server, "workspace.create", {"cwd": str(h.root)})["root_pane"]["pane_id"]
    type_line(server, pane, f"(cd {job_dir} && exec sleep 30)")

    def job_runs() -> bool:
        info = ok(server, "pane.process_info", {"pane_id": pane})["process_info"]
        return any(p.get("cwd") == str(job_dir) for p in info.get("foreground_processes", []))

    wait_until(job_runs, message="foreground job")
    stop_cli(h, server)
    doc = snap.decode((data_dir(h) / "session.json").read_bytes())
    assert [p.cwd for p in doc.workspaces[0].tabs[0].panes.values()] == [str(job_dir)]
