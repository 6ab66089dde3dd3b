"""``remote_image_paste`` in the TUI: with an image on this computer's clipboard (the
``tests/fixtures/clipboard`` stand-in for wl-paste) the image is copied over ssh (a real
loopback sshd) and its path typed into the focused pane of a real server; with none,
the pane gets ``ctrl+v`` itself. The key is bound on remote attaches only."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from herdr.api.attach_messages import AttachParams
from herdr.client import actions as a
from herdr.client.app import App
from herdr.client.bindings import load_bindings
from herdr.client.input import CTRL
from herdr.client.keynames import KeySpec
from herdr.client.settings import UiSettings
from herdr.remote.link import Link
from herdr.remote.upload import upload
from herdr_testing import ServerHandle, wait_until

TOOLS = Path(__file__).resolve().parents[1] / "fixtures" / "clipboard"
PNG = b"\x89PNG\r\n\x1a\n" + b"pixels" * 100


def _read(server: ServerHandle, pane_id: str) -> str:
    reply = server.request("pane.read", {"pane_id": pane_id, "source": "visible"})
    text: str = reply["result"]["read"]["text"]
    return text


def _paste(server: ServerHandle, app: App) -> None:
    async def scenario() -> None:
        await app.conn.attach(AttachParams(cols=80, rows=24))  # keys travel on the stream
        app.ws_id, app.tab_id = "w1", "w1:t1"
        app.do(a.Command("remote_image_paste"))
        while app._tasks:
            await asyncio.gather(*list(app._tasks))
        await asyncio.sleep(0.2)  # let the transport flush before the loop closes

    asyncio.run(scenario())


@pytest.fixture
def clipboard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    board = tmp_path / "board"
    board.mkdir()
    monkeypatch.setenv("PATH", f"{TOOLS}:{os.environ['PATH']}")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-test")
    monkeypatch.setenv("FAKE_CLIPBOARD", str(board))
    return board


def _app(server: ServerHandle, ssh_link: Link, fd_out: int) -> App:
    def uploader(data: bytes) -> str:
        return upload(ssh_link, data)

    app = App(
        str(server.socket_path),
        settings=UiSettings(),
        fd_out=fd_out,
        on_machine="box",
        uploader=uploader,
    )
    app.focused_pane_id = lambda: "w1:p1"  # type: ignore[method-assign]
    return app


def _started(server: ServerHandle) -> None:
    created = server.request("workspace.create", {"cwd": "/tmp"})
    assert "result" in created, created
    # no line editing (ctrl+v would be the tty's literal-next): cat -v shows each byte
    command = "stty -icanon -iexten -echo; echo READY; cat -v\r"
    server.request("pane.send_text", {"pane_id": "w1:p1", "text": command})
    wait_until(lambda: "\nREADY" in _read(server, "w1:p1"), 15.0)


def test_an_image_on_the_clipboard_is_pasted_as_a_remote_path(
    herdr_server: ServerHandle, ssh_link: Link, clipboard: Path
) -> None:
    (clipboard / "types").write_text("text/plain\nimage/png\n")
    (clipboard / "image.png").write_bytes(PNG)
    _started(herdr_server)
    read_end, write_end = os.pipe()
    try:
        app = _app(herdr_server, ssh_link, write_end)
        _paste(herdr_server, app)
    finally:
        os.close(read_end)
        os.close(write_end)

    def pasted() -> Path | None:
        for word in _read(herdr_server, "w1:p1").split():
            if word.endswith("/clipboard.png"):
                return Path(word)
        return None

    path = wait_until(pasted, 15.0, message="no path was pasted")
    assert path is not None and path.read_bytes() == PNG
    path.unlink()
    path.parent.rmdir()


def test_no_image_sends_ctrl_v_to_the_program(
    herdr_server: ServerHandle, ssh_link: Link, clipboard: Path
) -> None:
    (clipboard / "types").write_text("text/plain\n")
    _started(herdr_server)
    read_end, write_end = os.pipe()
    try:
        _paste(herdr_server, _app(herdr_server, ssh_link, write_end))
    finally:
        os.close(read_end)
        os.close(write_end)
    wait_until(lambda: "^V" in _read(herdr_server, "w1:p1"), 15.0, message="no ctrl+v arrived")


@pytest.mark.parametrize(("remote", "bound"), [(True, True), (False, False)])
def test_ctrl_v_is_bound_on_remote_attaches_only(remote: bool, bound: bool) -> None:
    bindings, errors = load_bindings({}, remote=remote)
    assert not errors
    found: Any = bindings.direct_keys.get(KeySpec("v", CTRL))
    assert (found == a.Command("remote_image_paste")) is bound


@pytest.mark.parametrize(
    ("raw", "given"),
    [
        (b"\x16", "\x16"),  # legacy encoding
        (b"\x1b[118;5u", "\x1b[118;5u"),  # the pane asked for the kitty keyboard protocol
    ],
)
def test_no_image_gives_the_key_back_as_the_terminal_sent_it(raw: bytes, given: str) -> None:
    from herdr.client.image_paste import given_back
    from herdr.client.input import Key
    from herdr.client.modes import KeyMachine

    bindings, _ = load_bindings({}, remote=True)
    machine = KeyMachine(bindings)
    actions = machine.handle(Key("v", CTRL, raw))
    assert a.Command("remote_image_paste") in actions
    assert given_back(machine.key_raw) == given


def test_no_key_recorded_gives_legacy_ctrl_v() -> None:
    from herdr.client.image_paste import given_back

    assert given_back(b"") == "\x16"
