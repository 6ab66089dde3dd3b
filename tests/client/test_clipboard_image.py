"""Reading an image from this computer's clipboard for ``remote_image_paste``: the
desktop's own tool is run (stand-ins in ``tests/fixtures/clipboard`` play wl-paste,
xclip and pngpaste over a directory), and only a clipboard that offers a PNG counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from herdr.client import clipboard_image as ci

TOOLS = Path(__file__).resolve().parents[1] / "fixtures" / "clipboard"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


Case = tuple[dict[str, str], str, bytes | None, str, bytes | None]


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(({"WAYLAND_DISPLAY": "w0"}, "image/png\n", PNG, "linux", PNG), id="wayland"),
        pytest.param(({"DISPLAY": ":0"}, "TARGETS\nimage/png\n", PNG, "linux", PNG), id="x11"),
        pytest.param(
            ({"WAYLAND_DISPLAY": "w0"}, "text/plain\n", PNG, "linux", None), id="text-clipboard"
        ),
        pytest.param(({"DISPLAY": ":0"}, "image/png\n", None, "linux", None), id="offer-no-bytes"),
        pytest.param(({}, "image/png\n", PNG, "linux", None), id="no-desktop"),
        pytest.param(({}, "", PNG, "darwin", PNG), id="macos"),
        pytest.param(({}, "", b"GIF89a", "darwin", None), id="macos-not-png"),
    ],
)
def test_read_image(tmp_path: Path, case: Case) -> None:
    session, types, image, platform, expected = case
    board = tmp_path / "board"
    board.mkdir()
    (board / "types").write_text(types)
    if image is not None:
        (board / "image.png").write_bytes(image)
    env = {"PATH": f"{TOOLS}:/usr/bin:/bin", "FAKE_CLIPBOARD": str(board), **session}
    assert ci.read_image(env, platform) == expected


def test_no_tool_on_path_is_no_image(tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path), "WAYLAND_DISPLAY": "w0", "DISPLAY": ":0"}
    assert ci.read_image(env, "linux") is None


def test_an_image_over_the_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    board = tmp_path / "board"
    board.mkdir()
    (board / "types").write_text("image/png\n")
    (board / "image.png").write_bytes(PNG + b"x" * 4096)
    monkeypatch.setattr(ci, "MAX_IMAGE_BYTES", 1024)
    env = {"PATH": f"{TOOLS}:/usr/bin:/bin", "FAKE_CLIPBOARD": str(board), "DISPLAY": ":0"}
    assert ci.read_image(env, "linux") is None
