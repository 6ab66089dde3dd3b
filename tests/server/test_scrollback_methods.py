"""``pane.link.activate``, ``pane.edit_scrollback`` and ``pane.clear`` on a real server.

Real shells in real PTYs print the links (OSC 8 and plain text); the server-side opener
and ``$EDITOR`` are recorder scripts under ``tests/fixtures`` so the tests see exactly
the argv the server ran. Every result is checked against herdr's protocol-22 schema.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.schema22 import assert_valid_response, assert_valid_result

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
OSC8_URL = "https://example.test/osc8?q=1&r=2"
PLAIN_URL = "https://plain.test/a_(b)c"
NOBODY = 65534


def ok(server: ServerHandle, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = server.request(method, params)
    assert_valid_response(reply)
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    assert_valid_result(result)
    return result


def error_code(server: ServerHandle, method: str, params: dict[str, Any]) -> str:
    reply = server.request(method, params)
    assert "error" in reply, reply
    assert_valid_response(reply)
    return str(reply["error"]["code"])


def new_pane(server: ServerHandle) -> str:
    created = ok(server, "workspace.create", {"cwd": str(server.root)})
    return str(created["root_pane"]["pane_id"])


def visible_rows(server: ServerHandle, pane: str) -> list[str]:
    read = ok(server, "pane.read", {"pane_id": pane, "source": "visible"})["read"]
    return str(read["text"]).split("\n")


def run(server: ServerHandle, pane: str, line: str) -> None:
    ok(server, "pane.send_text", {"pane_id": pane, "text": line + "\r"})


def row_starting(server: ServerHandle, pane: str, prefix: str) -> int:
    """The viewport row whose text starts with ``prefix`` (the program's output, not the
    echoed command line, which starts with the prompt)."""

    def found() -> int | None:
        for index, row in enumerate(visible_rows(server, pane)):
            if row.startswith(prefix):
                return index
        return None

    row = wait_until(found, message=f"a row starting with {prefix!r}")
    assert row is not None
    return row


def activate(server: ServerHandle, pane: str, row: int, col: int, **extra: Any) -> dict[str, Any]:
    params = {"pane_id": pane, "viewport_row": row, "col": col, **extra}
    result = ok(server, "pane.link.activate", params)
    assert result["type"] == "pane_link_activated"
    return result


@pytest.fixture
def record_file(herdr_env: HerdrEnv) -> Path:
    return herdr_env.root / "opened.jsonl"


@pytest.fixture
def opener_server(herdr_env: HerdrEnv, record_file: Path) -> ServerHandle:
    opener = f"{sys.executable} {FIXTURES / 'record_argv.py'}"
    env = {"HERDR_LINK_OPENER": opener, "RECORD_ARGV_FILE": str(record_file)}
    return ServerHandle(herdr_env, herdr_env.start_server(env=env))


def opened(record_file: Path) -> list[list[str]]:
    if not record_file.exists():
        return []
    return [json.loads(line) for line in record_file.read_text().splitlines() if line]


def print_links(server: ServerHandle, pane: str) -> None:
    run(server, pane, f"printf '\\033]8;;{OSC8_URL}\\033\\\\CLICK ME\\033]8;;\\033\\\\ after\\n'")
    run(server, pane, f"printf 'see {PLAIN_URL}. done\\n'")
    run(server, pane, "printf '\\033]8;;javascript:alert(1)\\033\\\\JSLINK\\033]8;;\\033\\\\\\n'")
    run(server, pane, "printf '\\033]8;;-x\\033\\\\DASHLINK\\033]8;;\\033\\\\\\n'")
    row_starting(server, pane, "DASHLINK")


def test_osc8_and_plain_links_reach_the_opener_as_one_argument(
    opener_server: ServerHandle, record_file: Path
) -> None:
    server = opener_server
    pane = new_pane(server)
    print_links(server, pane)

    osc_row = row_starting(server, pane, "CLICK ME")
    assert activate(server, pane, osc_row, 0) == {
        "type": "pane_link_activated",
        "handled": True,
        "url": OSC8_URL,
    }
    wait_until(lambda: len(opened(record_file)) == 1, message="the opener to run")
    assert opened(record_file) == [[OSC8_URL]]

    plain_row = row_starting(server, pane, "see ")
    col = len("see https://plain")
    result = activate(server, pane, plain_row, col)
    assert result == {"type": "pane_link_activated", "handled": True, "url": PLAIN_URL}
    wait_until(lambda: len(opened(record_file)) == 2, message="the opener to run again")
    assert opened(record_file)[1] == [PLAIN_URL]


@pytest.mark.parametrize(
    ("prefix", "col", "url"),
    [
        ("JSLINK", 0, "javascript:alert(1)"),
        ("DASHLINK", 0, "-x"),
        ("CLICK ME", len("CLICK ME "), None),
        ("see ", 0, None),
        ("see ", len(f"see {PLAIN_URL}"), None),
    ],
    ids=["javascript-osc8", "flag-osc8", "after-the-link", "before-the-url", "trimmed-dot"],
)
def test_unsafe_links_and_plain_cells_never_run_the_opener(
    opener_server: ServerHandle, record_file: Path, prefix: str, col: int, url: str | None
) -> None:
    server = opener_server
    pane = new_pane(server)
    print_links(server, pane)
    row = row_starting(server, pane, prefix)
    assert activate(server, pane, row, col) == {
        "type": "pane_link_activated",
        "handled": False,
        "url": url,
    }
    # A safe link activated afterwards is the only thing the opener ever saw.
    activate(server, pane, row_starting(server, pane, "CLICK ME"), 0)
    wait_until(lambda: opened(record_file), message="the opener to run")
    assert opened(record_file) == [[OSC8_URL]]


def test_without_an_opener_the_client_gets_the_url(herdr_server: ServerHandle) -> None:
    """herdr's own behaviour: the server resolves, the client opens (handled: false)."""
    pane = new_pane(herdr_server)
    print_links(herdr_server, pane)
    row = row_starting(herdr_server, pane, "CLICK ME")
    assert activate(herdr_server, pane, row, 2) == {
        "type": "pane_link_activated",
        "handled": False,
        "url": OSC8_URL,
    }


