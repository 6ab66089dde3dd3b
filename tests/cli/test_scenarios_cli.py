"""herdr-spec §10 acceptance scenarios through the real CLI against a real server."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import herdr
from herdr_testing import HerdrEnv, ServerHandle, wait_until


def ok(server: ServerHandle | HerdrEnv, *args: str, **kwargs: Any) -> dict[str, Any]:
    result = server.cli(*args, **kwargs)
    assert result.returncode == 0, f"{args}: {result.stderr}"
    doc: dict[str, Any] = json.loads(result.stdout)
    assert doc["id"].startswith("cli:")
    return doc["result"]  # type: ignore[no-any-return]


def err(server: ServerHandle | HerdrEnv, *args: str) -> str:
    result = server.cli(*args)
    assert result.returncode == 1, f"{args}: rc={result.returncode} {result.stdout}"
    assert result.stdout == ""
    return str(json.loads(result.stderr)["error"]["code"])


def silent(server: ServerHandle, *args: str) -> None:
    result = server.cli(*args)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""


@pytest.fixture
def project(herdr_server: ServerHandle) -> Path:
    path = herdr_server.root / "p"
    path.mkdir()
    return path


@pytest.fixture
def ws(herdr_server: ServerHandle, project: Path) -> str:
    """Scenario 5: ``workspace create --cwd $T/p --label api --no-focus``."""
    created = ok(
        herdr_server, "workspace", "create", "--cwd", str(project), "--label", "api", "--no-focus"
    )
    assert created["type"] == "workspace_created"
    workspace = created["workspace"]
    assert workspace["workspace_id"] == "w1"
    assert workspace["label"] == "api"
    assert workspace["tab_count"] == workspace["pane_count"] == 1
    assert created["tab"]["tab_id"] == "w1:t1"
    assert created["root_pane"]["pane_id"] == "w1:p1"
    return str(workspace["workspace_id"])


def test_1_no_server_is_server_not_running(herdr_env: HerdrEnv) -> None:
    assert err(herdr_env, "workspace", "list") == "server_not_running"


def test_4_workspace_list_empty(herdr_server: ServerHandle) -> None:
    assert ok(herdr_server, "workspace", "list") == {"type": "workspace_list", "workspaces": []}


def test_5_to_8_create_rename_tab_split(herdr_server: ServerHandle, ws: str) -> None:
    ok(herdr_server, "workspace", "rename", ws, "web")
    got = ok(herdr_server, "workspace", "get", ws)
    assert got["type"] == "workspace_info"
    assert got["workspace"]["label"] == "web"

    tab = ok(herdr_server, "tab", "create", "--workspace", ws, "--label", "logs")
    assert tab["tab"]["tab_id"] == f"{ws}:t2"
    assert tab["root_pane"]["pane_id"] == f"{ws}:p2"

    split = ok(herdr_server, "pane", "split", f"{ws}:p1", "--direction", "right", "--no-focus")
    assert split["pane"]["pane_id"] == f"{ws}:p3"
    layout = ok(herdr_server, "pane", "layout", "--pane", f"{ws}:p1")["layout"]
    assert len(layout["panes"]) == 2
    assert [s["direction"] for s in layout["splits"]] == ["right"]


def test_10_wait_output_times_out(herdr_server: ServerHandle, ws: str) -> None:
    assert (
        err(herdr_server, "pane", "wait-output", f"{ws}:p1", "--match", "nope", "--timeout", "500")
        == "timeout"
    )


def test_12_and_14_send_text_keys(herdr_server: ServerHandle, ws: str) -> None:
    pane = ok(herdr_server, "pane", "split", f"{ws}:p1", "--direction", "right")["pane"]["pane_id"]
    silent(herdr_server, "pane", "send-text", pane, "echo zz9")
    ok(
        herdr_server,
        "pane",
        "wait-output",
        pane,
        "--source",
        "visible",
        "--match",
        "echo zz9",
        "--timeout",
        "10000",
    )
    visible = herdr_server.cli("pane", "read", pane, "--source", "visible").stdout
    assert "echo zz9" in visible
    assert "zz9" not in [line.strip() for line in visible.splitlines()]  # typed, not run
    assert err(herdr_server, "pane", "send-keys", pane, "notakey") == "invalid_key"
    silent(herdr_server, "pane", "send-keys", pane, "enter")
    matched = ok(
        herdr_server, "pane", "wait-output", pane, "--regex", "^zz9$", "--timeout", "10000"
    )
    assert matched["type"] == "output_matched"
    assert matched["matched_line"] == "zz9"


def test_14_bad_key_rejects_the_whole_call(herdr_server: ServerHandle, ws: str) -> None:
    pane = f"{ws}:p1"
    before = ok(herdr_server, "pane", "get", pane)["pane"]["revision"]
    assert err(herdr_server, "pane", "send-keys", pane, "x", "notakey") == "invalid_key"
    assert ok(herdr_server, "pane", "get", pane)["pane"]["revision"] == before


def test_15_pane_environment(herdr_server: ServerHandle, ws: str) -> None:
    pane = ok(herdr_server, "pane", "split", f"{ws}:p1", "--direction", "right")["pane"]["pane_id"]
    silent(
        herdr_server,
        "pane",
        "run",
        pane,
        'echo "E=$HERDR_ENV|$HERDR_PANE_ID|$HERDR_TAB_ID|$HERDR_WORKSPACE_ID|S=$HERDR_SOCKET_PATH"',
    )
    want = f"E=1|{pane}|{ws}:t1|{ws}|S={herdr_server.socket_path}"
    matched = ok(herdr_server, "pane", "wait-output", pane, "--match", want, "--timeout", "10000")
    assert matched["matched_line"].strip() == want


def test_pane_environment_names_herdr_as_the_terminal_program(
    herdr_server: ServerHandle, ws: str
) -> None:
    """The outer terminal's TERM_PROGRAM must not leak into panes: herdr is their terminal."""
    pane = f"{ws}:p1"
    silent(herdr_server, "pane", "run", pane, 'echo "T=$TERM_PROGRAM|V=$TERM_PROGRAM_VERSION"')
    want = f"T=herdr|V={herdr.__version__}"
    matched = ok(herdr_server, "pane", "wait-output", pane, "--match", want, "--timeout", "10000")
    assert matched["matched_line"].strip() == want


