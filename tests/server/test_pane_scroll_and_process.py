"""Live pane fields herdr fills: ``scroll`` in PaneInfo, ``cmdline`` in process info.

``scroll`` is the emulator's viewport state (PaneScrollInfo); ``cmdline`` is the
process's /proc cmdline joined by spaces (a string in protocol 22; ``argv`` is the
list). Both on a real server and a real shell.
"""

from __future__ import annotations

from typing import Any

from herdr_testing import ServerHandle, wait_until


def ok(server: ServerHandle, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = server.request(method, params)
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


def new_pane(server: ServerHandle) -> str:
    created = ok(server, "workspace.create", {"cwd": str(server.root)})
    return str(created["root_pane"]["pane_id"])


def test_pane_get_has_scroll_at_the_bottom(herdr_server: ServerHandle) -> None:
    pane = new_pane(herdr_server)
    ok(herdr_server, "pane.send_text", {"pane_id": pane, "text": "seq 1 300\r"})

    def scrolled() -> dict[str, Any] | None:
        scroll: dict[str, Any] = ok(herdr_server, "pane.get", {"pane_id": pane})["pane"]["scroll"]
        return scroll if scroll["max_offset_from_bottom"] > 0 else None

    scroll = wait_until(scrolled, message="output to reach the scrollback")
    assert scroll is not None
    assert set(scroll) == {"offset_from_bottom", "max_offset_from_bottom", "viewport_rows"}
    assert scroll["offset_from_bottom"] == 0  # following output
    assert scroll["viewport_rows"] > 0
    listed = ok(herdr_server, "pane.list", {})["panes"]
    assert all("scroll" in p for p in listed)


def test_process_info_entries_carry_cmdline(herdr_server: ServerHandle) -> None:
    pane = new_pane(herdr_server)

    def front() -> list[dict[str, Any]] | None:
        info = ok(herdr_server, "pane.process_info", {"pane_id": pane})["process_info"]
        procs: list[dict[str, Any]] = info.get("foreground_processes") or []
        return procs or None

    procs = wait_until(front, message="the shell in front")
    assert procs is not None
    for proc in procs:
        assert isinstance(proc["cmdline"], str)
        assert proc["cmdline"] == " ".join(proc["argv"])
    ok(herdr_server, "pane.send_text", {"pane_id": pane, "text": "exec sleep 31\r"})

    def sleeping() -> dict[str, Any] | None:
        for proc in front() or []:
            if proc.get("cmdline") == "sleep 31":
                return proc
        return None

    sleeper = wait_until(sleeping, message="sleep 31 in front")
    assert sleeper is not None
    assert sleeper["argv"] == ["sleep", "31"]
