"""An image on this computer's clipboard, for ``remote_image_paste`` (spec §8).

On a remote attach the agent runs elsewhere and cannot read this computer's clipboard;
herdr copies a clipboard image to a temp file on the remote machine and pastes its
path. The image is read with the desktop's own tool: ``wl-paste`` under Wayland,
``xclip`` under X11, ``pngpaste`` on macOS. Each runs as an argv (no shell) with a time
limit, and what it prints is capped in bytes; no tool, no image or a tool that fails
means "no image" and the key goes to the program as usual.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping

MAX_IMAGE_BYTES = 32 * 1024 * 1024
TOOL_TIMEOUT_S = 3.0
IMAGE_TYPES = ("image/png",)  # what agents take as a pasted file path's image


def _run(argv: list[str], env: Mapping[str, str]) -> bytes | None:
    """The tool's stdout, or None (missing, failed, timed out, too big)."""
    try:
        proc = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=dict(env),
            timeout=TOOL_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0 or not proc.stdout or len(proc.stdout) > MAX_IMAGE_BYTES:
        return None
    return proc.stdout


def _typed(list_argv: list[str], read_argv: list[str], env: Mapping[str, str]) -> bytes | None:
    """Read the PNG only when the clipboard offers one (a text clipboard is no image)."""
    offered = _run(list_argv, env)
    if offered is None:
        return None
    types = {line.strip() for line in offered.decode("utf-8", "replace").splitlines()}
    if not types.intersection(IMAGE_TYPES):
        return None
    return _run(read_argv, env)


def read_image(env: Mapping[str, str], platform: str = sys.platform) -> bytes | None:
    """PNG bytes from the clipboard, or None."""
    path = env.get("PATH")
    if platform == "darwin":
        tool = shutil.which("pngpaste", path=path)
        data = _run([tool, "-"], env) if tool else None
        return data if data is not None and data.startswith(b"\x89PNG") else None
    if env.get("WAYLAND_DISPLAY"):
        tool = shutil.which("wl-paste", path=path)
        if tool:
            found = _typed([tool, "--list-types"], [tool, "--type", "image/png"], env)
            if found is not None:
                return found
    if env.get("DISPLAY"):
        tool = shutil.which("xclip", path=path)
        if tool:
            base = [tool, "-selection", "clipboard", "-o", "-t"]
            return _typed([*base, "TARGETS"], [*base, "image/png"], env)
    return None
