"""A reattach through the real launcher loads nothing heavy before its first frame.

``herdr`` runs on a real PTY against a real server with ``-X importtime`` writing to a
file; the launcher draws its first frame before it imports asyncio
(:mod:`herdr.client.first_frame`), so every module whose import finished before
asyncio's own import began is part of the first frame's cost. The modules below are
each several milliseconds on a slow core and are not needed for that frame (msgspec is
loaded without ``typing_extensions``: :mod:`herdr.cli.quick_msgspec`).
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from herdr_testing import ServerHandle

NOT_BEFORE_THE_FIRST_FRAME = (
    "inspect",  # with ast, dis, tokenize: typing_extensions' (msgspec's) or dataclasses'
    "dataclasses",
    "pathlib",
    "tomllib",  # no config file here: nothing to parse
    "herdr.vocab",  # the error-code enums
    "herdr.remote.link",
    "asyncio.base_events",
    "orjson",
    "regex",
)


def _import_lines(stderr: str) -> list[tuple[int, str]]:
    """``(depth, module)`` in the order their imports finished."""
    lines = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or line.endswith("| imported package"):
            continue
        name = line.rsplit("|", 1)[-1]
        if name.strip() == "imported package":
            continue
        depth = (len(name) - len(name.lstrip(" ")) - 1) // 2
        lines.append((depth, name.strip()))
    return lines


def before_asyncio(stderr: str) -> list[str]:
    """The modules imported before ``asyncio``'s import started: the lines before the
    first block that ends in ``asyncio`` (its own imports come first, deeper)."""
    lines = _import_lines(stderr)
    end = next(i for i, (_, name) in enumerate(lines) if name == "asyncio")
    depth = lines[end][0]
    start = end
    while start > 0 and lines[start - 1][0] > depth:
        start -= 1
    return [name for _, name in lines[:start]]


def _controlling_terminal() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _attach_and_detach(server: ServerHandle, log: Path) -> bytes:
    primary, secondary = os.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {**server.env, "TERM": "xterm-256color"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user runs it: cached byte code
    with log.open("wb") as errors:
        proc = subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "herdr"],
            stdin=secondary,
            stdout=secondary,
            stderr=errors,
            env=env,
            start_new_session=True,
            preexec_fn=_controlling_terminal,  # noqa: PLW1509 - the test runs no threads here
        )
    os.close(secondary)
    seen = b""
    sent = False
    try:
        deadline = time.monotonic() + 30
        while b"[detached" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # EIO: the client closed the terminal
                break
            seen += chunk
            if len(seen) > 200 and not sent:  # a frame is on the screen
                os.write(primary, b"\x02q")  # prefix, q: detach
                sent = True
        assert proc.wait(30) == 0, seen[-400:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(primary)
    return seen


def test_reattach_draws_before_the_heavy_imports(
    herdr_server: ServerHandle, tmp_path: Path
) -> None:
    created = herdr_server.request("workspace.create", {"cwd": "/", "focus": True})
    assert "result" in created, created
    log = tmp_path / "imports.txt"
    _attach_and_detach(herdr_server, log)
    first = before_asyncio(log.read_text())
    assert "herdr.client.app" in first and "msgspec" in first
    assert [m for m in NOT_BEFORE_THE_FIRST_FRAME if m in first] == []


def test_the_boundary_is_asyncios_own_block() -> None:
    stderr = "\n".join(
        [
            "import time: self [us] | cumulative | imported package",
            "import time:        10 |         10 | herdr.client.app",
            "import time:        10 |         10 |       inspect",
            "import time:        10 |         10 |     asyncio.base_events",
            "import time:        10 |         10 |   asyncio",
            "import time:        10 |         10 | uvloop",
            "import time:        10 |         10 | pathlib",
        ]
    )
    assert before_asyncio(stderr) == ["herdr.client.app"]