def test_a_url_wrapped_over_rows_is_one_link(herdr_server: ServerHandle) -> None:
    pane = new_pane(herdr_server)
    cols = ok(herdr_server, "pane.get", {"pane_id": pane})["pane"]
    url = "https://long.test/" + "".join(f"{i:03d}" for i in range(80))
    run(herdr_server, pane, f"printf 'W {url} end\\n'")
    row = row_starting(herdr_server, pane, "W https://long")
    rows = visible_rows(herdr_server, pane)
    assert url not in rows[row], (cols, rows)  # the terminal really wrapped it
    assert activate(herdr_server, pane, row + 1, 3)["url"] == url
    assert activate(herdr_server, pane, row, 4)["url"] == url


def test_an_opener_that_cannot_start_leaves_it_to_the_client(
    herdr_env: HerdrEnv,
) -> None:
    env = {"HERDR_LINK_OPENER": str(herdr_env.root / "no-such-opener")}
    server = ServerHandle(herdr_env, herdr_env.start_server(env=env))
    pane = new_pane(server)
    print_links(server, pane)
    row = row_starting(server, pane, "CLICK ME")
    assert activate(server, pane, row, 0) == {
        "type": "pane_link_activated",
        "handled": False,
        "url": OSC8_URL,
    }


def test_stale_revision_or_viewport_is_refused(herdr_server: ServerHandle) -> None:
    pane = new_pane(herdr_server)
    print_links(herdr_server, pane)
    row = row_starting(herdr_server, pane, "CLICK ME")
    revision = ok(herdr_server, "pane.read", {"pane_id": pane, "source": "visible"})["read"][
        "revision"
    ]
    current = {"content_revision": revision, "offset_from_bottom": 0}
    assert activate(herdr_server, pane, row, 0, **current)["url"] == OSC8_URL
    params = {"pane_id": pane, "viewport_row": row, "col": 0}
    stale = {**params, "content_revision": revision + 1}
    assert error_code(herdr_server, "pane.link.activate", stale) == "stale_content"
    scrolled = {**params, "offset_from_bottom": 5}
    assert error_code(herdr_server, "pane.link.activate", scrolled) == "stale_content"


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"pane_id": "w9:p9", "viewport_row": 0, "col": 0}, "pane_not_found"),
        ({"viewport_row": 0, "col": 0}, "invalid_request"),
        ({"pane_id": "P", "viewport_row": -1, "col": 0}, "invalid_request"),
        ({"pane_id": "P", "viewport_row": 0, "col": 65536}, "invalid_request"),
        ({"pane_id": "P", "viewport_row": "0", "col": 0}, "invalid_request"),
    ],
    ids=["unknown-pane", "no-pane", "negative-row", "col-over-u16", "string-row"],
)
def test_bad_activate_params_get_one_error(
    herdr_server: ServerHandle, params: dict[str, Any], code: str
) -> None:
    pane = new_pane(herdr_server)
    if params.get("pane_id") == "P":
        params = {**params, "pane_id": pane}
    assert error_code(herdr_server, "pane.link.activate", params) == code
    assert ok(herdr_server, "ping", {})["type"] == "pong"


def test_cells_outside_the_pane_have_no_link(herdr_server: ServerHandle) -> None:
    pane = new_pane(herdr_server)
    result = activate(herdr_server, pane, 65535, 65535)
    assert result == {"type": "pane_link_activated", "handled": False, "url": None}


