"""``remote_image_paste`` (``ctrl+v`` on a remote attach, spec §8).

An image on this computer's clipboard is copied to a private temp file on the machine
the TUI shows and that file's path is pasted into the focused pane (agents such as
Claude Code take a pasted image path as the image). With no image on the clipboard the
key is the program's: ``ctrl+v`` is sent as the terminal sent it (0x16, or its kitty
keyboard encoding when the pane asked for that) (locally the key
is never bound: :func:`herdr.client.bindings.load_bindings`). The clipboard
read and the copy run in worker threads so the TUI keeps drawing meanwhile.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from herdr.api.attach_messages import Input, Paste
from herdr.client import clipboard_image

if TYPE_CHECKING:
    from herdr.client.app import App

CTRL_V = "\x16"


def paste(app: App) -> None:
    if app.uploader is None:  # local: ctrl+v is the program's (it reads the clipboard)
        app.notice("paste image: only on a remote attach (herdr --remote)")
        return
    app.spawn(_paste(app, app.focused_pane_id(), given_back(app.machine.key_raw)))


def given_back(raw: bytes) -> str:
    """The key to give the program when there is no image: the bytes that ran the
    binding, else the legacy ``ctrl+v``."""
    return raw.decode("utf-8", "replace") if raw else CTRL_V


async def _paste(app: App, pane_id: str | None, key: str = CTRL_V) -> None:
    data = await asyncio.to_thread(clipboard_image.read_image, dict(os.environ))
    uploader = app.uploader
    if data is None or uploader is None:
        app.typed()
        app.conn.send(Input(pane_id=pane_id, data=key))
        return
    app.notice("copying the clipboard image to the remote machine…")
    try:
        path = await asyncio.to_thread(uploader, data)
    except OSError as exc:  # an uploader's failures are OSErrors (remote.upload.UploadError)
        app.notice(f"paste image: {exc}")
        return
    app.notice("")
    app.typed()
    app.conn.send(Paste(pane_id=pane_id, data=path))