def test_env_flag_passes_through_but_managed_vars_win(
    herdr_server: ServerHandle, project: Path
) -> None:
    created = ok(
        herdr_server,
        "workspace",
        "create",
        "--cwd",
        str(project),
        "--env",
        "FOO=bar",
        "--env",
        "HERDR_PANE_ID=spoofed",
    )
    pane = created["root_pane"]["pane_id"]
    silent(herdr_server, "pane", "run", pane, 'echo "V=$FOO/$HERDR_PANE_ID"')
    ok(herdr_server, "pane", "wait-output", pane, "--match", f"V=bar/{pane}", "--timeout", "10000")


def test_17_cwd(herdr_server: ServerHandle, ws: str, project: Path) -> None:
    silent(herdr_server, "pane", "run", f"{ws}:p1", "pwd")
    ok(
        herdr_server,
        "pane",
        "wait-output",
        f"{ws}:p1",
        "--regex",
        f"^{project}$",
        "--timeout",
        "10000",
    )
    assert ok(herdr_server, "pane", "get", f"{ws}:p1")["pane"]["cwd"] == str(project)


def test_relative_cwd_is_expanded_by_cli(herdr_server: ServerHandle, project: Path) -> None:
    created = ok(herdr_server, "workspace", "create", "--cwd", "p", cwd=herdr_server.root)
    assert created["root_pane"]["cwd"] == str(project)
    bad = herdr_server.cli("workspace", "create", "--cwd", str(project / "missing"))
    assert json.loads(bad.stderr)["error"]["code"] == "invalid_params"


def test_20_closing_last_tab_closes_workspace(herdr_server: ServerHandle, ws: str) -> None:
    w2 = ok(herdr_server, "workspace", "create")["workspace"]["workspace_id"]
    assert ok(herdr_server, "tab", "close", f"{w2}:t1") == {"type": "ok"}
    assert err(herdr_server, "workspace", "get", w2) == "workspace_not_found"
    ids = [w["workspace_id"] for w in ok(herdr_server, "workspace", "list")["workspaces"]]
    assert ids == [ws]


def test_21_zoom(herdr_server: ServerHandle, ws: str) -> None:
    single = ok(herdr_server, "pane", "zoom", f"{ws}:p1", "--on")["zoom"]
    assert single["zoomed"] is False
    assert single["reason"] == "single_pane"
    ok(herdr_server, "pane", "split", f"{ws}:p1", "--direction", "right")
    assert ok(herdr_server, "pane", "zoom", f"{ws}:p1", "--on")["zoom"]["zoomed"] is True
    assert ok(herdr_server, "pane", "zoom", f"{ws}:p1", "--off")["zoom"]["zoomed"] is False