# -- pane.clear ------------------------------------------------------------------------


def scroll_info(server: ServerHandle, pane: str) -> dict[str, Any]:
    scroll: dict[str, Any] = ok(server, "pane.get", {"pane_id": pane})["pane"]["scroll"]
    return scroll


def test_clear_forgets_screen_and_scrollback_but_keeps_the_shell(
    herdr_server: ServerHandle,
) -> None:
    server = herdr_server
    pane = new_pane(server)
    run(server, pane, "seq 1 200")
    wait_until(lambda: scroll_info(server, pane)["max_offset_from_bottom"] > 0)
    row_starting(server, pane, "200")
    assert ok(server, "pane.clear", {"pane_id": pane}) == {"type": "ok"}
    assert scroll_info(server, pane)["max_offset_from_bottom"] == 0
    rows = [r for r in visible_rows(server, pane) if r.strip()]
    assert len(rows) == 1 and not any(ch.isdigit() for ch in rows[0]), rows  # the prompt
    recent = ok(server, "pane.read", {"pane_id": pane, "source": "recent", "lines": 1000})
    assert "150" not in recent["read"]["text"]
    # The program got nothing: the shell is still at its prompt and runs the next line.
    run(server, pane, "echo after-clear")
    row_starting(server, pane, "after-clear")


def test_clear_on_the_alternate_screen_is_refused(herdr_server: ServerHandle) -> None:
    server = herdr_server
    pane = new_pane(server)
    run(server, pane, "printf 'before\\n\\033[?1049hFULLSCREEN'; sleep 30")
    row_starting(server, pane, "FULLSCREEN")
    assert error_code(server, "pane.clear", {"pane_id": pane}) == "pane_clear_failed"
    assert any(r.startswith("FULLSCREEN") for r in visible_rows(server, pane))


def test_clear_unknown_pane(herdr_server: ServerHandle) -> None:
    assert error_code(herdr_server, "pane.clear", {"pane_id": "w9:p9"}) == "pane_not_found"


# -- pane.edit_scrollback -----------------------------------------------------------------


@pytest.fixture
def editor_server(herdr_env: HerdrEnv) -> ServerHandle:
    root = herdr_env.root
    env = {
        "EDITOR": f"{sys.executable} {FIXTURES / 'copy_editor.py'} --wait",
        "VISUAL": "false",
        "COPY_EDITOR_DEST": str(root / "editor.json"),
        "COPY_EDITOR_RELEASE": str(root / "editor.release"),
    }
    return ServerHandle(herdr_env, herdr_env.start_server(env=env))


def tab_panes(server: ServerHandle, pane: str) -> list[str]:
    layout = ok(server, "pane.layout", {"pane_id": pane})["layout"]
    return [str(p["pane_id"]) for p in layout["panes"]]


def test_edit_scrollback_opens_the_editor_on_a_private_copy(editor_server: ServerHandle) -> None:
    server = editor_server
    root = server.root
    pane = new_pane(server)
    run(server, pane, "seq 1 120; echo MARKER-END")
    row_starting(server, pane, "MARKER-END")

    assert ok(server, "pane.edit_scrollback", {"pane_id": pane}) == {"type": "ok"}
    record_path = root / "editor.json"
    wait_until(record_path.exists, message="the editor to start")
    record = json.loads(record_path.read_text())

    # $EDITOR split into words, the file one more argument after them
    assert record["argv"][:1] == ["--wait"] and len(record["argv"]) == 2
    copy = Path(record["path"])
    assert record["argv"][1] == str(copy)
    assert record["mode"] == 0o600
    state_dir = Path(server.env["XDG_STATE_HOME"])
    assert state_dir in copy.parents and copy.parent.name == "scrollback"
    assert stat.S_IMODE(os.lstat(copy.parent).st_mode) == 0o700
    lines = record["text"].splitlines()
    assert "1" in lines and "120" in lines and "MARKER-END" in lines

    # a new pane in the same tab, focused and zoomed, runs the editor
    panes = tab_panes(server, pane)
    assert len(panes) == 2
    editor = next(p for p in panes if p != pane)
    layout = ok(server, "pane.layout", {"pane_id": pane})["layout"]
    assert layout["focused_pane_id"] == editor and layout["zoomed"] is True
    assert copy.exists()

    (root / "editor.release").touch()
    wait_until(lambda: tab_panes(server, pane) == [pane], message="the editor pane to close")
    wait_until(lambda: not copy.exists(), message="the copy to be removed")
    current = ok(server, "pane.current", {})["pane"]
    assert current["pane_id"] == pane
    assert ok(server, "pane.layout", {"pane_id": pane})["layout"]["zoomed"] is False


