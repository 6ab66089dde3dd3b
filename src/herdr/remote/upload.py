"""Copy bytes to a new private temp file on the remote machine (``remote_image_paste``).

One ``ssh`` over the attach's connection runs a fixed POSIX ``sh`` script: ``umask 077``,
a fresh directory from ``mktemp -d`` under ``$TMPDIR`` (else ``/tmp``), the bytes from
stdin into ``clipboard.png`` there, and the path printed. Nothing of the data reaches a
command line; the remote answer must be one absolute path or it is refused.
"""

from __future__ import annotations

import shlex
import subprocess
from typing import Protocol

UPLOAD_TIMEOUT_S = 30.0
FILE_NAME = "clipboard.png"
SCRIPT = (
    "umask 077 && "
    'd=$(mktemp -d "${TMPDIR:-/tmp}/herdr-paste-XXXXXXXX") && '
    f'cat > "$d/{FILE_NAME}" && '
    f'printf "%s" "$d/{FILE_NAME}"'
)


class UploadError(OSError):
    """The copy failed; the message says why in one line (an I/O failure to callers)."""


class SshLink(Protocol):
    def argv(self, remote_command: str | None, *extra: str, mux: bool = True) -> list[str]: ...


def remote_command() -> str:
    return f"sh -c {shlex.quote(SCRIPT)}"


def checked_path(answer: bytes) -> str:
    """The remote's printed path (PURE): absolute, one line, ending in our file name."""
    text = answer.decode("utf-8", "replace")
    if not text.startswith("/") or "\n" in text or "\x00" in text:
        raise UploadError(f"unexpected answer from the remote: {text[:80]!r}")
    if not text.endswith("/" + FILE_NAME):
        raise UploadError(f"unexpected answer from the remote: {text[:80]!r}")
    return text


def upload(link: SshLink, data: bytes) -> str:
    """Write ``data`` to a new remote temp file; its path."""
    try:
        proc = subprocess.run(
            link.argv(remote_command()),
            input=data,
            capture_output=True,
            timeout=UPLOAD_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise UploadError("copying the image to the remote machine timed out") from None
    except OSError as exc:
        raise UploadError(f"cannot run ssh: {exc}") from None
    if proc.returncode != 0:
        last = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["failed"]
        raise UploadError(f"copying the image to the remote machine failed: {last[0][:120]}")
    return checked_path(proc.stdout)
