"""``remote_image_paste``'s copy: bytes to a new private temp file on the remote machine
over the attach's ssh (a real loopback sshd), and the remote's answer checked."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from herdr.remote.link import Link
from herdr.remote.upload import UploadError, checked_path, upload
from herdr_testing.sshd import SshMachine

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64


def test_an_image_lands_in_a_private_temp_file(ssh_link: Link) -> None:
    path = Path(upload(ssh_link, PNG))
    assert path.name == "clipboard.png" and path.parent.name.startswith("herdr-paste-")
    try:
        assert path.read_bytes() == PNG  # the loopback "remote" shares this file system
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert path.parent.stat().st_uid == os.getuid()
        second = Path(upload(ssh_link, b"\x89PNG second"))
        assert second.parent != path.parent  # a fresh directory each time
        second.unlink()
        second.parent.rmdir()
    finally:
        path.unlink()
        path.parent.rmdir()


def test_an_unreachable_machine_is_one_error(sshd: SshMachine) -> None:
    env = {**os.environ, **sshd.client_env()}
    dead = Link.open("ssh://nobody@127.0.0.1:1", env, managed=True)
    try:
        with pytest.raises(UploadError, match="failed"):
            upload(dead, PNG)
    finally:
        dead.close()


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        pytest.param(b"/tmp/herdr-paste-abc/clipboard.png", True, id="path"),
        pytest.param(b"tmp/herdr-paste-abc/clipboard.png", False, id="relative"),
        pytest.param(b"/tmp/x/clipboard.png\n/etc/passwd", False, id="two-lines"),
        pytest.param(b"/tmp/x/other.png", False, id="other-name"),
        pytest.param(b"", False, id="empty"),
        pytest.param(b"/tmp/x/clip\x00board.png", False, id="nul"),
    ],
)
def test_checked_path(answer: bytes, ok: bool) -> None:
    if ok:
        assert checked_path(answer) == answer.decode()
    else:
        with pytest.raises(UploadError):
            checked_path(answer)