def test_closing_the_editor_pane_removes_the_copy(editor_server: ServerHandle) -> None:
    server = editor_server
    pane = new_pane(server)
    assert ok(server, "pane.edit_scrollback", {"pane_id": pane}) == {"type": "ok"}
    record_path = server.root / "editor.json"
    wait_until(record_path.exists, message="the editor to start")
    copy = Path(json.loads(record_path.read_text())["path"])
    editor = next(p for p in tab_panes(server, pane) if p != pane)
    assert ok(server, "pane.close", {"pane_id": editor}) == {"type": "ok"}
    wait_until(lambda: not copy.exists(), message="the copy to be removed")


def test_edit_scrollback_unknown_pane_changes_nothing(editor_server: ServerHandle) -> None:
    pane = new_pane(editor_server)
    assert error_code(editor_server, "pane.edit_scrollback", {"pane_id": "w9:p9"}) == (
        "pane_not_found"
    )
    assert tab_panes(editor_server, pane) == [pane]
    scrollback = Path(editor_server.env["XDG_STATE_HOME"])
    assert not list(scrollback.rglob("scrollback-*.txt"))


@pytest.mark.skipif(os.geteuid() != 0, reason="planting another uid's symlink needs root")
def test_a_planted_symlink_for_the_scrollback_dir_is_refused(
    editor_server: ServerHandle, tmp_path: Path
) -> None:
    server = editor_server
    pane = new_pane(server)
    assert ok(server, "pane.edit_scrollback", {"pane_id": pane}) == {"type": "ok"}
    record_path = server.root / "editor.json"
    wait_until(record_path.exists, message="the editor to start")
    directory = Path(json.loads(record_path.read_text())["path"]).parent
    (server.root / "editor.release").touch()
    wait_until(lambda: tab_panes(server, pane) == [pane], message="the editor to exit")
    directory.rmdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    directory.symlink_to(elsewhere)
    os.lchown(directory, NOBODY, NOBODY)  # another user's link: never followed
    code = error_code(server, "pane.edit_scrollback", {"pane_id": pane})
    assert code == "edit_scrollback_failed"
    assert tab_panes(server, pane) == [pane]
    assert list(elsewhere.iterdir()) == []


def test_an_editor_that_cannot_start_leaves_no_pane_or_copy(herdr_env: HerdrEnv) -> None:
    env = {"EDITOR": str(herdr_env.root / "no-such-editor"), "VISUAL": ""}
    server = ServerHandle(herdr_env, herdr_env.start_server(env=env))
    pane = new_pane(server)
    code = error_code(server, "pane.edit_scrollback", {"pane_id": pane})
    assert code == "edit_scrollback_failed"
    assert tab_panes(server, pane) == [pane]
    assert ok(server, "pane.layout", {"pane_id": pane})["layout"]["zoomed"] is False
    state = Path(server.env["XDG_STATE_HOME"])
    assert not list(state.rglob("scrollback-*.txt"))
    assert ok(server, "ping", {})["type"] == "pong"


# -- CLI verbs ------------------------------------------------------------------------------


def test_cli_pane_clear_and_edit_scrollback(editor_server: ServerHandle) -> None:
    server = editor_server
    pane = new_pane(server)
    run(server, pane, "seq 1 100")
    wait_until(lambda: scroll_info(server, pane)["max_offset_from_bottom"] > 0)
    done = server.cli("pane", "clear", pane)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == {"type": "ok"}
    assert scroll_info(server, pane)["max_offset_from_bottom"] == 0

    done = server.cli("pane", "edit-scrollback", "--pane", pane)
    assert done.returncode == 0, done.stderr
    wait_until((server.root / "editor.json").exists, message="the editor to start")
    (server.root / "editor.release").touch()
    wait_until(lambda: tab_panes(server, pane) == [pane], message="the editor to exit")


@pytest.mark.parametrize(
    "argv",
    [("pane", "clear"), ("pane", "edit-scrollback"), ("pane", "clear", "a", "--pane", "b")],
    ids=["clear-without-pane", "edit-without-pane", "two-panes"],
)
def test_cli_verbs_need_exactly_one_pane(herdr_server: ServerHandle, argv: tuple[str, ...]) -> None:
    env = {k: v for k, v in herdr_server.env.items() if k != "HERDR_PANE_ID"}
    done = herdr_server.cli(*argv, env=env)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "pane" in done.stderr


def test_stopping_the_server_removes_the_copy(editor_server: ServerHandle) -> None:
    server = editor_server
    pane = new_pane(server)
    assert ok(server, "pane.edit_scrollback", {"pane_id": pane}) == {"type": "ok"}
    record_path = server.root / "editor.json"
    wait_until(record_path.exists, message="the editor to start")
    copy = Path(json.loads(record_path.read_text())["path"])
    assert copy.exists()
    server.server.stop()
    assert not copy.exists()