def test_22_swap(herdr_server: ServerHandle, ws: str) -> None:
    a = f"{ws}:p1"
    lone = ok(herdr_server, "pane", "swap", "--pane", a, "--direction", "right")["swap"]
    assert lone["changed"] is False and lone["reason"] == "no_neighbor"
    b = ok(herdr_server, "pane", "split", a, "--direction", "right")["pane"]["pane_id"]
    swap = ok(herdr_server, "pane", "swap", "--pane", a, "--direction", "right")["swap"]
    assert swap["changed"] is True
    rects = {p["pane_id"]: p["rect"] for p in swap["layout"]["panes"]}
    assert set(rects) == {a, b}
    assert rects[a]["x"] > rects[b]["x"]


def test_23_resize(herdr_server: ServerHandle, ws: str) -> None:
    a = f"{ws}:p1"
    ok(herdr_server, "pane", "split", a, "--direction", "right")
    before = ok(herdr_server, "pane", "layout", "--pane", a)["layout"]["splits"][0]["ratio"]
    resize = ok(
        herdr_server, "pane", "resize", "--pane", a, "--direction", "right", "--amount", "0.1"
    )["resize"]
    assert resize["changed"] is True
    assert resize["layout"]["splits"][0]["ratio"] == pytest.approx(before + 0.1)


def test_35_named_session_is_separate(herdr_env: HerdrEnv) -> None:
    herdr_env.start_server()
    work = herdr_env.start_server(env={"HERDR_SESSION": "work"})
    assert work.socket_path.parent == Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr/sessions/work"
    ok(herdr_env, "--session", "work", "workspace", "create", "--label", "x")
    labels = [w["label"] for w in ok(herdr_env, "workspace", "list")["workspaces"]]
    assert "x" not in labels
    work_labels = [
        w["label"] for w in ok(herdr_env, "--session", "work", "workspace", "list")["workspaces"]
    ]
    assert work_labels == ["x"]
    sessions = json.loads(herdr_env.cli("session", "list", "--json").stdout)["sessions"]
    assert [(s["name"], s["default"], s["running"]) for s in sessions] == [
        ("default", True, True),
        ("work", False, True),
    ]


def test_pane_read_sources(herdr_server: ServerHandle, ws: str) -> None:
    pane = f"{ws}:p1"
    silent(herdr_server, "pane", "run", pane, "printf 'alpha\\nbeta\\n'")
    ok(herdr_server, "pane", "wait-output", pane, "--regex", "^beta$", "--timeout", "10000")
    for source in ("visible", "recent", "recent-unwrapped", "detection"):
        out = herdr_server.cli("pane", "read", pane, "--source", source)
        assert out.returncode == 0
        assert "beta" in out.stdout, source
    ansi = herdr_server.cli("pane", "read", pane, "--source", "visible", "--ansi").stdout
    assert "beta" in ansi
    raw = ok(herdr_server, "api", "snapshot")["snapshot"]
    assert raw["focused_pane_id"] == pane
    assert [p["pane_id"] for p in raw["panes"]] == [pane]


def test_pane_process_exit_closes_pane(herdr_server: ServerHandle, ws: str) -> None:
    second = ok(herdr_server, "pane", "split", f"{ws}:p1", "--direction", "down")["pane"]["pane_id"]
    silent(herdr_server, "pane", "run", second, "exit")
    waited = herdr_server.request(
        "events.wait",
        {
            "match_event": {"event": "pane_closed", "pane_id": second},
            "timeout_ms": 10000,
            "since_seq": 0,
        },
    )
    assert waited["result"]["event"]["data"]["pane_id"] == second
    assert err(herdr_server, "pane", "get", second) == "pane_not_found"


def test_usage_errors(herdr_server: ServerHandle) -> None:
    assert herdr_server.cli("pane", "split").returncode == 2
    assert herdr_server.cli("pane", "wait-output", "w1:p1").returncode == 2
    assert herdr_server.cli("workspace", "create", "--env", "NOEQUALS").returncode == 2


def test_server_stop_ends_pane_processes(herdr_server: ServerHandle, ws: str) -> None:
    info = ok(herdr_server, "pane", "process-info", f"{ws}:p1")["process_info"]
    pid = info["shell_pid"]
    assert [p["pid"] for p in info["foreground_processes"]] == [pid]
    ok(herdr_server, "server", "stop")
    assert herdr_server.server.proc.wait(10) == 0

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_until(gone, 10, message=f"pane shell {pid} survived server stop")
    log = (herdr_server.root / "s" / "herdr" / "server.log").read_text()
    assert '"level": "error"' not in log, log
